//! Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client whose
//! `client_id` is an `https://` URL is described by the JSON document at that URL, fetched by
//! the authorization server — a request to an address a stranger chose, so it is guarded
//! (docs/SECURITY.md, "SSRF").

mod address;
mod cache;
#[cfg(feature = "tls")]
mod fetch;
#[cfg(all(test, feature = "tls"))]
mod tests;

use std::future::Future;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use super::register::{self, AuthMethod, Registered};
use cache::Cache;

/// The longest client metadata document URL accepted, in bytes.
const MAX_URL: usize = 2048;

/// How much of a URL or a document an error quotes, in characters.
const EXCERPT: usize = 120;

/// Resolves a host name to its addresses: how [`MetadataDocuments`] finds where a document is,
/// before it vets every address found. The default asks the system's resolver (tokio's
/// `lookup_host`); tests and deployments with a resolver of their own inject one with
/// [`MetadataDocuments::resolver`].
///
/// ```
/// use std::net::IpAddr;
/// use phantom::authz::Resolve;
///
/// /// Every name is the one address given.
/// struct Fixed(IpAddr);
///
/// impl Resolve for Fixed {
///     async fn resolve(&self, _host: &str) -> std::io::Result<Vec<IpAddr>> {
///         Ok(vec![self.0])
///     }
/// }
/// ```
pub trait Resolve: Send + Sync + 'static {
    /// The addresses of `host` (a DNS name, never an address literal).
    fn resolve(&self, host: &str) -> impl Future<Output = std::io::Result<Vec<IpAddr>>> + Send;
}

/// [`Resolve`], object-safe.
trait DynResolve: Send + Sync {
    fn resolve_boxed<'a>(
        &'a self,
        host: &'a str,
    ) -> crate::kernel::BoxFuture<'a, std::io::Result<Vec<IpAddr>>>;
}

impl<T: Resolve> DynResolve for T {
    fn resolve_boxed<'a>(
        &'a self,
        host: &'a str,
    ) -> crate::kernel::BoxFuture<'a, std::io::Result<Vec<IpAddr>>> {
        Box::pin(self.resolve(host))
    }
}

/// The system's resolver, through tokio.
struct SystemResolver;

impl Resolve for SystemResolver {
    async fn resolve(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        Ok(tokio::net::lookup_host((host, 443))
            .await?
            .map(|at| at.ip())
            .collect())
    }
}

/// The limits of fetching client metadata documents, and of keeping them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocumentLimits {
    /// The largest document read, in bytes (default 5 KiB); reading stops past it.
    pub max_bytes: usize,
    /// The longest a fetch may take, from resolving the host to the document's last byte
    /// (default 5 s).
    pub timeout: Duration,
    /// The most documents kept in memory at once (default 1024).
    pub cache_entries: usize,
    /// The shortest a document is kept, unless its answer forbids keeping it (`no-store`,
    /// `no-cache`, `max-age=0`); also how long one is kept whose answer says nothing (default
    /// 60 s).
    pub min_ttl: Duration,
    /// The longest a document is kept, whatever its answer says (default 24 h).
    pub max_ttl: Duration,
}

impl Default for DocumentLimits {
    fn default() -> Self {
        Self {
            max_bytes: 5 * 1024,
            timeout: Duration::from_secs(5),
            cache_entries: 1024,
            min_ttl: Duration::from_secs(60),
            max_ttl: Duration::from_secs(24 * 3600),
        }
    }
}

