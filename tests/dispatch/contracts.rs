//! The store contracts against the in-memory stores (Redis runs them in the `scale` target).

use std::sync::Arc;
use std::time::Duration;

use phantom::BoxFuture;
use phantom::store::{MemorySessionStore, SessionRecord, SessionStore, StoreError};

#[tokio::test]
async fn the_memory_session_store_keeps_the_contract() {
    let store = Arc::new(MemorySessionStore::new());
    phantom::testing::contract::session_store(Arc::clone(&store), Arc::clone(&store)).await;
    assert!(store.is_empty(), "the suite cleans up what it created");
}

/// A store that forgets to check revisions: the contract must catch it.
struct Careless(MemorySessionStore);

impl SessionStore for Careless {
    fn create<'a>(
        &'a self,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.0.create(record, ttl)
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        self.0.get(id, ttl)
    }

    fn touch<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<u64>, StoreError>> {
        self.0.touch(id, ttl)
    }

    fn update<'a>(
        &'a self,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<u64, StoreError>> {
        Box::pin(async move {
            // Last writer wins: read the current revision and write over it.
            let current = self
                .0
                .get(&record.id, ttl)
                .await?
                .ok_or_else(|| StoreError::not_found("gone"))?;
            let mut record = record.clone();
            record.revision = current.revision;
            self.0.update(&record, ttl).await
        })
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.0.delete(id)
    }
}

#[tokio::test]
#[should_panic(expected = "an update at a stale revision is a conflict")]
async fn the_contract_catches_a_store_whose_updates_are_not_compare_and_set() {
    let store = Arc::new(Careless(MemorySessionStore::new()));
    phantom::testing::contract::session_store(Arc::clone(&store), store).await;
}

#[tokio::test]
async fn the_memory_reply_bus_keeps_the_contract() {
    let bus = Arc::new(phantom::store::MemoryReplyBus::new());
    phantom::testing::contract::reply_bus(Arc::clone(&bus), bus).await;
}

#[tokio::test]
async fn the_memory_bus_keeps_the_contract() {
    let bus = Arc::new(phantom::store::MemoryBus::new());
    phantom::testing::contract::notification_bus(Arc::clone(&bus), bus).await;
}

#[tokio::test]
async fn the_memory_subscriptions_keep_the_contract() {
    let store = Arc::new(phantom::store::MemorySubscriptions::new());
    phantom::testing::contract::subscription_store(Arc::clone(&store), store).await;
}

/// A store of the four required methods only: `subscribed_each` is the trait's own.
struct Required(phantom::store::MemorySubscriptions);

impl phantom::store::SubscriptionStore for Required {
    fn add<'a>(&'a self, session: &'a str, uri: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.0.add(session, uri)
    }

    fn remove<'a>(
        &'a self,
        session: &'a str,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.0.remove(session, uri)
    }

    fn subscribed<'a>(
        &'a self,
        session: &'a str,
        uris: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        self.0.subscribed(session, uris)
    }

    fn forget<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.0.forget(session)
    }
}

#[tokio::test]
async fn a_store_without_its_own_subscribed_each_keeps_the_contract() {
    let store = Arc::new(Required(phantom::store::MemorySubscriptions::new()));
    phantom::testing::contract::subscription_store(Arc::clone(&store), store).await;
}

#[tokio::test]
async fn the_memory_event_store_keeps_the_contract() {
    let store = Arc::new(phantom::store::MemoryEventStore::new());
    phantom::testing::contract::event_store(Arc::clone(&store), store).await;
}

#[tokio::test]
async fn the_memory_task_store_keeps_the_contract() {
    let store = Arc::new(phantom::store::MemoryTaskStore::new());
    phantom::testing::contract::task_store(Arc::clone(&store), store).await;
}

#[tokio::test]
async fn the_memory_registry_store_keeps_the_contract() {
    let store = Arc::new(phantom::store::MemoryRegistryStore::new());
    phantom::testing::contract::registry_store(Arc::clone(&store), store).await;
}

#[tokio::test]
async fn the_memory_keyring_store_keeps_the_contract() {
    let store = Arc::new(phantom::store::MemoryKeyringStore::new());
    phantom::testing::contract::keyring_store(Arc::clone(&store), store).await;
}

#[tokio::test]
async fn the_memory_rate_store_keeps_the_contract() {
    let store = Arc::new(phantom::store::MemoryRateStore::new());
    phantom::testing::contract::rate_store(Arc::clone(&store), store).await;
}

#[tokio::test]
async fn the_memory_cache_store_keeps_the_contract() {
    let store = Arc::new(phantom::store::MemoryCacheStore::new());
    phantom::testing::contract::cache_store(Arc::clone(&store), store).await;
}

#[tokio::test]
async fn the_memory_client_store_keeps_the_contract() {
    let store = Arc::new(phantom::store::MemoryClientStore::new());
    phantom::testing::contract::client_store(Arc::clone(&store), store).await;
}

#[tokio::test]
async fn the_memory_grant_store_keeps_the_contract() {
    let store = Arc::new(phantom::store::MemoryGrantStore::new());
    phantom::testing::contract::grant_store(Arc::clone(&store), store).await;
}

#[tokio::test]
async fn the_memory_refresh_store_keeps_the_contract() {
    let store = Arc::new(phantom::store::MemoryRefreshStore::new());
    phantom::testing::contract::refresh_store(Arc::clone(&store), store).await;
}

#[tokio::test]
async fn the_memory_consent_store_keeps_the_contract() {
    let store = Arc::new(phantom::store::MemoryConsentStore::new());
    phantom::testing::contract::consent_store(Arc::clone(&store), store).await;
}
