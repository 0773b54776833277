//! The public session- and event-store contracts against Redis.

use phantom_redis::{Redis, RedisEventStore, RedisSessionStore};
use phantom_tests::redis::{RedisCluster, RedisServer};

/// A prefix of this test's own, so that runs sharing a server do not meet.
fn prefix() -> String {
    format!("contract-{}:", uuid::Uuid::new_v4().simple())
}

#[tokio::test]
async fn the_session_and_event_store_contracts_hold_on_one_redis_server() {
    let redis = RedisServer::start();
    let prefix = prefix();
    let a = Redis::connect(&redis.url()).await.expect("connect");
    let b = Redis::connect(&redis.url()).await.expect("connect again");
    let (a, b) = (a.with_prefix(&prefix), b.with_prefix(&prefix));
    phantom::testing::contract::session_store(
        RedisSessionStore::new(a.clone()),
        RedisSessionStore::new(b.clone()),
    )
    .await;
    phantom::testing::contract::event_store(RedisEventStore::new(a), RedisEventStore::new(b)).await;
}

#[tokio::test]
async fn the_session_and_event_store_contracts_hold_on_a_three_master_redis_cluster() {
    let cluster = RedisCluster::start();
    let prefix = prefix();
    let a = Redis::cluster(cluster.urls())
        .await
        .expect("connect to the cluster");
    let b = Redis::cluster(cluster.urls()).await.expect("connect again");
    let (a, b) = (a.with_prefix(&prefix), b.with_prefix(&prefix));
    phantom::testing::contract::session_store(
        RedisSessionStore::new(a.clone()),
        RedisSessionStore::new(b.clone()),
    )
    .await;
    phantom::testing::contract::event_store(RedisEventStore::new(a), RedisEventStore::new(b)).await;
}
