//! Reading a POST body: counted on the stream against the size limit, under the read timeout, and
//! drained (up to a limit) when refused, so the client reads the answer.

use axum::response::Response;
use bytes::Bytes;
use futures_util::FutureExt as _;
use http::StatusCode;
use http::header::{self, HeaderValue};
use http_body_util::BodyExt as _;

use super::headers::{PostHeaders, value_str};
use super::response::plain;
use crate::protocol::codes;
use crate::session::Request;

/// A POST's body: still to be read (and checked), or read and checked already (a POST that said
/// it opens a listen, and did not).
pub(super) enum Posted<B> {
    Unread(B),
    Read(Bytes),
}

/// A request body phantom reads: axum's (the endpoint mounted as a tower service) or hyper's own
/// (a connection phantom accepted, read without boxing it into axum's).
pub(super) trait RequestBody:
    hyper::body::Body<Data = Bytes, Error: Send> + Unpin + Send + 'static
{
}

impl<B: hyper::body::Body<Data = Bytes, Error: Send> + Unpin + Send + 'static> RequestBody for B {}

/// Reads a request body within [`HttpConfig`](super::HttpConfig)'s limits: at most `body_limit`
/// bytes, counted on what arrives (a `Content-Length` is not trusted), all of it within
/// `body_read_timeout`. A body past the limit is read on and thrown away (up to `drain_limit`)
/// before the `413`, so that a client still writing it reads the answer instead of a reset.
pub(super) async fn read_body<B: RequestBody>(
    mut body: B,
    headers: &PostHeaders<'_>,
    cfg: &super::HttpConfig,
) -> Result<Bytes, Response> {
    let limit = cfg.body_limit;
    // The clock starts when the body is first waited for: a body that is all there (the usual
    // case) costs no timer at all.
    let (mut started, timeout) = (None, cfg.body_read_timeout);
    let mut deadline =
        move || *started.get_or_insert_with(|| tokio::time::Instant::now() + timeout);
    let declared = value_str(headers.content_length).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        // A client that waits for `100 Continue` has sent nothing yet: refuse before it does.
        let waits =
            value_str(headers.expect).is_some_and(|v| v.eq_ignore_ascii_case("100-continue"));
        let drained = !waits && drain(body, 0, deadline(), cfg.drain_limit).await;
        return Err(too_large(limit, drained));
    }
    // One frame (the usual case) is kept as it came, without a copy.
    let mut first: Option<Bytes> = None;
    let mut rest: Vec<u8> = Vec::new();
    loop {
        let next = if let Some(next) = body.frame().now_or_never() {
            next
        } else {
            match tokio::time::timeout_at(deadline(), body.frame()).await {
                Ok(next) => next,
                Err(_) => return Err(too_slow(cfg.body_read_timeout)),
            }
        };
        let frame = match next {
            None => break,
            Some(Err(_)) => {
                return Err(plain(
                    StatusCode::BAD_REQUEST,
                    codes::PARSE_ERROR,
                    "Parse error: could not read the body",
                ));
            }
            Some(Ok(frame)) => frame,
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let seen = first.as_ref().map_or(0, Bytes::len) + rest.len() + data.len();
        if seen > limit {
            let drained = drain(body, seen, deadline(), cfg.drain_limit).await;
            return Err(too_large(limit, drained));
        }
        match &first {
            None => first = Some(data),
            Some(head) => {
                if rest.is_empty() {
                    rest.reserve(seen);
                    rest.extend_from_slice(head);
                }
                rest.extend_from_slice(&data);
            }
        }
    }
    Ok(if rest.is_empty() {
        first.unwrap_or_default()
    } else {
        Bytes::from(rest)
    })
}

/// Reads the rest of a body and throws it away. `true` when it ended within `bound` bytes
/// (counting the `seen` ones) and before `deadline`, so the connection can serve another request.
async fn drain<B: RequestBody>(
    mut body: B,
    mut seen: usize,
    deadline: tokio::time::Instant,
    bound: usize,
) -> bool {
    loop {
        match tokio::time::timeout_at(deadline, body.frame()).await {
            Ok(None) => return true,
            Ok(Some(Ok(frame))) => {
                seen += frame.data_ref().map_or(0, Bytes::len);
                if seen > bound {
                    return false;
                }
            }
            Err(_) | Ok(Some(Err(_))) => return false,
        }
    }
}

/// `413`; `Connection: close` when the body was not read to its end.
fn too_large(limit: usize, drained: bool) -> Response {
    crate::telemetry::metrics::refusal("too_large");
    let mut resp = plain(
        StatusCode::PAYLOAD_TOO_LARGE,
        codes::INVALID_REQUEST,
        &format!("Payload too large: the body exceeds {limit} bytes (HttpConfig::body_limit)"),
    );
    if !drained {
        resp.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    resp
}

/// `408`: the body did not arrive in time; the connection is closed after the answer.
fn too_slow(timeout: std::time::Duration) -> Response {
    let mut resp = plain(
        StatusCode::REQUEST_TIMEOUT,
        codes::INVALID_REQUEST,
        &format!(
            "Request Timeout: the body did not arrive within {} ms (HttpConfig::body_read_timeout)",
            timeout.as_millis()
        ),
    );
    resp.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    resp
}

/// `Accept` and `Content-Type` checked, once the body is read (so that a refusal reaches a client
/// that writes its whole body). Not part of [`read_body`]'s future: what a POST's future holds
/// while the body arrives stays as small as it was.
// The refusal as it is sent: boxing it would cost the refused an allocation.
#[allow(clippy::result_large_err)]
pub(super) fn acceptable(request: &Request, headers: &PostHeaders<'_>) -> Result<(), Response> {
    if !headers.accepts_all(&request.headers, &["application/json", "text/event-stream"]) {
        return Err(plain(
            StatusCode::NOT_ACCEPTABLE,
            codes::INVALID_REQUEST,
            "Not Acceptable: the client must accept both application/json and text/event-stream",
        ));
    }
    let content_type = value_str(headers.content_type).unwrap_or_default();
    let json = "application/json";
    if !content_type
        .get(..json.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(json))
    {
        return Err(plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            codes::INVALID_REQUEST,
            "Unsupported Media Type: the body must be application/json",
        ));
    }
    Ok(())
}