/// Client ID Metadata Documents, fetched safely: given to
/// [`AuthorizationServer::metadata_documents`](super::AuthorizationServer::metadata_documents),
/// a `client_id` that is an `https://` URL names the client's metadata, read from that URL.
///
/// Each fetch is guarded (the URL is a stranger's choice):
///
/// 1. the URL is `https://` with a host and a path, without user information or a fragment;
/// 2. its host is resolved (through the [`Resolve`]r) and refused when **any** address found is
///    loopback, private, link-local (cloud metadata services answer at 169.254.169.254), unique
///    local, carrier-grade NAT, unspecified, multicast, broadcast or reserved — IPv4 forms
///    carried in IPv6 addresses included;
/// 3. the connection goes to an address that was vetted, never to a second lookup, so a name
///    that changes its answer in between cannot steer it; TLS verifies the certificate for the
///    host name (the platform's roots, and any added with `root_certificate`);
/// 4. the answer must be `200` (a redirect is not followed) with a JSON `Content-Type`, at most
///    [`DocumentLimits::max_bytes`], the whole fetch within [`DocumentLimits::timeout`];
/// 5. the document's `client_id` is the URL exactly, its `redirect_uris` are valid ones, and it
///    is a public client (`token_endpoint_auth_method` `none` or absent: a document anyone can
///    read holds no secret).
///
/// Documents are kept in memory, on each node, for as long as their `Cache-Control` (`max-age`,
/// `no-store`, `no-cache`) or `Expires` allow, within [`DocumentLimits::min_ttl`] and
/// [`DocumentLimits::max_ttl`], at most [`DocumentLimits::cache_entries`] of them.
///
/// Fetching needs the feature `tls`; without it every `https://` `client_id` is refused, naming
/// the feature, and the metadata does not claim support.
///
/// ```
/// use std::time::Duration;
/// use phantom::authz::{AuthorizationServer, DocumentLimits, Keyring, MetadataDocuments, SigningKey};
///
/// let documents = MetadataDocuments::new().limits(DocumentLimits {
///     timeout: Duration::from_secs(3),
///     ..DocumentLimits::default()
/// });
/// let server = AuthorizationServer::new("https://mcp.example.com", Keyring::new(SigningKey::generate()))
///     .metadata_documents(documents);
/// # drop(server);
/// ```
#[derive(Clone)]
pub struct MetadataDocuments {
    resolver: Arc<dyn DynResolve>,
    limits: DocumentLimits,
    #[cfg(feature = "tls")]
    trust: crate::kernel::Trust,
    /// Why a certificate given to [`root_certificate`](Self::root_certificate) was not taken.
    #[cfg(feature = "tls")]
    bad_root: Option<String>,
    cache: Arc<Mutex<Cache>>,
}

impl std::fmt::Debug for MetadataDocuments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetadataDocuments")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Default for MetadataDocuments {
    fn default() -> Self {
        Self::new()
    }
}

impl MetadataDocuments {
    /// Documents fetched within the default [`DocumentLimits`], hosts resolved by the system,
    /// certificates verified against the platform's roots.
    pub fn new() -> Self {
        Self {
            resolver: Arc::new(SystemResolver),
            limits: DocumentLimits::default(),
            #[cfg(feature = "tls")]
            trust: crate::kernel::Trust::default(),
            #[cfg(feature = "tls")]
            bad_root: None,
            cache: Arc::new(Mutex::new(Cache::default())),
        }
    }

    /// Resolves hosts with `resolver`; every address it answers is vetted all the same.
    #[must_use]
    pub fn resolver(mut self, resolver: impl Resolve) -> Self {
        self.resolver = Arc::new(resolver);
        self
    }

