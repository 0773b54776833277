//! The [`RateStore`](crate::store::RateStore) and [`CacheStore`](crate::store::CacheStore)
//! contracts.

use std::time::Duration;

use super::fresh_id;
use crate::store::{Bucket, CacheStore, Cached, RateStore};

/// The [`RateStore`](crate::store::RateStore) contract: a new bucket is full; tokens taken
/// through either handle come out of one bucket, never twice under concurrency; an empty bucket
/// says how long until a token is back, and has one again after that wait; buckets of other
/// keys are untouched.
pub async fn rate_store<R: RateStore>(a: R, b: R) {
    let key = fresh_id();
    let never = Bucket {
        burst: 3,
        per_second: 0.0,
    };
    for (n, store) in [&a, &b, &a].into_iter().enumerate() {
        assert_eq!(
            store.take(&key, never).await.expect("take"),
            None,
            "token {} of a full bucket of 3 is there",
            n + 1
        );
    }
    let wait = b.take(&key, never).await.expect("take");
    assert!(
        wait.is_some_and(|w| w >= Duration::from_secs(60)),
        "the 4th take through the other handle finds the bucket empty, and a bucket never \
         refilled says so with a long wait: {wait:?}"
    );
    let other = fresh_id();
    assert_eq!(
        a.take(&other, never).await.expect("take"),
        None,
        "another key's bucket is untouched"
    );

    let race = fresh_id();
    let five = Bucket {
        burst: 5,
        per_second: 0.0,
    };
    let takes = (0..12).map(|i| {
        let store = if i % 2 == 0 { &a } else { &b };
        let race = race.as_str();
        async move { store.take(race, five).await.expect("take") }
    });
    let granted = futures_util::future::join_all(takes)
        .await
        .into_iter()
        .filter(Option::is_none)
        .count();
    assert_eq!(
        granted, 5,
        "12 concurrent takes of a bucket of 5 get exactly 5 tokens"
    );

    let refill = fresh_id();
    let fast = Bucket {
        burst: 1,
        per_second: 20.0,
    };
    assert_eq!(a.take(&refill, fast).await.expect("take"), None);
    let wait = b
        .take(&refill, fast)
        .await
        .expect("take")
        .expect("an empty bucket refilled at 20/s says when");
    assert!(
        wait <= Duration::from_millis(100),
        "at 20 tokens a second the next one is at most 50 ms away (with slack): {wait:?}"
    );
    tokio::time::sleep(wait + Duration::from_millis(30)).await;
    assert_eq!(
        a.take(&refill, fast).await.expect("take"),
        None,
        "after the wait it said, a token is back"
    );
}

/// The [`CacheStore`](crate::store::CacheStore) contract: what one handle puts the other gets,
/// with a remaining life within the TTL; an invalidation through either handle makes the tag's
/// entries miss at once, moves its version, and refuses a put made with the old version (an
/// answer computed before the invalidation); other tags keep theirs; an entry expires with its
/// TTL.
pub async fn cache_store<C: CacheStore>(a: C, b: C) {
    let run = fresh_id();
    let tag = format!("resource:test://{run}/a");
    let other = format!("resource:test://{run}/b");
    let ttl = Duration::from_secs(60);
    let miss = |c: Cached| match c {
        Cached::Miss { version } => version,
        Cached::Hit { value, .. } => panic!("expected a miss, found {value:?}"),
    };

    let v1 = miss(a.get(&tag, "k", ttl).await.expect("get"));
    b.put(&tag, "k", v1, "{\"n\":1}", ttl).await.expect("put");
    let v_other = miss(b.get(&other, "k", ttl).await.expect("get"));
    a.put(&other, "k", v_other, "{\"n\":2}", ttl)
        .await
        .expect("put");
    match a.get(&tag, "k", ttl).await.expect("get") {
        Cached::Hit { value, remaining } => {
            assert_eq!(value, "{\"n\":1}", "what b put, a gets, as put");
            assert!(
                remaining <= ttl && remaining > ttl - Duration::from_secs(10),
                "the remaining life is within the TTL: {remaining:?}"
            );
        }
        other => panic!("what b put is a hit through a: {other:?}"),
    }
    assert!(
        matches!(
            b.get(&tag, "other-key", ttl).await.expect("get"),
            Cached::Miss { .. }
        ),
        "another key of the tag misses"
    );

    b.invalidate(&tag).await.expect("invalidate");
    let v2 = miss(a.get(&tag, "k", ttl).await.expect("get"));
    assert_ne!(v1, v2, "an invalidation moves the tag's version");
    a.put(&tag, "k", v1, "{\"stale\":true}", ttl)
        .await
        .expect("put");
    assert_eq!(
        miss(b.get(&tag, "k", ttl).await.expect("get")),
        v2,
        "a put with the version from before the invalidation keeps nothing"
    );
    assert!(
        matches!(
            a.get(&other, "k", ttl).await.expect("get"),
            Cached::Hit { .. }
        ),
        "another tag keeps its entries"
    );
    a.invalidate(&format!("resource:test://{run}/never-cached"))
        .await
        .expect("invalidating a tag with nothing cached is fine");

    let short = Duration::from_millis(150);
    let v3 = miss(a.get(&tag, "short", short).await.expect("get"));
    b.put(&tag, "short", v3, "{}", short).await.expect("put");
    assert!(matches!(
        a.get(&tag, "short", short).await.expect("get"),
        Cached::Hit { .. }
    ));
    tokio::time::sleep(short + Duration::from_millis(100)).await;
    assert!(
        matches!(
            b.get(&tag, "short", short).await.expect("get"),
            Cached::Miss { .. }
        ),
        "an entry expires with its TTL"
    );
}
