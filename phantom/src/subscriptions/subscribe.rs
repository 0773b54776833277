//! Legacy `resources/subscribe` and `resources/unsubscribe`: the session's subscriptions, kept in
//! the [`SubscriptionStore`](super::SubscriptionStore) and heard on its GET stream (or stdio).

use serde::Deserialize;
use serde_json::Map;
use serde_json::value::RawValue;

use crate::dispatch::{Dispatcher, reply_key};
use crate::error::Error;
use crate::kernel::{Body, Failure, parse_params};
use crate::protocol::{ErrorObject, Method, codes};
use crate::server::Server;
use crate::session::{Session, allowed};

#[derive(Deserialize)]
struct UriParams {
    uri: String,
}

impl<S: Server> Dispatcher<S> {
    /// `resources/subscribe` (authorized with a one-element list) or `resources/unsubscribe`. A
    /// URI that names no resource this session may read, or that the callback refuses, is the
    /// not-found error.
    pub(crate) async fn subscription(
        &self,
        method: Method,
        params: Option<&RawValue>,
        session: &Session,
    ) -> Result<Body, Failure> {
        let p: UriParams = parse_params(params)?;
        let not_found = || Failure::from(Error::resource_not_found(p.uri.as_str()));
        let resolved = self
            .inner
            .resolve(&p.uri)
            .filter(|r| allowed(&session.allowed_resource_templates, &r.template.name))
            .ok_or_else(not_found)?;
        let store = &self.inner.config.subscriptions;
        let key = reply_key(session);
        let stored = if method == Method::ResourcesSubscribe {
            if self
                .authorize_resources(vec![resolved], session)
                .await
                .is_empty()
            {
                return Err(not_found());
            }
            store.add(key, &p.uri).await
        } else {
            store.remove(key, &p.uri).await.map(drop)
        };
        stored.map_err(|e| {
            Failure::from(ErrorObject::new(
                codes::INTERNAL_ERROR,
                format!("Internal error: {e}"),
            ))
        })?;
        Ok(Body::Map(Map::new()))
    }
}
