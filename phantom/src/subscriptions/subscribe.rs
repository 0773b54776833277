//! Legacy `resources/subscribe` and `resources/unsubscribe`: the session's subscriptions, kept in
//! the [`SubscriptionStore`](super::SubscriptionStore) and heard on its GET stream (or stdio).

use serde::Deserialize;
use serde_json::Map;

use super::Env;
use crate::error::Error;
use crate::kernel::{Body, Failure, bad_request, target_member};
use crate::protocol::{ErrorObject, Method, Params, Target, codes};
use crate::session::{Session, SessionSlot, allowed, reply_key};

/// The params of `resources/(un)subscribe` as the room expects them, read only for the exact error
/// of params whose `uri` did not read as a string.
#[derive(Deserialize)]
#[allow(dead_code)]
struct UriParams {
    uri: String,
}

/// `resources/subscribe` on the legacy session in `slot`, authorized with a one-element list. A
/// URI that names no resource this session may read, or that the callback refuses, is the
/// not-found error.
pub(crate) async fn subscribe<E: Env>(
    env: &E,
    target: &Target<'_>,
    params: Option<Params<'_>>,
    slot: &SessionSlot,
) -> Result<Body, Failure> {
    let session = session_of(slot, Method::ResourcesSubscribe)?;
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

/// `resources/unsubscribe` of a URI the legacy session in `slot` may read.
pub(crate) async fn unsubscribe<E: Env>(
    env: &E,
    target: &Target<'_>,
    params: Option<Params<'_>>,
    slot: &SessionSlot,
) -> Result<Body, Failure> {
    let session = session_of(slot, Method::ResourcesUnsubscribe)?;
    let (uri, _) = subscribed(env, target, params, session)?;
    let removed = env
        .subscription_store()
        .remove(reply_key(session), uri)
        .await;
    removed.map_err(|e| store_failure(&e))?;
    Ok(Body::Map(Map::new()))
}

/// The session a `resources/(un)subscribe` is made on: refused in stateless mode, where no session
/// outlives its request. The dispatcher filled the slot before routing.
fn session_of(slot: &SessionSlot, method: Method) -> Result<&Session, Failure> {
    if slot.stateless {
        return Err(bad_request(ErrorObject::new(
            codes::INVALID_REQUEST,
            format!(
                "Invalid request: `{method}` needs a session, and this server runs in stateless mode (no Mcp-Session-Id)"
            ),
        )));
    }
    slot.get().ok_or_else(Failure::internal)
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
    super::check_resource_scopes(&resolved, session)?;
    Ok((uri, resolved))
}

fn store_failure(e: &crate::store::StoreError) -> Failure {
    Failure::from(ErrorObject::new(
        codes::INTERNAL_ERROR,
        format!("Internal error: {e}"),
    ))
}
