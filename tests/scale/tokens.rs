//! The OAuth token store on Redis: the `TokenStore` contract, a stopped Redis answered with an
//! error, and two clients sharing the store refreshing an expired token once.

use std::sync::Arc;

use phantom_redis::{Redis, RedisTokenStore};
use phantom_tests::redis::RedisServer;

use phantom::client::{AuthStep, ClientError, OAuth};

use crate::scripted::{REDIRECT, Script, connect, servers, two_clients_refresh_once};

/// A token store on `redis` under a prefix of this test's own.
async fn store(redis: &RedisServer) -> RedisTokenStore {
    let prefix = format!("tokens-{}:", uuid::Uuid::new_v4().simple());
    let redis = Redis::connect(&redis.url())
        .await
        .expect("connect")
        .with_prefix(prefix);
    RedisTokenStore::new(redis)
}

#[tokio::test]
async fn the_token_store_contract_holds_on_redis_and_a_stopped_redis_is_an_error() {
    let mut redis = RedisServer::start();
    let prefix = format!("tokens-{}:", uuid::Uuid::new_v4().simple());
    let a = Redis::connect(&redis.url()).await.expect("connect");
    let b = Redis::connect(&redis.url()).await.expect("connect again");
    phantom::testing::contract::token_store(
        RedisTokenStore::new(a.with_prefix(&prefix)),
        RedisTokenStore::new(b.with_prefix(&prefix)),
    )
    .await;
    let broken = store(&redis).await;
    redis.kill();
    phantom::testing::contract::token_store_fault(broken).await;
}

#[tokio::test]
async fn two_clients_sharing_a_redis_token_store_refresh_an_expired_token_once() {
    let redis = RedisServer::start();
    let (base, script) = servers(Script::default()).await;
    two_clients_refresh_once(&base, &script, Arc::new(store(&redis).await)).await;
}

#[tokio::test]
async fn a_client_whose_redis_token_store_is_down_fails_at_the_store_step_without_authorizing() {
    let mut redis = RedisServer::start();
    let store = store(&redis).await;
    redis.kill();
    let (base, script) = servers(Script::default()).await;
    let started = std::time::Instant::now();
    let outcome = connect(&base, OAuth::new(REDIRECT).token_store(store)).await;
    match outcome {
        Err(ClientError::Auth {
            step: AuthStep::Store,
            message,
        }) => assert!(message.contains("redis"), "{message}"),
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("connected with Redis down"),
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "answered within the connection's timeouts"
    );
    assert_eq!(script.lock().unwrap().authorizations, 0, "no authorization");
}
