//! The public session, event, task and reply contracts against Redis, on one server and on a
//! three-master Redis Cluster.

use std::time::Duration;

use phantom_redis::{Redis, RedisEventStore, RedisReplyBus, RedisSessionStore, RedisTaskStore};
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
    phantom::testing::contract::event_store(
        RedisEventStore::new(a.clone()),
        RedisEventStore::new(b.clone()),
    )
    .await;
    let lease = Duration::from_millis(300);
    phantom::testing::contract::task_store(
        RedisTaskStore::new(a.clone()).with_lease(lease),
        RedisTaskStore::new(b.clone()).with_lease(lease),
    )
    .await;
    phantom::testing::contract::reply_bus(
        RedisReplyBus::new(a).await.expect("bus a"),
        RedisReplyBus::new(b).await.expect("bus b"),
    )
    .await;
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
    phantom::testing::contract::event_store(
        RedisEventStore::new(a.clone()),
        RedisEventStore::new(b.clone()),
    )
    .await;
    let lease = Duration::from_millis(300);
    phantom::testing::contract::task_store(
        RedisTaskStore::new(a.clone()).with_lease(lease),
        RedisTaskStore::new(b.clone()).with_lease(lease),
    )
    .await;
    phantom::testing::contract::reply_bus(
        RedisReplyBus::new(a).await.expect("bus a"),
        RedisReplyBus::new(b).await.expect("bus b"),
    )
    .await;
}
