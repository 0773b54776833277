//! The public session-store contract against Redis.

use phantom_redis::{Redis, RedisSessionStore};
use phantom_tests::redis::{RedisCluster, RedisServer};

/// A prefix of this test's own, so that runs sharing a server do not meet.
fn prefix() -> String {
    format!("contract-{}:", uuid::Uuid::new_v4().simple())
}

#[tokio::test]
async fn the_session_store_contract_holds_on_one_redis_server() {
    let redis = RedisServer::start();
    let prefix = prefix();
    let a = Redis::connect(&redis.url()).await.expect("connect");
    let b = Redis::connect(&redis.url()).await.expect("connect again");
    phantom::testing::contract::session_store(
        RedisSessionStore::new(a.with_prefix(&prefix)),
        RedisSessionStore::new(b.with_prefix(&prefix)),
    )
    .await;
}

#[tokio::test]
async fn the_session_store_contract_holds_on_a_three_master_redis_cluster() {
    let cluster = RedisCluster::start();
    let prefix = prefix();
    let a = Redis::cluster(cluster.urls())
        .await
        .expect("connect to the cluster");
    let b = Redis::cluster(cluster.urls()).await.expect("connect again");
    phantom::testing::contract::session_store(
        RedisSessionStore::new(a.with_prefix(&prefix)),
        RedisSessionStore::new(b.with_prefix(&prefix)),
    )
    .await;
}
