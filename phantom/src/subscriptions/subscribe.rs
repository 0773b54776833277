//! Legacy `resources/subscribe` and `resources/unsubscribe`: the session's subscriptions, kept in
//! the [`SubscriptionStore`](super::SubscriptionStore) and heard on its GET stream (or stdio).

use serde::Deserialize;
use serde_json::Map;

use super::Env;
use crate::error::Error;
use crate::kernel::{Body, Failure, target_member};
use crate::protocol::{ErrorObject, Params, Target, codes};
use crate::session::{Session, allowed, reply_key};

/// The params of `resources/(un)subscribe` as the room expects them, read only for the exact error
/// of params whose `uri` did not read as a string.
#[derive(Deserialize)]
#[allow(dead_code)]
struct UriParams {
    uri: String,
}

/// `resources/subscribe`, authorized with a one-element list. A URI that names no resource this
/// session may read, or that the callback refuses, is the not-found error.
pub(crate) async fn subscribe<E: Env>(
    env: &E,
    target: &Target<'_>,
    params: Option<Params<'_>>,
    session: &Session,
) -> Result<Body, Failure> {
    let (uri, resolved) = subscribed(env, target, params, session)?;
    if super::authorize_resources(env, vec![resolved], session)
        .await
        .is_empty()
    {
        return Err(Failure::from(Error::resource_not_found(uri)));
    }
    let stored = env.subscription_store().add(reply_key(session), uri).await;
    stored.map_err(|e| store_failure(&e))?;
    Ok(Body::Map(Map::new()))
}

/// `resources/unsubscribe` of a URI this session may read.
pub(crate) async fn unsubscribe<E: Env>(
    env: &E,
    target: &Target<'_>,
    params: Option<Params<'_>>,
    session: &Session,
) -> Result<Body, Failure> {
    let (uri, _) = subscribed(env, target, params, session)?;
    let removed = env
        .subscription_store()
        .remove(reply_key(session), uri)
        .await;
    removed.map_err(|e| store_failure(&e))?;
    Ok(Body::Map(Map::new()))
}

/// The URI a `resources/(un)subscribe` names, resolved for the session (`-32002` when it names
/// no resource the session may read).
fn subscribed<'t, E: Env>(
    env: &E,
    target: &'t Target<'_>,
    params: Option<Params<'_>>,
    session: &Session,
) -> Result<(&'t str, crate::resources::ResolvedResource), Failure> {
    let uri = target_member::<UriParams>(target.uri(), params, "uri")?;
    let resolved = env
        .resolve(uri)
        .filter(|r| allowed(&session.allowed_resource_templates, &r.template.name))
        .ok_or_else(|| Failure::from(Error::resource_not_found(uri)))?;
    Ok((uri, resolved))
}

fn store_failure(e: &crate::store::StoreError) -> Failure {
    Failure::from(ErrorObject::new(
        codes::INTERNAL_ERROR,
        format!("Internal error: {e}"),
    ))
}
