//! The interactive step of the authorization code grant: [`Authorize`], and [`FetchRedirect`],
//! the step without a user.

use oauth2::url::Url;

use super::fetch::{self, Fetch};
use crate::kernel::BoxFuture;

/// The interactive step of the authorization: takes the user (or a script) to the authorization
/// URL and returns the URL the authorization server redirected back to (the redirect URI with
/// `code` and `state`).
///
/// [`FetchRedirect`] fetches the URL and reads the redirect, for an authorization server that
/// answers without a user (tests, the conformance suite).
pub trait Authorize: Send + Sync + 'static {
    /// Runs the authorization at `url`; the redirect URL it ended at, or why it did not end
    /// (which [`ClientError::Auth`](crate::client::ClientError::Auth) names as the authorization step).
    fn authorize(&self, url: &str) -> impl Future<Output = Result<String, String>> + Send;
}

/// [`Authorize`], object-safe.
pub(in crate::client) trait DynAuthorize: Send + Sync {
    fn authorize_boxed<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, String>>;
}

impl<T: Authorize> DynAuthorize for T {
    fn authorize_boxed<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(self.authorize(url))
    }
}

/// [`Authorize`] without a user: GETs the authorization URL, follows no redirect, and returns
/// the `Location` of the answer (an error for any answer that is not a redirect).
#[derive(Debug, Clone, Copy, Default)]
pub struct FetchRedirect;

impl Authorize for FetchRedirect {
    /// On a connection of its own that trusts the platform's roots. As a client's step (the
    /// default, or given to [`OAuth::authorize`](super::OAuth::authorize)) it runs on the client's connection instead,
    /// which trusts what `Builder::root_certificate` (feature `tls`) added.
    async fn authorize(&self, url: &str) -> Result<String, String> {
        let fetch = Fetch::new(&crate::kernel::Trust::default()).map_err(|e| e.to_string())?;
        fetch_redirect(&fetch, url).await
    }
}

/// [`FetchRedirect`] on `fetch`.
pub(super) async fn fetch_redirect(fetch: &Fetch, url: &str) -> Result<String, String> {
    let request = http::Request::get(url)
        .body(Vec::new())
        .map_err(|e| format!("the authorization URL is not a URL: {e}"))?;
    let uri = request.uri().clone();
    let response = fetch.send(request).await.map_err(|e| e.to_string())?;
    let location = response
        .headers()
        .get(http::header::LOCATION)
        .and_then(|v| v.to_str().ok());
    match location {
        Some(location) if response.status().is_redirection() => Url::parse(&uri.to_string())
            .and_then(|base| base.join(location))
            .map(String::from)
            .map_err(|e| format!("the redirect's `Location` is not a URL: {e}")),
        _ => Err(format!(
            "{} answered HTTP {} and no redirect",
            fetch::without_query(&uri),
            response.status()
        )),
    }
}
