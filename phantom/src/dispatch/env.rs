//! What each room may use, handed over by the dispatcher: one impl of each room's `Env` trait.
//! A room sees the server, its own table, the config values and the node state its trait names,
//! and nothing else of the dispatcher. With a registry store, the shared disabled entries are
//! loaded here before a node's first request (`resync` reloads them on a list change).

use std::future::Future;
use std::sync::{Arc, Weak};
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{Dispatcher, Inner};
use crate::error::Error;
use crate::extract::Context;
use crate::kernel::{Body, Callback, Cursor, Failure, Page};
use crate::protocol::{Capability, ErrorObject};
use crate::resources::{Authorized, ResolvedResource};
use crate::server::Server;
use crate::session::Session;
use crate::store::{SubscriptionStore, TaskStore};
use crate::subscriptions::Hub;
use crate::tasks::{Running, Task, TaskError};
use crate::{Notifier, completion, prompts, resources, skills, subscriptions, tasks, tools};

impl<S: Server> tools::Env for Dispatcher<S> {
    type Server = S;
    fn server(&self) -> &S {
        &self.inner.server
    }
    fn tools(&self) -> &tools::Table<S> {
        &self.inner.tables.tools
    }
    fn tool_timeout_ms(&self) -> Option<u64> {
        self.inner.router.info.tool_timeout_ms
    }
    fn runs_as_task(
        &self,
        name: &str,
        task: tools::TaskSupport,
        session: &Session,
    ) -> Result<bool, Failure> {
        tasks::runs_as_task(name, task, session)
    }
    fn start_task<'a>(
        &'a self,
        name: &'a str,
        arguments: Option<&'a RawValue>,
        cx: Context<'a>,
    ) -> impl Future<Output = Result<Body, Failure>> + Send + 'a {
        tasks::start_call(self, name, arguments, cx)
    }
}

impl<S: Server> prompts::Env for Dispatcher<S> {
    type Server = S;
    fn server(&self) -> &S {
        &self.inner.server
    }
    fn prompts(&self) -> &prompts::Table<S> {
        &self.inner.tables.prompts
    }
}

impl<S: Server> resources::Env for Dispatcher<S> {
    type Server = S;
    fn server(&self) -> &S {
        &self.inner.server
    }
    fn resources(&self) -> &resources::Table<S> {
        &self.inner.tables.resources
    }
}

impl<S: Server> completion::Env for Dispatcher<S> {
    type Server = S;
    type Prompt = prompts::Found<S>;
    type Template = resources::Named<S>;
    fn server(&self) -> &S {
        &self.inner.server
    }
    fn completes(&self) -> bool {
        self.inner.tables.prompts.completes() || self.inner.tables.resources.completes()
    }
    fn prompt(&self, name: &str, session: &Session) -> Result<prompts::Found<S>, Failure> {
        self.inner.tables.prompts.find(name, session)
    }
    fn template(&self, uri: &str, session: &Session) -> Option<resources::Named<S>> {
        self.inner.tables.resources.named(uri, session)
    }
}

impl<S: Server> skills::Env for Dispatcher<S> {
    type Server = S;
    fn server(&self) -> &S {
        &self.inner.server
    }
    fn skills(&self) -> &skills::Table<S> {
        &self.inner.tables.skills
    }
    fn overrides(&self, callback: Callback) -> bool {
        self.inner.router.overrides(callback)
    }
    fn list_skills<'a>(
        &'a self,
        cursor: Option<Cursor>,
        session: &'a Session,
    ) -> impl Future<Output = Result<Page<String>, Error>> + Send + 'a {
        self.inner.server.list_skills(cursor, session)
    }
}

impl<S: Server> tasks::Env for Dispatcher<S> {
    fn task_store(&self) -> &Arc<dyn TaskStore> {
        &self.inner.config.task_store
    }
    fn notifier(&self) -> &Notifier {
        &self.inner.config.notifier
    }
    fn running(&self) -> &Running {
        &self.inner.node.running
    }
    fn defines(&self, callback: Callback) -> bool {
        self.inner.router.overrides(callback)
    }
    fn get_task<'a>(
        &'a self,
        task_id: &'a str,
        session: &'a Session,
    ) -> impl Future<Output = Result<Task, TaskError>> + Send + 'a {
        self.inner.server.get_task(task_id, session)
    }
    fn update_task<'a>(
        &'a self,
        task: Task,
        responses: Map<String, Value>,
        session: &'a Session,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send + 'a {
        self.inner.server.update_task(task, responses, session)
    }
    fn cancel_task<'a>(
        &'a self,
        task: Task,
        session: &'a Session,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send + 'a {
        self.inner.server.cancel_task(task, session)
    }
    fn authorize_task_subscriptions<'a>(
        &'a self,
        task_ids: Vec<String>,
        session: &'a Session,
    ) -> impl Future<Output = Vec<String>> + Send + 'a {
        self.inner
            .server
            .authorize_task_subscriptions(task_ids, session)
    }
}

impl<S: Server> subscriptions::Env for Dispatcher<S> {
    type Weak = Weak<Inner<S>>;
    fn hub(&self) -> &Hub {
        &self.inner.node.hub
    }
    fn subscription_store(&self) -> &Arc<dyn SubscriptionStore> {
        &self.inner.config.subscriptions
    }
    fn resolve(&self, uri: &str) -> Option<ResolvedResource> {
        self.inner.tables.resources.resolve(uri)
    }
    fn offers(&self, capability: Capability) -> bool {
        Dispatcher::offers(self, capability)
    }
    fn watch(&self, uri: &str) {
        self.inner.tables.resources.watch(uri);
    }
    fn keep_alive(&self) -> Duration {
        self.inner.config.keep_alive
    }
    fn authorize_resource_subscriptions<'a>(
        &'a self,
        offered: Vec<ResolvedResource>,
        session: &'a Session,
    ) -> impl Future<Output = Authorized> + Send + 'a {
        self.inner
            .server
            .authorize_resource_subscriptions(offered, session)
    }
    fn cancel_in_flight(&self, session: &str, request_id: &str) -> bool {
        self.inner
            .node
            .inflight
            .cancel(Arc::from(session), request_id)
    }
    async fn resync(&self) {
        if let Err(e) = self.registry().sync().await {
            crate::telemetry::metrics::store_error("registry");
            tracing::warn!(error = %e, "could not reload the disabled entries from the registry store");
        }
    }
    fn downgrade(&self) -> Weak<Inner<S>> {
        Arc::downgrade(&self.inner)
    }
    fn upgrade(weak: &Weak<Inner<S>>) -> Option<Self> {
        weak.upgrade().map(|inner| Dispatcher { inner })
    }
}

impl<S: Server> Dispatcher<S> {
    /// Loads what other nodes disabled before this node's first request is served; a store that
    /// cannot be reached leaves this node's own view (logged once) and is tried again on the
    /// next request.
    pub(super) async fn load_registry(&self) {
        use std::sync::atomic::Ordering;
        let loaded = self
            .inner
            .registry_loaded
            .get_or_try_init(|| {
                let registry = self.registry();
                async move { registry.sync().await }
            })
            .await;
        match loaded {
            Ok(()) => {
                if self.inner.registry_warned.swap(false, Ordering::Relaxed) {
                    tracing::info!("registry store reachable again: disabled entries loaded");
                }
            }
            Err(e) => {
                crate::telemetry::metrics::store_error("registry");
                if !self.inner.registry_warned.swap(true, Ordering::Relaxed) {
                    tracing::warn!(error = %e, "could not load the disabled entries from the registry store; this node serves its own until it can");
                }
            }
        }
    }
}
