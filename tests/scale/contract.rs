//! The public session, event, task, rate-limit, cache, reply, registry and authorization-server contracts against Redis, on one server
//! and on a three-master Redis Cluster.

use std::time::Duration;

use phantom_redis::{
    Redis, RedisCacheStore, RedisClientStore, RedisConsentStore, RedisEventStore, RedisGrantStore,
    RedisKeyringStore, RedisRateStore, RedisRefreshStore, RedisRegistryStore, RedisReplyBus,
    RedisSessionStore, RedisTaskStore,
};
use phantom_tests::redis::{RedisCluster, RedisServer};

/// Every contract on two connections to one Redis (a server or a cluster), under a prefix of
/// this run's own so that runs sharing a server do not meet.
async fn contracts(a: Redis, b: Redis) {
    let prefix = format!("contract-{}:", uuid::Uuid::new_v4().simple());
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
    phantom::testing::contract::registry_store(
        RedisRegistryStore::new(a.clone()),
        RedisRegistryStore::new(b.clone()),
    )
    .await;
    phantom::testing::contract::rate_store(
        RedisRateStore::new(a.clone()),
        RedisRateStore::new(b.clone()),
    )
    .await;
    phantom::testing::contract::cache_store(
        RedisCacheStore::new(a.clone()),
        RedisCacheStore::new(b.clone()),
    )
    .await;
    phantom::testing::contract::keyring_store(
        RedisKeyringStore::new(a.clone()),
        RedisKeyringStore::new(b.clone()),
    )
    .await;
    phantom::testing::contract::client_store(
        RedisClientStore::new(a.clone()),
        RedisClientStore::new(b.clone()),
    )
    .await;
    phantom::testing::contract::grant_store(
        RedisGrantStore::new(a.clone()),
        RedisGrantStore::new(b.clone()),
    )
    .await;
    phantom::testing::contract::refresh_store(
        RedisRefreshStore::new(a.clone()),
        RedisRefreshStore::new(b.clone()),
    )
    .await;
    phantom::testing::contract::consent_store(
        RedisConsentStore::new(a.clone()),
        RedisConsentStore::new(b.clone()),
    )
    .await;
    phantom::testing::contract::reply_bus(
        RedisReplyBus::new(a).await.expect("bus a"),
        RedisReplyBus::new(b).await.expect("bus b"),
    )
    .await;
}

#[tokio::test]
async fn the_store_contracts_hold_on_one_redis_server() {
    let redis = RedisServer::start();
    let a = Redis::connect(&redis.url()).await.expect("connect");
    let b = Redis::connect(&redis.url()).await.expect("connect again");
    contracts(a, b).await;
}

#[tokio::test]
async fn the_store_contracts_hold_on_a_three_master_redis_cluster() {
    let cluster = RedisCluster::start();
    let a = Redis::cluster(cluster.urls())
        .await
        .expect("connect to the cluster");
    let b = Redis::cluster(cluster.urls()).await.expect("connect again");
    contracts(a, b).await;
}
