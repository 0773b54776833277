//! Scale-out on a real `redis-server`: the store contract against one server and a three-master
//! Redis Cluster, two HTTP nodes sharing legacy sessions through Redis, and two gateway nodes
//! sharing what crosses nodes (`cargo test -p phantom-tests --test scale`; needs `redis-server`
//! and `redis-cli`, which `scripts/test.sh` installs).

#[allow(dead_code, unreachable_pub)]
#[path = "../http/support.rs"]
mod support;

#[allow(dead_code, unreachable_pub)]
#[path = "../client/scripted.rs"]
mod scripted;

mod changes;
mod contract;
mod gateway;
mod keyring;
mod middleware;
mod registry;
mod replies;
mod sessions;
mod tasks;
mod tokens;

/// The `requestState` key the nodes of a test share (nodes keyed differently refuse to start).
fn state_key() -> phantom::input::StateKey {
    phantom::input::StateKey::from_bytes([42; 32])
}

/// Every seam on `redis`, under `prefix` (a test's own).
async fn backend(
    redis: &phantom_tests::redis::RedisServer,
    prefix: &str,
) -> phantom::store::Backend {
    phantom_redis::Redis::connect(&redis.url())
        .await
        .expect("connect")
        .with_prefix(prefix)
        .backend()
        .await
        .expect("the backend")
}
