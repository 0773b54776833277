//! The [`TokenStore`](crate::client::TokenStore) contract (feature `oauth`).

use std::time::Duration;

use crate::client::{TokenStore, Tokens};

/// How long a faulty store may take to say so.
const FAULT_WITHIN: Duration = Duration::from_secs(10);

/// The [`TokenStore`](crate::client::TokenStore) contract, on resources of this run's own:
/// nothing is kept for an unknown resource; tokens saved through one handle load through the
/// other, every field (the client they were issued to included); a resource's tokens are its
/// own; a save replaces; a remove forgets one resource's tokens; the refresh lease is
/// taken by one holder at a time (of two concurrent takers, one), per resource, given back by
/// its holder only, and lapses after its TTL.
pub async fn token_store<S: TokenStore>(a: S, b: S) {
    let run = super::fresh_id();
    let (r1, r2) = (
        format!("http://{run}.example/mcp"),
        format!("http://{run}.example/other"),
    );
    assert_eq!(
        b.load(&r1).await.expect("load"),
        None,
        "nothing is kept for an unknown resource"
    );
    let first = Tokens {
        access_token: "access-1".to_owned(),
        refresh_token: Some("refresh-1".to_owned()),
        expires_at: Some(4_102_444_800),
        scope: Some("read write".to_owned()),
        client: Some(crate::client::IssuedTo {
            issuer: format!("http://{run}.example/issuer"),
            client_id: "client-1".to_owned(),
            client_secret: Some("secret-1".to_owned()),
            method: "client_secret_basic".to_owned(),
        }),
        unbound: true,
    };
    a.save(&r1, first.clone()).await.expect("save");
    assert_eq!(
        b.load(&r1).await.expect("load"),
        Some(first.clone()),
        "tokens saved through one handle load through the other, every field"
    );
    assert_eq!(
        b.load(&r2).await.expect("load"),
        None,
        "a resource's tokens are its own"
    );
    let other = Tokens::new("access-other");
    b.save(&r2, other.clone()).await.expect("save");
    assert_eq!(
        a.load(&r1).await.expect("load"),
        Some(first),
        "a save of another resource leaves this one"
    );
    assert_eq!(a.load(&r2).await.expect("load"), Some(other));
    let second = Tokens::new("access-2").with_refresh_token("refresh-2");
    b.save(&r1, second.clone()).await.expect("save");
    assert_eq!(
        a.load(&r1).await.expect("load"),
        Some(second),
        "a save replaces what was kept"
    );
    b.remove(&r1).await.expect("remove");
    assert_eq!(
        a.load(&r1).await.expect("load"),
        None,
        "a removed resource's tokens are gone"
    );
    assert!(
        a.load(&r2).await.expect("load").is_some(),
        "a remove leaves the other resources"
    );
    a.remove(&r1)
        .await
        .expect("removing what is not kept is not an error");

    let ttl = Duration::from_secs(30);
    assert!(
        a.lock(&r1, "holder-a", ttl).await.expect("lock"),
        "a free lease is taken"
    );
    assert!(
        !b.lock(&r1, "holder-b", ttl).await.expect("lock"),
        "a held lease is not taken by another holder"
    );
    assert!(
        b.lock(&r2, "holder-b", ttl).await.expect("lock"),
        "a resource's lease is its own"
    );
    b.unlock(&r1, "holder-b").await.expect("unlock");
    assert!(
        !b.lock(&r1, "holder-b", ttl).await.expect("lock"),
        "a lease is given back by its holder only"
    );
    a.unlock(&r1, "holder-a").await.expect("unlock");
    assert!(
        b.lock(&r1, "holder-b", ttl).await.expect("lock"),
        "a lease given back is free"
    );
    b.unlock(&r1, "holder-b").await.expect("unlock");
    b.unlock(&r2, "holder-b").await.expect("unlock");

    let race = format!("http://{run}.example/race");
    let (x, y) = tokio::join!(
        a.lock(&race, "holder-a", ttl),
        b.lock(&race, "holder-b", ttl)
    );
    assert!(
        x.expect("lock") ^ y.expect("lock"),
        "of two concurrent takers, exactly one takes the lease"
    );

    let short = Duration::from_millis(300);
    let lapsing = format!("http://{run}.example/lapsing");
    assert!(a.lock(&lapsing, "holder-a", short).await.expect("lock"));
    assert!(!b.lock(&lapsing, "holder-b", short).await.expect("lock"));
    tokio::time::sleep(short + Duration::from_millis(300)).await;
    assert!(
        b.lock(&lapsing, "holder-b", ttl).await.expect("lock"),
        "a lease lapses after its TTL"
    );
    a.unlock(&lapsing, "holder-a").await.expect("unlock");
    assert!(
        !a.lock(&lapsing, "holder-a", ttl).await.expect("lock"),
        "the lapsed holder's unlock leaves the new holder's lease"
    );
}

/// The fault half of the [`TokenStore`](crate::client::TokenStore) contract, on a store whose
/// backend cannot be reached or read (a stopped server, a file that cannot be): every operation
/// answers with an error, promptly, instead of nothing kept or a panic.
pub async fn token_store_fault<S: TokenStore>(broken: S) {
    let resource = format!("http://{}.example/mcp", super::fresh_id());
    let load = tokio::time::timeout(FAULT_WITHIN, broken.load(&resource)).await;
    assert!(
        answered("load", load).is_err(),
        "load on a faulty store is an error, not nothing kept"
    );
    let save = tokio::time::timeout(FAULT_WITHIN, broken.save(&resource, Tokens::new("t"))).await;
    assert!(
        answered("save", save).is_err(),
        "save on a faulty store is an error"
    );
    let remove = tokio::time::timeout(FAULT_WITHIN, broken.remove(&resource)).await;
    assert!(
        answered("remove", remove).is_err(),
        "remove on a faulty store is an error"
    );
    let lock = tokio::time::timeout(
        FAULT_WITHIN,
        broken.lock(&resource, "holder", Duration::from_secs(1)),
    )
    .await;
    assert!(
        answered("lock", lock).is_err(),
        "lock on a faulty store is an error"
    );
    let unlock = tokio::time::timeout(FAULT_WITHIN, broken.unlock(&resource, "holder")).await;
    assert!(
        answered("unlock", unlock).is_err(),
        "unlock on a faulty store is an error"
    );
}

/// What a store answered within [`FAULT_WITHIN`]; panics naming `what` if it hung.
fn answered<T>(
    what: &str,
    answer: Result<Result<T, crate::store::StoreError>, tokio::time::error::Elapsed>,
) -> Result<T, crate::store::StoreError> {
    answer.unwrap_or_else(|_| panic!("{what} on a faulty store hangs"))
}