    /// The limits of a fetch and of the cache.
    #[must_use]
    pub fn limits(mut self, limits: DocumentLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Trusts the certificates of `pem` (one or more `CERTIFICATE` blocks) as roots too, beside
    /// the platform's. A PEM that does not read makes every fetch fail, saying why.
    #[cfg(feature = "tls")]
    #[must_use]
    pub fn root_certificate(mut self, pem: impl AsRef<[u8]>) -> Self {
        if let Err(e) = self.trust.add_pem(pem.as_ref()) {
            self.bad_root.get_or_insert(format!(
                "the certificate given to `MetadataDocuments::root_certificate` does not read: {e}"
            ));
        }
        self
    }

    /// The client `client_id` names, an `https://` URL: its document from the cache, or fetched
    /// and checked; why it cannot be used (to answer `invalid_client`).
    pub(crate) async fn client(&self, client_id: &str) -> Result<Registered, CimdError> {
        let refuse = |problem: String| CimdError::new(client_id, problem);
        let target = Target::parse(client_id).map_err(refuse)?;
        if let Some(kept) = self.cached(client_id) {
            return Ok(kept);
        }
        let fetched = tokio::time::timeout(self.limits.timeout, self.fetch(&target))
            .await
            .unwrap_or_else(|_| {
                Err(format!(
                    "the document was not read within {:?} (the time limit)",
                    self.limits.timeout
                ))
            })
            .map_err(refuse)?;
        let client = check(client_id, &fetched.body).map_err(refuse)?;
        let limits = &self.limits;
        if let Some(ttl) = cache::lifetime(
            &fetched.headers,
            SystemTime::now(),
            limits.min_ttl,
            limits.max_ttl,
        ) {
            let now = Instant::now();
            self.cache.lock().unwrap_or_else(|p| p.into_inner()).put(
                client_id,
                client.clone(),
                now + ttl,
                now,
                limits.cache_entries,
            );
        }
        Ok(client)
    }

    fn cached(&self, client_id: &str) -> Option<Registered> {
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(client_id, Instant::now())
    }

    /// The addresses of `target`'s host, every one of them vetted; why not.
    async fn vetted(&self, target: &Target) -> Result<Vec<IpAddr>, String> {
        let addresses = match target.literal {
            Some(ip) => vec![ip],
            None => self
                .resolver
                .resolve_boxed(&target.host)
                .await
                .map_err(|e| format!("`{}` does not resolve: {e}", target.host))?,
        };
        if addresses.is_empty() {
            return Err(format!("`{}` resolves to no address", target.host));
        }
        for ip in &addresses {
            if let Some((class, form)) = address::refused(*ip) {
                let form = form.map_or_else(String::new, |f| format!(" ({f})"));
                return Err(format!(
                    "`{}` resolves to {ip}, {class}{form}: metadata documents are fetched from \
                     public addresses only",
                    target.host
                ));
            }
        }
        Ok(addresses)
    }

    /// Without `tls` no document can be fetched.
    #[cfg(not(feature = "tls"))]
    async fn fetch(&self, target: &Target) -> Result<Fetched, String> {
        self.vetted(target).await?;
        Err(
            "fetching a client metadata document needs phantom's `tls` feature (`phantom-mcp` \
             with the features \"authz\" and \"tls\")"
                .into(),
        )
    }

    /// Whether `client_id`s that are URLs are served: with `tls`, documents can be fetched.
    pub(crate) fn supported() -> bool {
        cfg!(feature = "tls")
    }
}

/// An answer read: its headers and body.
struct Fetched {
    headers: http::HeaderMap,
    body: bytes::Bytes,
}

/// A `client_id` URL, taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Target {
    /// The host, without brackets for an IPv6 literal.
    host: String,
    /// The host when it is an address literal (vetted without resolving).
    literal: Option<IpAddr>,
    port: u16,
    /// The URL's authority as written, for `Host`.
    authority: String,
    /// Its path and query.
    path_and_query: String,
}

impl Target {
    /// A `client_id` that may be fetched: `https://`, a host, a path other than `/`, no user
    /// information, fragment or dot segment (the draft's §3); why not.
    fn parse(client_id: &str) -> Result<Self, String> {
        if client_id.len() > MAX_URL {
            return Err(format!("the URL is longer than {MAX_URL} bytes"));
        }
        if !client_id.starts_with("https://") {
            return Err("a client_id URL must be https:// (exactly, in lower case)".into());
        }
        if client_id.contains('#') {
            return Err("a client_id URL has no fragment".into());
        }
        let uri: http::Uri = client_id
            .parse()
            .map_err(|e| format!("the client_id is not a URL: {e}"))?;
        let Some(authority) = uri.authority() else {
            return Err("a client_id URL has a host".into());
        };
        if authority.as_str().contains('@') {
            return Err("a client_id URL has no user information".into());
        }
        let path = uri.path();
        if path.is_empty() || path == "/" {
            return Err("a client_id URL has a path (e.g. `/client.json`)".into());
        }
        if path
            .split('/')
            .any(|segment| segment == "." || segment == "..")
        {
            return Err("a client_id URL has no `.` or `..` path segment".into());
        }
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        if host.is_empty() {
            return Err("a client_id URL has a host".into());
        }
        Ok(Self {
            literal: host.parse().ok(),
            port: authority.port_u16().unwrap_or(443),
            authority: authority.as_str().to_owned(),
            path_and_query: uri
                .path_and_query()
                .map_or_else(|| path.to_owned(), |p| p.as_str().to_owned()),
            host,
        })
    }
}

