//! Legacy `resources/subscribe` and `resources/unsubscribe`: the session's subscriptions, kept in
//! the [`SubscriptionStore`](super::SubscriptionStore) and heard on its GET stream (or stdio).

use serde::Deserialize;
use serde_json::Map;

use super::Env;
use crate::error::Error;
use crate::kernel::{Body, Failure, parse_params};
use crate::protocol::{ErrorObject, Params, codes};
use crate::session::{Session, allowed, reply_key};

#[derive(Deserialize)]
struct UriParams {
    uri: String,
}

/// `resources/subscribe`, authorized with a one-element list. A URI that names no resource this
/// session may read, or that the callback refuses, is the not-found error.
pub(crate) async fn subscribe<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    session: &Session,
) -> Result<Body, Failure> {
    let (uri, resolved) = subscribed(env, params, session)?;
    if super::authorize_resources(env, vec![resolved], session)
        .await
        .is_empty()
    {
        return Err(Failure::from(Error::resource_not_found(uri.as_str())));
    }
    let stored = env.subscription_store().add(reply_key(session), &uri).await;
    stored.map_err(|e| store_failure(&e))?;
    Ok(Body::Map(Map::new()))
}

/// `resources/unsubscribe` of a URI this session may read.
pub(crate) async fn unsubscribe<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    session: &Session,
) -> Result<Body, Failure> {
    let (uri, _) = subscribed(env, params, session)?;
    let removed = env
        .subscription_store()
        .remove(reply_key(session), &uri)
        .await;
    removed.map_err(|e| store_failure(&e))?;
    Ok(Body::Map(Map::new()))
}

/// The URI a `resources/(un)subscribe` names, resolved for the session (`-32002` when it names
/// no resource the session may read).
fn subscribed<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    session: &Session,
) -> Result<(String, crate::resources::ResolvedResource), Failure> {
    let p: UriParams = parse_params(params)?;
    let resolved = env
        .resolve(&p.uri)
        .filter(|r| allowed(&session.allowed_resource_templates, &r.template.name))
        .ok_or_else(|| Failure::from(Error::resource_not_found(p.uri.as_str())))?;
    Ok((p.uri, resolved))
}

fn store_failure(e: &crate::store::StoreError) -> Failure {
    Failure::from(ErrorObject::new(
        codes::INTERNAL_ERROR,
        format!("Internal error: {e}"),
    ))
}
