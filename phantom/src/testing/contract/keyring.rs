//! The [`KeyringStore`](crate::store::KeyringStore) contract.

use std::time::Duration;

use crate::store::{KeyringStore, Published};

/// The [`KeyringStore`](crate::store::KeyringStore) contract, on a store no one else uses (its
/// tags are not namespaced by run): an empty store accepts any tags; tags that share none of the
/// published ones are refused through the other handle, which is told the published ones; tags
/// that share one are accepted and published beside them; published tags lapse after their TTL,
/// and the store is then empty again.
pub async fn keyring_store<K: KeyringStore>(a: K, b: K) {
    let ttl = Duration::from_millis(400);
    let tags = |names: &[&str]| -> Vec<String> { names.iter().map(|n| (*n).to_owned()).collect() };
    assert_eq!(
        a.publish(&tags(&["k1"]), ttl).await.expect("publish"),
        Published::Accepted,
        "an empty store accepts any tags"
    );
    assert_eq!(
        b.publish(&tags(&["k2"]), ttl).await.expect("publish"),
        Published::Disjoint(tags(&["k1"])),
        "tags sharing none of the published ones are refused, and told the published ones"
    );
    assert_eq!(
        b.publish(&tags(&["k2", "k1"]), ttl).await.expect("publish"),
        Published::Accepted,
        "tags sharing one of the published ones are accepted (a rotation)"
    );
    assert_eq!(
        a.publish(&tags(&["k2"]), ttl).await.expect("publish"),
        Published::Accepted,
        "accepted tags are published beside the others"
    );
    tokio::time::sleep(ttl + Duration::from_millis(200)).await;
    assert_eq!(
        b.publish(&tags(&["k3"]), ttl).await.expect("publish"),
        Published::Accepted,
        "tags lapse after their TTL: the store is empty again"
    );
}
