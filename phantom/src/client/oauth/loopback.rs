//! [`Loopback`]: the interactive step of a command-line tool or desktop app (RFC 8252): the
//! user's browser goes to the authorization URL, and the authorization server's redirect comes
//! back to a listener on `127.0.0.1`.

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Response, StatusCode, header};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use oauth2::url::Url;
use tokio::net::TcpListener;

use super::Authorize;

/// How long the listener waits for the redirect by default.
const WAIT: Duration = Duration::from_secs(300);

/// The path the redirect comes to.
const PATH: &str = "/callback";

/// What the browser shows once the redirect came.
const DONE: &str =
    "<!doctype html><title>Signed in</title><p>Signed in. You can close this window.</p>";

/// What the browser shows when the authorization server refused.
const REFUSED: &str = "<!doctype html><title>Not signed in</title><p>The sign-in was refused. You can close this window.</p>";

/// [`Authorize`] for command-line tools and desktop apps: shows the authorization URL (to
/// open in the user's browser) and receives the redirect on a listener of its own on
/// `127.0.0.1` (RFC 8252 §7.3), at [`redirect_uri`](Self::redirect_uri).
///
/// Only the redirect that carries the `state` of the authorization it shows ends it; any other
/// request to the listener is answered `404` or `400` and waited past. It waits five minutes
/// by default ([`wait`](Self::wait)); a [`Client`](crate::client::Client)'s request that needs
/// the sign-in waits for it within its own [timeout](crate::client::Builder::timeout), so give
/// the client one at least as long.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use phantom::client::{Client, Loopback, OAuth};
///
/// let step = Loopback::bind(0).await?;
/// let client = Client::http("https://mcp.example.com/mcp")
///     .timeout(std::time::Duration::from_secs(300))
///     .oauth(OAuth::new(step.redirect_uri()).authorize(step))
///     .connect()
///     .await?;
/// # drop(client); Ok(()) }
/// ```
pub struct Loopback {
    listener: tokio::sync::Mutex<TcpListener>,
    redirect_uri: String,
    show: Arc<dyn Fn(&str) + Send + Sync>,
    wait: Duration,
}

impl std::fmt::Debug for Loopback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loopback")
            .field("redirect_uri", &self.redirect_uri)
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

impl Loopback {
    /// Listens on `127.0.0.1:port` (`0`: a port the system chooses; an authorization server
    /// that matches loopback redirects exactly needs a fixed one, registered with the client).
    /// The URL shows on stderr until [`show`](Self::show) says otherwise.
    pub async fn bind(port: u16) -> std::io::Result<Self> {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener: tokio::sync::Mutex::new(listener),
            redirect_uri: format!("http://127.0.0.1:{port}{PATH}"),
            show: Arc::new(|url| eprintln!("open this URL in a browser to sign in:\n  {url}")),
            wait: WAIT,
        })
    }

    /// The redirect URI to give [`OAuth::new`](super::OAuth::new):
    /// `http://127.0.0.1:PORT/callback`.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// How the authorization URL reaches the user: printed, opened in their browser, or both.
    #[must_use]
    pub fn show(mut self, show: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.show = Arc::new(show);
        self
    }

    /// How long to wait for the redirect (default five minutes).
    #[must_use]
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }
}

impl Authorize for Loopback {
    async fn authorize(&self, url: &str) -> Result<String, String> {
        let state = Url::parse(url)
            .ok()
            .and_then(|url| {
                url.query_pairs()
                    .find(|(k, _)| k == "state")
                    .map(|(_, v)| v.into_owned())
            })
            .ok_or("the authorization URL has no `state`")?;
        // One authorization at a time on this listener.
        let listener = self.listener.lock().await;
        (self.show)(url);
        let (found, mut came) = tokio::sync::mpsc::channel::<String>(1);
        let wait = tokio::time::sleep(self.wait);
        tokio::pin!(wait);
        let mut connections = tokio::task::JoinSet::new();
        loop {
            tokio::select! {
                () = &mut wait => {
                    return Err(format!(
                        "no redirect came to {} within {} s",
                        self.redirect_uri,
                        self.wait.as_secs()
                    ));
                }
                Some(query) = came.recv() => {
                    return Ok(format!("{}?{query}", self.redirect_uri));
                }
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let found = found.clone();
                    let state = state.clone();
                    connections.spawn(async move {
                        let service = hyper::service::service_fn(move |request| {
                            let answer = answer(&request, &state, &found);
                            async move { Ok::<_, Infallible>(answer) }
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .keep_alive(false)
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
            }
        }
    }
}

/// The answer to one request to the listener; the redirect's query goes to `found`.
fn answer(
    request: &http::Request<Incoming>,
    state: &str,
    found: &tokio::sync::mpsc::Sender<String>,
) -> Response<Full<Bytes>> {
    let page = |status: StatusCode, body: &'static str| {
        let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
        *response.status_mut() = status;
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("text/html; charset=utf-8"),
        );
        headers.insert(
            header::CACHE_CONTROL,
            header::HeaderValue::from_static("no-store"),
        );
        headers.insert(
            header::REFERRER_POLICY,
            header::HeaderValue::from_static("no-referrer"),
        );
        response
    };
    if request.uri().path() != PATH {
        return page(StatusCode::NOT_FOUND, "<!doctype html><p>Not found.</p>");
    }
    let query = request.uri().query().unwrap_or_default();
    let ours = oauth2::url::form_urlencoded::parse(query.as_bytes())
        .any(|(k, v)| k == "state" && v == state);
    if !ours {
        return page(
            StatusCode::BAD_REQUEST,
            "<!doctype html><p>This is not the redirect of the sign-in under way.</p>",
        );
    }
    let refused = oauth2::url::form_urlencoded::parse(query.as_bytes()).any(|(k, _)| k == "error");
    let _ = found.try_send(query.to_owned());
    if refused {
        page(StatusCode::OK, REFUSED)
    } else {
        page(StatusCode::OK, DONE)
    }
}
