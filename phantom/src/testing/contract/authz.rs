//! The authorization server's contracts: [`ClientStore`](crate::store::ClientStore),
//! [`GrantStore`](crate::store::GrantStore), [`RefreshStore`](crate::store::RefreshStore) and
//! [`ConsentStore`](crate::store::ConsentStore).

use std::time::Duration;

use super::fresh_id;
use crate::store::{
    ClientStore, ConsentStore, GrantStore, RefreshStore, Rotated, StoreErrorKind, USED_TOKENS,
};

/// A TTL the checks outlive, and the wait that outlives it.
const SHORT: Duration = Duration::from_millis(300);
const PAST_SHORT: Duration = Duration::from_millis(600);
const LONG: Duration = Duration::from_secs(60);

/// The [`ClientStore`](crate::store::ClientStore) contract: a registration is read through the
/// other handle as written; an id registered twice is a conflict that keeps the first record;
/// reading restarts the idle time, so a client in use does not lapse, and one left unused does;
/// a removed registration is gone, and its id may be registered again.
pub async fn client_store<C: ClientStore>(a: C, b: C) {
    let id = fresh_id();
    assert_eq!(
        b.client(&id, LONG).await.expect("client"),
        None,
        "an id never registered has no registration"
    );
    a.register(&id, r#"{"name":"first"}"#, LONG)
        .await
        .expect("register");
    assert_eq!(
        b.client(&id, LONG).await.expect("client").as_deref(),
        Some(r#"{"name":"first"}"#),
        "a registration is read through the other handle as written"
    );
    let again = b.register(&id, r#"{"name":"second"}"#, LONG).await;
    assert_eq!(
        again.map_err(|e| e.kind()),
        Err(StoreErrorKind::Conflict),
        "registering an id twice is a conflict"
    );
    assert_eq!(
        a.client(&id, LONG).await.expect("client").as_deref(),
        Some(r#"{"name":"first"}"#),
        "a conflicting registration keeps the first record"
    );
    a.remove(&id).await.expect("remove");
    assert_eq!(
        b.client(&id, LONG).await.expect("client"),
        None,
        "a removed registration is gone"
    );
    b.register(&id, r#"{"name":"third"}"#, LONG)
        .await
        .expect("a removed id may be registered again");

    let used = fresh_id();
    let unused = fresh_id();
    a.register(&used, "{}", SHORT).await.expect("register");
    a.register(&unused, "{}", SHORT).await.expect("register");
    for _ in 0..3 {
        tokio::time::sleep(SHORT / 2).await;
        assert!(
            b.client(&used, SHORT).await.expect("client").is_some(),
            "a registration read within its idle time is still there (reading restarts it)"
        );
    }
    assert_eq!(
        b.client(&unused, SHORT).await.expect("client"),
        None,
        "a registration left unused past its idle time lapses"
    );
    b.register(&unused, "{}", LONG)
        .await
        .expect("a lapsed id may be registered again");
}

/// The [`GrantStore`](crate::store::GrantStore) contract: a record put through one handle is
/// taken through the other as written, once (a second take finds nothing); a key holding a
/// record refuses another (a conflict); of many concurrent takes, exactly one gets the record;
/// a record not taken within its TTL is gone.
pub async fn grant_store<G: GrantStore>(a: G, b: G) {
    let key = fresh_id();
    assert_eq!(
        b.take(&key).await.expect("take"),
        None,
        "a key never put has no record"
    );
    a.put(&key, r#"{"code":"one"}"#, LONG).await.expect("put");
    let twice = b.put(&key, r#"{"code":"two"}"#, LONG).await;
    assert_eq!(
        twice.map_err(|e| e.kind()),
        Err(StoreErrorKind::Conflict),
        "a key holding a record refuses another"
    );
    assert_eq!(
        b.take(&key).await.expect("take").as_deref(),
        Some(r#"{"code":"one"}"#),
        "a record is taken through the other handle as first written"
    );
    assert_eq!(
        a.take(&key).await.expect("take"),
        None,
        "a record is taken once"
    );

    let race = fresh_id();
    a.put(&race, "once", LONG).await.expect("put");
    let takes = (0..10).map(|i| {
        let store = if i % 2 == 0 { &a } else { &b };
        let race = race.as_str();
        async move { store.take(race).await.expect("take") }
    });
    let taken = futures_util::future::join_all(takes)
        .await
        .into_iter()
        .flatten()
        .count();
    assert_eq!(
        taken, 1,
        "of 10 concurrent takes, exactly one gets the record"
    );

    let lapsing = fresh_id();
    a.put(&lapsing, "short", SHORT).await.expect("put");
    tokio::time::sleep(PAST_SHORT).await;
    assert_eq!(
        b.take(&lapsing).await.expect("take"),
        None,
        "a record not taken within its TTL is gone"
    );
    b.put(&lapsing, "again", LONG)
        .await
        .expect("an expired key may be put again");
}

/// The [`RefreshStore`](crate::store::RefreshStore) contract: a family's current token rotates
/// through either handle, answering the family's record; a replaced token presented again is
/// reuse, which revokes the family (its current token too); a token the family never had is
/// unknown and revokes nothing; of two concurrent rotations of one token one is current and the
/// other reuse; a revoked family and an expired one know no token; a family started twice is a
/// conflict; a token older than the last [`USED_TOKENS`](crate::store::USED_TOKENS) is unknown.
pub async fn refresh_store<R: RefreshStore>(a: R, b: R) {
    let family = fresh_id();
    let record = r#"{"sub":"alice","scope":"notes:read"}"#;
    a.start(&family, "t1", record, LONG).await.expect("start");
    let twice = b.start(&family, "t9", "{}", LONG).await;
    assert_eq!(
        twice.map_err(|e| e.kind()),
        Err(StoreErrorKind::Conflict),
        "a family started twice is a conflict"
    );
    assert_eq!(
        b.rotate(&family, "t1", "t2").await.expect("rotate"),
        Rotated::Current(record.to_owned()),
        "the current token rotates through the other handle and answers the family's record"
    );
    assert_eq!(
        a.rotate(&family, "t2", "t3").await.expect("rotate"),
        Rotated::Current(record.to_owned()),
        "the token that replaced it is current"
    );
    assert_eq!(
        b.rotate(&family, "forged", "t4").await.expect("rotate"),
        Rotated::Unknown,
        "a token the family never had is unknown"
    );
    assert_eq!(
        a.rotate(&family, "t3", "t4").await.expect("rotate"),
        Rotated::Current(record.to_owned()),
        "an unknown token revokes nothing"
    );
    assert_eq!(
        b.rotate(&family, "t1", "t5").await.expect("rotate"),
        Rotated::Reused,
        "a replaced token presented again is reuse"
    );
    assert_eq!(
        a.rotate(&family, "t4", "t6").await.expect("rotate"),
        Rotated::Unknown,
        "reuse revokes the family: its current token is dead too"
    );

    let race = fresh_id();
    a.start(&race, "r1", record, LONG).await.expect("start");
    let (one, two) = tokio::join!(a.rotate(&race, "r1", "r2a"), b.rotate(&race, "r1", "r2b"));
    let mut both = [one.expect("rotate"), two.expect("rotate")];
    both.sort_by_key(|r| matches!(r, Rotated::Reused));
    assert_eq!(
        both,
        [Rotated::Current(record.to_owned()), Rotated::Reused],
        "of two concurrent rotations of one token, one is current and the other reuse"
    );

    let revoked = fresh_id();
    a.start(&revoked, "v1", record, LONG).await.expect("start");
    b.revoke(&revoked).await.expect("revoke");
    assert_eq!(
        a.rotate(&revoked, "v1", "v2").await.expect("rotate"),
        Rotated::Unknown,
        "a revoked family knows no token"
    );
    b.revoke(&revoked)
        .await
        .expect("revoking a family that is gone is nothing");

    let old = fresh_id();
    a.start(&old, "o0", record, LONG).await.expect("start");
    for n in 0..=USED_TOKENS {
        let (from, to) = (format!("o{n}"), format!("o{}", n + 1));
        a.rotate(&old, &from, &to).await.expect("rotate");
    }
    assert_eq!(
        b.rotate(&old, "o0", "x").await.expect("rotate"),
        Rotated::Unknown,
        "a token older than the last USED_TOKENS of its family is unknown"
    );
    assert_eq!(
        b.rotate(&old, "o1", "x").await.expect("rotate"),
        Rotated::Reused,
        "one of the last USED_TOKENS is reuse"
    );

    let lapsing = fresh_id();
    a.start(&lapsing, "l1", record, SHORT).await.expect("start");
    tokio::time::sleep(PAST_SHORT).await;
    assert_eq!(
        b.rotate(&lapsing, "l1", "l2").await.expect("rotate"),
        Rotated::Unknown,
        "an expired family knows no token"
    );
}

/// The [`ConsentStore`](crate::store::ConsentStore) contract: a consent remembered through one
/// handle is remembered through the other; another key (other scopes, another resource) is not;
/// a forgotten consent and a lapsed one are not remembered.
pub async fn consent_store<S: ConsentStore>(a: S, b: S) {
    let key = fresh_id();
    assert!(
        !b.remembered(&key).await.expect("remembered"),
        "a consent never given is not remembered"
    );
    a.remember(&key, LONG).await.expect("remember");
    assert!(
        b.remembered(&key).await.expect("remembered"),
        "a consent is remembered through the other handle"
    );
    assert!(
        !b.remembered(&fresh_id()).await.expect("remembered"),
        "another key is not remembered"
    );
    b.forget(&key).await.expect("forget");
    assert!(
        !a.remembered(&key).await.expect("remembered"),
        "a forgotten consent is not remembered"
    );
    let lapsing = fresh_id();
    a.remember(&lapsing, SHORT).await.expect("remember");
    tokio::time::sleep(PAST_SHORT).await;
    assert!(
        !b.remembered(&lapsing).await.expect("remembered"),
        "a consent past its TTL is not remembered"
    );
}
