//! One request's way in: the `Host` and `Origin` checks, then the handling of its HTTP method.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::ConnectInfo;
use http::header::{self, HeaderValue};
use http::{Method, StatusCode};

use super::body::{Posted, RequestBody};
use super::config::host_part;
use super::headers::{Routing, value_str};
use super::response::{empty, plain};
use super::{BoxResponse, HttpState, arms, post, session};
use crate::kernel::boxed;
use crate::protocol::codes;
use crate::server::Server;
use crate::session::{Request, Transport};

/// Checks `Host` and `Origin` and routes by HTTP method. Not an `async fn`: the checks need no
/// waiting, and the future it returns holds only what the method's handling needs, not this
/// function's locals as well.
///
/// With `hand_back`, a browser request (one with an `Origin`, or a preflight) is returned
/// unchecked (`Err`), for the caller to send through the CORS layer.
// The request handed back as it came: boxing it would cost browser requests an allocation.
#[allow(clippy::result_large_err)]
pub(super) fn route<S: Server, B: RequestBody>(
    st: Arc<HttpState<S>>,
    peer: Option<SocketAddr>,
    req: http::Request<B>,
    hand_back: bool,
) -> Result<BoxResponse, http::Request<B>> {
    use futures_util::FutureExt as _;
    let ready = |resp| -> BoxResponse { Box::pin(std::future::ready(Ok(resp))) };
    let (parts, body) = req.into_parts();
    let Routing {
        host,
        origin,
        method: mcp_method,
    } = Routing::of(&parts.headers);
    let listens = arms::asks_to_listen(mcp_method);
    if hand_back && (origin.is_some() || parts.method == Method::OPTIONS) {
        return Err(http::Request::from_parts(parts, body));
    }
    let host = value_str(host).map(host_part);
    if let Some(h) = host {
        if !st.cfg.host_allowed(h) {
            return Ok(ready(plain(
                StatusCode::FORBIDDEN,
                codes::INVALID_REQUEST,
                "Forbidden: invalid Host header",
            )));
        }
    } else if st.cfg.allowed_hosts.is_some() && parts.version < http::Version::HTTP_2 {
        return Ok(ready(plain(
            StatusCode::FORBIDDEN,
            codes::INVALID_REQUEST,
            "Forbidden: missing Host header",
        )));
    }
    if let Some(origin) = value_str(origin)
        && !st.cfg.origin_allowed(origin, host)
    {
        return Ok(ready(plain(
            StatusCode::FORBIDDEN,
            codes::INVALID_REQUEST,
            "Forbidden: invalid Origin header",
        )));
    }
    if st.cfg.preview && parts.method == Method::GET && parts.uri.path().ends_with("/preview") {
        return Ok(ready(crate::apps::preview::page()));
    }
    let peer = peer.or_else(|| {
        parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0)
    });
    let request = Request {
        headers: parts.headers,
        peer,
        transport: Transport::Http,
    };
    Ok(match parts.method {
        // Each future made in its box (`boxed`): not copied into it.
        Method::POST if listens => boxed(move || arms::listen(st, request, body).map(Ok)),
        Method::POST => boxed(move || post::post(st, request, Posted::Unread(body)).map(Ok)),
        Method::GET => boxed(move || async move { Ok(session::get(&st, request).await) }),
        Method::DELETE => boxed(move || async move { Ok(session::delete(&st, request).await) }),
        Method::OPTIONS => ready(empty(StatusCode::NO_CONTENT)),
        _ => {
            let mut resp = plain(
                StatusCode::METHOD_NOT_ALLOWED,
                codes::INVALID_REQUEST,
                "Method not allowed",
            );
            resp.headers_mut().insert(
                header::ALLOW,
                HeaderValue::from_static("GET, POST, DELETE, OPTIONS"),
            );
            ready(resp)
        }
    })
}
