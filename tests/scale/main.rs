//! Scale-out on a real `redis-server`: the store contract against one server and a three-master
//! Redis Cluster, two HTTP nodes sharing legacy sessions through Redis, and two gateway nodes
//! sharing what crosses nodes (`cargo test -p phantom-tests --test scale`; needs `redis-server`
//! and `redis-cli`, which `scripts/test.sh` installs).

#[allow(dead_code, unreachable_pub)]
#[path = "../http/support.rs"]
mod support;

mod changes;
mod contract;
mod gateway;
mod middleware;
mod registry;
mod replies;
mod sessions;
mod tasks;

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