/// The client a fetched document describes; why it cannot be used, naming the field.
fn check(client_id: &str, body: &[u8]) -> Result<Registered, String> {
    let document = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(document)) => document,
        Ok(_) => return Err("the document is not a JSON object".into()),
        Err(e) => {
            return Err(format!(
                "the document is not JSON ({e}); it starts {:?}",
                excerpt(&String::from_utf8_lossy(body))
            ));
        }
    };
    match document.get("client_id") {
        Some(Value::String(named)) if named == client_id => {}
        Some(Value::String(named)) => {
            return Err(format!(
                "the document's `client_id` is `{}`, not the URL it was fetched from",
                excerpt(named)
            ));
        }
        _ => return Err("the document has no `client_id` (a string: its own URL)".into()),
    }
    let redirect_uris = register::redirect_uris(&document)?;
    for field in ["client_secret", "client_secret_expires_at"] {
        if document.contains_key(field) {
            return Err(format!(
                "the document holds `{field}`: a document anyone can read carries no secret"
            ));
        }
    }
    match register::optional_text(&document, "token_endpoint_auth_method")?.as_deref() {
        None | Some("none") => {}
        Some(method @ ("client_secret_basic" | "client_secret_post" | "client_secret_jwt")) => {
            return Err(format!(
                "`token_endpoint_auth_method` is `{method}`, which needs a shared secret that a \
                 metadata document cannot hold: use `none` (a public client, with PKCE)"
            ));
        }
        Some(other) => {
            return Err(format!(
                "`token_endpoint_auth_method` `{}` is not supported: use `none`",
                excerpt(other)
            ));
        }
    }
    if let Some(problem) = register::types_problem(&document) {
        return Err(problem);
    }
    Ok(Registered {
        redirect_uris,
        auth_method: AuthMethod::None,
        secret_digest: None,
        client_name: register::optional_text(&document, "client_name")?,
        scope: register::optional_text(&document, "scope")?,
    })
}

/// At most [`EXCERPT`] characters of `text`.
fn excerpt(text: &str) -> String {
    let mut cut: String = text.chars().take(EXCERPT).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    cut
}

/// Why a `client_id` that is a URL cannot be used: the URL (shortened) and what was wrong — the
/// address class, the limit or the field — never more of the document than a short excerpt.
/// The authorization endpoint answers it as `invalid_client`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the client metadata document at `{client_id}`: {problem}")]
pub struct CimdError {
    client_id: String,
    problem: String,
}

impl CimdError {
    fn new(client_id: &str, problem: String) -> Self {
        Self {
            client_id: excerpt(client_id),
            problem,
        }
    }

    /// The `client_id` (shortened to a readable length).
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// What was wrong, without the URL.
    pub fn problem(&self) -> &str {
        &self.problem
    }
}

#[cfg(test)]
mod checks {
    use super::*;

    #[test]
    fn the_metadata_claims_documents_once_they_are_served() {
        use super::super::{AuthorizationServer, Keyring, SigningKey};
        let claimed = |server: AuthorizationServer| {
            let document: Value = serde_json::from_str(&server.metadata().to_json()).unwrap();
            document["client_id_metadata_document_supported"].clone()
        };
        let server = AuthorizationServer::new(
            "https://mcp.example.com",
            Keyring::new(SigningKey::generate()),
        );
        assert_eq!(claimed(server.clone()), false);
        let serving = server.metadata_documents(MetadataDocuments::new());
        assert_eq!(claimed(serving), cfg!(feature = "tls"));
    }

    #[cfg(not(feature = "tls"))]
    #[tokio::test]
    async fn without_tls_a_document_is_refused_naming_the_feature() {
        let documents = MetadataDocuments::new();
        let refused = documents
            .client("https://192.0.2.7/c.json")
            .await
            .unwrap_err();
        assert!(
            refused.problem().contains("needs phantom's `tls` feature"),
            "{refused}"
        );
        let refused = documents
            .client("https://127.0.0.1/c.json")
            .await
            .unwrap_err();
        assert!(
            refused.problem().contains("a loopback address"),
            "{refused}"
        );
    }

    #[test]
    fn only_https_urls_with_a_path_are_fetched() {
        let good = Target::parse("https://Client.Example:8443/apps/notes.json?v=2").unwrap();
        assert_eq!(
            (
                good.host.as_str(),
                good.port,
                good.path_and_query.as_str(),
                good.literal
            ),
            ("client.example", 8443, "/apps/notes.json?v=2", None)
        );
        let literal = Target::parse("https://[2606:4700::1111]/c.json").unwrap();
        assert_eq!(literal.literal, Some("2606:4700::1111".parse().unwrap()));
        for (url, says) in [
            ("http://client.example/c.json", "must be https://"),
            ("HTTPS://client.example/c.json", "must be https://"),
            ("client.example/c.json", "must be https://"),
            ("https://client.example", "has a path"),
            ("https://client.example/", "has a path"),
            (
                "https://user:pw@client.example/c.json",
                "no user information",
            ),
            ("https://client.example/c.json#x", "no fragment"),
            ("https://client.example/a/../c.json", "no `.` or `..`"),
            ("https://client.example/./c.json", "no `.` or `..`"),
            ("https:///c.json", "not a URL"),
        ] {
            let problem = Target::parse(url).expect_err(url);
            assert!(problem.contains(says), "{url}: {problem}");
        }
        let long = format!("https://client.example/{}", "a".repeat(MAX_URL));
        assert!(Target::parse(&long).unwrap_err().contains("longer than"));
    }

    #[test]
    fn documents_are_checked_field_by_field() {
        let id = "https://client.example/c.json";
        let good = serde_json::json!({
            "client_id": id,
            "client_name": "Notes",
            "redirect_uris": ["http://127.0.0.1/callback", "https://app.example/cb"],
            "grant_types": ["authorization_code"],
            "token_endpoint_auth_method": "none",
        });
        let client = check(id, good.to_string().as_bytes()).expect("a good document");
        assert_eq!(client.client_name.as_deref(), Some("Notes"));
        assert_eq!(client.redirect_uris.len(), 2);
        assert_eq!(client.auth_method, AuthMethod::None);
        let with = |field: &str, value: Value| {
            let mut document = good.clone();
            document[field] = value;
            document.to_string()
        };
        let without = |field: &str| {
            let mut document = good.clone();
            document.as_object_mut().unwrap().remove(field);
            document.to_string()
        };
        for (body, says) in [
            ("<html>".to_owned(), "not JSON"),
            ("[1]".to_owned(), "not a JSON object"),
            (without("client_id"), "has no `client_id`"),
            (
                with("client_id", "https://client.example/other.json".into()),
                "`client_id` is `https://client.example/other.json`",
            ),
            (
                with("client_id", "https://client.example/c.json/".into()),
                "not the URL",
            ),
            (without("redirect_uris"), "`redirect_uris` is required"),
            (
                with(
                    "redirect_uris",
                    serde_json::json!(["http://evil.example/cb"]),
                ),
                "not loopback",
            ),
            (
                with(
                    "redirect_uris",
                    serde_json::json!(["https://app.example/cb#f"]),
                ),
                "fragment",
            ),
            (
                with("token_endpoint_auth_method", "client_secret_basic".into()),
                "needs a shared secret",
            ),
            (
                with("token_endpoint_auth_method", "private_key_jwt".into()),
                "`private_key_jwt` is not supported",
            ),
            (with("client_secret", "s".into()), "holds `client_secret`"),
            (
                with("grant_types", serde_json::json!(["implicit"])),
                "`grant_types`",
            ),
            (
                with("client_name", 5.into()),
                "`client_name` is not a string",
            ),
        ] {
            let problem = check(id, body.as_bytes()).expect_err(&body);
            assert!(problem.contains(says), "{body}: {problem}");
        }
        let long = format!("<{}>", "x".repeat(10_000));
        let problem = check(id, long.as_bytes()).unwrap_err();
        assert!(problem.len() < 400, "only an excerpt is quoted: {problem}");
    }
}
