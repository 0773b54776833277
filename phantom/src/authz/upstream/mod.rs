//! The identity provider phantom signs users in through ([`Upstream`]), with the team's fixed
//! credentials: a generic OpenID Connect provider found by discovery, or a preset.
//!
//! A sign-in has two steps. [`Upstream::start`] makes phantom's own PKCE verifier (S256) and,
//! for OpenID Connect, a nonce, and the URL the browser is sent to. [`Upstream::finish`], at the
//! callback, exchanges the code at the token endpoint with the verifier and the client
//! credentials, then learns who signed in: from the ID token (its signature checked against the
//! issuer's JWKS, its `iss`, `aud`, `exp` and `nonce`), or from the provider's user API. Every
//! request is bounded in time and size ([`Fetch`](crate::kernel::Fetch)); no secret, code,
//! verifier or token is logged or put in an [`UpstreamError`].
//!
//! # Adding a preset
//!
//! A preset is a [`Preset`](presets::Preset) in `presets.rs`: its endpoints (an OpenID Connect
//! issuer to discover, or fixed OAuth 2 endpoints and the user API documents to read with the
//! access token), its default scopes, and the function that turns the claims read into an
//! [`Identity`] (which claim is the stable subject; which email is vouched for). Add a
//! constructor beside [`Upstream::google`] that names it, and a unit test of its mapping.

use std::fmt;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use bytes::Bytes;
use http::{Request, header};
use http_body_util::Full;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use crate::auth::{JwtVerifier, TokenVerifier as _};
use crate::kernel::{Answer, Fetch, Trust};
use presets::{ClientAuth, Endpoints, Preset};

mod presets;
#[cfg(test)]
mod tests;

/// The identity provider phantom signs users in through, with the team's fixed credentials
/// (the client registered with it once, by hand).
///
/// An OpenID Connect provider is discovered on first use (`/.well-known/openid-configuration`
/// of its issuer, which must name that issuer exactly; `https://`, or `http://` on a loopback
/// address) and what it said is kept, its JWKS followed as it rotates its keys; a discovery that
/// fails is tried again at the next sign-in. Clones share it.
///
/// Its `Debug` never shows the client secret.
#[derive(Clone)]
pub struct Upstream {
    preset: &'static Preset,
    /// The issuer of a generic OpenID Connect provider.
    issuer: Option<String>,
    client_id: String,
    client_secret: Arc<str>,
    scopes: Vec<String>,
    trust: Trust,
    /// How long the provider may take to answer one request (the fetch's own bound if `None`).
    #[cfg(test)]
    timeout: Option<std::time::Duration>,
    discovered: Arc<tokio::sync::OnceCell<Arc<Known>>>,
}

/// The endpoints of a provider, once known.
struct Known {
    fetch: Fetch,
    authorization: String,
    token: String,
    auth: ClientAuth,
    /// OpenID Connect: the issuer and the verifier of its ID tokens; the userinfo endpoint.
    oidc: Option<Oidc>,
    /// OAuth 2 with a user API: its documents.
    user_api: &'static [(&'static str, &'static str)],
}

struct Oidc {
    issuer: String,
    verifier: JwtVerifier,
    userinfo: Option<String>,
}

impl fmt::Debug for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upstream")
            .field("preset", &self.preset.name)
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl Upstream {
    /// An OpenID Connect provider found by discovery (`/.well-known/openid-configuration` of
    /// `issuer`), discovered on first use and cached; scopes `openid email profile`.
    pub fn oidc(
        issuer: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        let mut upstream = Self::preset(&presets::OIDC, client_id.into(), client_secret.into());
        upstream.issuer = Some(issuer.into());
        upstream
    }

    /// Google (OpenID Connect, issuer `https://accounts.google.com`; scopes `openid email
    /// profile`): the subject is Google's `sub`, the email only when `email_verified`.
    pub fn google(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self::preset(&presets::GOOGLE, client_id.into(), client_secret.into())
    }

    /// GitHub: OAuth 2 and its user API (`https://api.github.com/user`, `/user/emails`), not
    /// OpenID Connect; scopes `read:user user:email`. The subject is the account's numeric id
    /// (a login can be renamed), the email the primary verified address.
    pub fn github(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self::preset(&presets::GITHUB, client_id.into(), client_secret.into())
    }

    fn preset(preset: &'static Preset, client_id: String, client_secret: String) -> Self {
        Self {
            preset,
            issuer: None,
            client_id,
            client_secret: client_secret.into(),
            scopes: preset.scopes.iter().map(|&s| s.to_owned()).collect(),
            trust: Trust::default(),
            #[cfg(test)]
            timeout: None,
            discovered: Arc::default(),
        }
    }

    /// The scopes asked of the provider, in place of the preset's.
    #[must_use]
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Trusts the certificates of `pem` (one or more `CERTIFICATE` blocks) as roots too, for a
    /// provider behind a private CA.
    ///
    /// # Errors
    ///
    /// Why the PEM does not read.
    #[cfg(feature = "tls")]
    pub fn root_certificate(mut self, pem: &[u8]) -> Result<Self, String> {
        self.trust.add_pem(pem)?;
        self.discovered = Arc::default();
        Ok(self)
    }

    /// Starts a sign-in: phantom's own PKCE (S256) verifier and, for OpenID Connect, a nonce;
    /// the URL to send the browser to, carrying `state` and `redirect_uri`.
    #[allow(dead_code, reason = "called by the authorization endpoints")]
    pub(crate) async fn start(
        &self,
        redirect_uri: &str,
        state: &str,
    ) -> Result<Started, UpstreamError> {
        let endpoints = self.endpoints().await?;
        let verifier = crate::kernel::random_id::<32>();
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        let nonce = endpoints
            .oidc
            .as_ref()
            .map(|_| crate::kernel::random_id::<16>());
        let scope = self.scopes.join(" ");
        let mut query = vec![
            ("response_type", "code"),
            ("client_id", &self.client_id),
            ("redirect_uri", redirect_uri),
            ("scope", &scope),
            ("state", state),
            ("code_challenge", &challenge),
            ("code_challenge_method", "S256"),
        ];
        if let Some(nonce) = &nonce {
            query.push(("nonce", nonce));
        }
        let separator = if endpoints.authorization.contains('?') {
            '&'
        } else {
            '?'
        };
        let url = format!("{}{separator}{}", endpoints.authorization, encoded(&query));
        Ok(Started {
            url,
            verifier,
            nonce,
        })
    }

    /// Finishes a sign-in at the callback: exchanges `code` (with the verifier and the fixed
    /// credentials), checks the ID token (signature by the issuer's JWKS, `iss`, `aud` = the
    /// client id, `exp`, `nonce`) or reads the user API, and returns who signed in.
    #[allow(dead_code, reason = "called by the authorization endpoints")]
    pub(crate) async fn finish(
        &self,
        redirect_uri: &str,
        code: &str,
        started: &Started,
    ) -> Result<Identity, UpstreamError> {
        let endpoints = self.endpoints().await?;
        let tokens = self
            .exchange(&endpoints, redirect_uri, code, started)
            .await?;
        let access_token = tokens.get("access_token").and_then(Value::as_str);
        let (step, claims) = match &endpoints.oidc {
            Some(oidc) => {
                let mut claims = self.id_token(oidc, &tokens, started).await?;
                if let (None, Some(userinfo), Some(token)) =
                    (claims.get("email"), &oidc.userinfo, access_token)
                {
                    userinfo_claims(&endpoints.fetch, userinfo, token, &mut claims).await;
                }
                (Step::IdToken, claims)
            }
            None => {
                let token = access_token.ok_or_else(|| {
                    UpstreamError::refused(
                        Step::Token,
                        &endpoints.token,
                        "the answer has no `access_token`",
                    )
                })?;
                let mut documents = Map::new();
                for &(name, url) in endpoints.user_api {
                    let document = user_api(&endpoints.fetch, url, token).await?;
                    documents.insert(name.to_owned(), document);
                }
                (Step::UserApi, documents)
            }
        };
        let url = match step {
            Step::UserApi => endpoints.user_api.first().map_or("", |(_, url)| url),
            _ => &endpoints.token,
        };
        (self.preset.identity)(claims).map_err(|problem| {
            UpstreamError::refused(step, url, format!("who signed in is unknown: {problem}"))
        })
    }

    /// The provider's endpoints: the preset's, or discovered (once, shared by the clones).
    async fn endpoints(&self) -> Result<Arc<Known>, UpstreamError> {
        self.discovered
            .get_or_try_init(|| async { self.discover().await.map(Arc::new) })
            .await
            .map(Arc::clone)
    }

    async fn discover(&self) -> Result<Known, UpstreamError> {
        let fetch = Fetch::new(&self.trust)
            .map_err(|problem| UpstreamError::refused(Step::Discovery, "", problem))?;
        #[cfg(test)]
        let fetch = match self.timeout {
            Some(timeout) => fetch.timeout(timeout),
            None => fetch,
        };
        match &self.preset.endpoints {
            Endpoints::Fixed {
                authorization,
                token,
                auth,
                user_api,
            } => Ok(Known {
                fetch,
                authorization: (*authorization).to_owned(),
                token: (*token).to_owned(),
                auth: *auth,
                oidc: None,
                user_api,
            }),
            Endpoints::Discovery { issuer } => {
                let issuer = issuer.or(self.issuer.as_deref()).unwrap_or_default();
                self.discover_oidc(fetch, issuer).await
            }
        }
    }

    /// The OpenID Connect discovery document of `issuer` (OpenID Connect Discovery §4), and
    /// the verifier of its ID tokens.
    async fn discover_oidc(&self, fetch: Fetch, issuer: &str) -> Result<Known, UpstreamError> {
        let url = format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        );
        let refuse = |problem: String| UpstreamError::refused(Step::Discovery, &url, problem);
        secure(issuer).map_err(|problem| refuse(format!("the issuer `{issuer}` {problem}")))?;
        let document = fetch
            .json(&url)
            .await
            .map_err(|problem| UpstreamError::unreachable(Step::Discovery, &url, problem))?
            .ok_or_else(|| refuse("no OpenID configuration there (HTTP 4xx)".into()))?;
        if document["issuer"].as_str() != Some(issuer) {
            return Err(refuse(format!(
                "the configuration names the issuer {}, not `{issuer}`",
                document["issuer"]
            )));
        }
        let endpoint = |name: &str| -> Result<String, UpstreamError> {
            let value = document[name]
                .as_str()
                .ok_or_else(|| refuse(format!("the configuration has no `{name}`")))?;
            secure(value).map_err(|problem| refuse(format!("its `{name}` {problem}")))?;
            Ok(value.to_owned())
        };
        let authorization = endpoint("authorization_endpoint")?;
        let token = endpoint("token_endpoint")?;
        let jwks_uri = endpoint("jwks_uri")?;
        let userinfo = match document.get("userinfo_endpoint") {
            Some(Value::String(_)) => Some(endpoint("userinfo_endpoint")?),
            _ => None,
        };
        let listed = |name: &str, value: &str| match &document[name] {
            Value::Array(list) => Some(list.iter().any(|v| v == value)),
            _ => None,
        };
        let auth = match (
            listed(
                "token_endpoint_auth_methods_supported",
                "client_secret_basic",
            ),
            listed(
                "token_endpoint_auth_methods_supported",
                "client_secret_post",
            ),
        ) {
            // Absent, the default is `client_secret_basic` (OpenID Connect Discovery §3).
            (None | Some(true), _) => ClientAuth::Basic,
            (Some(false), Some(true)) => ClientAuth::Post,
            _ => {
                return Err(refuse(
                    "its token endpoint takes neither `client_secret_basic` nor \
                     `client_secret_post`"
                        .into(),
                ));
            }
        };
        if listed("code_challenge_methods_supported", "S256") == Some(false) {
            return Err(refuse(
                "it does not take PKCE's `S256` (`code_challenge_methods_supported`)".into(),
            ));
        }
        let verifier = JwtVerifier::following(
            fetch.clone(),
            &jwks_uri,
            issuer.to_owned(),
            self.client_id.clone(),
        )
        .await
        .map_err(|problem| UpstreamError::refused(Step::Discovery, &jwks_uri, problem))?;
        tracing::debug!(issuer, %authorization, %token, %jwks_uri, "identity provider discovered");
        Ok(Known {
            fetch,
            authorization,
            token,
            auth,
            oidc: Some(Oidc {
                issuer: issuer.to_owned(),
                verifier,
                userinfo,
            }),
            user_api: &[],
        })
    }

    /// The token endpoint's answer to the code.
    async fn exchange(
        &self,
        endpoints: &Known,
        redirect_uri: &str,
        code: &str,
        started: &Started,
    ) -> Result<Map<String, Value>, UpstreamError> {
        let url = &endpoints.token;
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", &started.verifier),
        ];
        let mut request = Request::post(url.as_str())
            .header(header::ACCEPT, "application/json")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::USER_AGENT, USER_AGENT);
        match endpoints.auth {
            ClientAuth::Basic => {
                // RFC 6749 §2.3.1: each form-encoded, then joined by `:`.
                let pair = format!(
                    "{}:{}",
                    encoded_value(&self.client_id),
                    encoded_value(&self.client_secret)
                );
                request = request.header(
                    header::AUTHORIZATION,
                    format!("Basic {}", STANDARD.encode(pair)),
                );
            }
            ClientAuth::Post => {
                form.push(("client_id", &self.client_id));
                form.push(("client_secret", &self.client_secret));
            }
        }
        let request = request
            .body(Full::new(Bytes::from(encoded(&form))))
            .map_err(|e| UpstreamError::refused(Step::Token, url, format!("not a URL: {e}")))?;
        let answer = send(&endpoints.fetch, request, Step::Token, url).await?;
        let refuse = |problem: String| UpstreamError::refused(Step::Token, url, problem);
        let tokens = answer
            .object()
            .map_err(|problem| refuse(format!("HTTP {}: {problem}", answer.status.as_u16())))?;
        // GitHub answers an error with a 200.
        if let Some(error) = tokens.get("error").and_then(Value::as_str) {
            let description = tokens
                .get("error_description")
                .and_then(Value::as_str)
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            return Err(refuse(format!(
                "HTTP {}: `{error}`{description}",
                answer.status.as_u16()
            )));
        }
        if !answer.status.is_success() {
            return Err(refuse(format!("answered HTTP {}", answer.status.as_u16())));
        }
        Ok(tokens)
    }

    /// The claims of the ID token in `tokens`, checked.
    async fn id_token(
        &self,
        oidc: &Oidc,
        tokens: &Map<String, Value>,
        started: &Started,
    ) -> Result<Map<String, Value>, UpstreamError> {
        let refuse = |problem: String| UpstreamError::refused(Step::IdToken, &oidc.issuer, problem);
        let id_token = tokens
            .get("id_token")
            .and_then(Value::as_str)
            .ok_or_else(|| refuse("the token endpoint's answer has no `id_token`".into()))?;
        let claims = oidc
            .verifier
            .verify(id_token)
            .await
            .map_err(|e| refuse(e.to_string().replacen("the token", "the ID token", 1)))?
            .claims;
        // With several audiences, the authorized party must be this client (OpenID Connect
        // Core §3.1.3.7).
        if let Some(azp) = claims.get("azp")
            && azp.as_str() != Some(&self.client_id)
        {
            return Err(refuse(
                "the ID token was issued to another party (`azp`)".into(),
            ));
        }
        if claims.get("nonce").and_then(Value::as_str) != started.nonce.as_deref() {
            return Err(refuse(
                "the ID token's `nonce` is not the one this sign-in sent".into(),
            ));
        }
        Ok(claims)
    }
}

/// The `User-Agent` of phantom's requests to a provider (GitHub's API refuses requests without
/// one).
const USER_AGENT: &str = concat!("phantom/", env!("CARGO_PKG_VERSION"));

/// A document of a user API, read with the access token.
async fn user_api(fetch: &Fetch, url: &str, token: &str) -> Result<Value, UpstreamError> {
    let request = Request::get(url)
        .header(header::ACCEPT, "application/json")
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .header(header::USER_AGENT, USER_AGENT)
        .body(Full::default())
        .map_err(|e| UpstreamError::refused(Step::UserApi, url, format!("not a URL: {e}")))?;
    let answer = send(fetch, request, Step::UserApi, url).await?;
    if !answer.status.is_success() {
        return Err(UpstreamError::refused(
            Step::UserApi,
            url,
            format!("answered HTTP {}", answer.status.as_u16()),
        ));
    }
    serde_json::from_slice(&answer.body).map_err(|e| {
        UpstreamError::refused(Step::UserApi, url, format!("the answer is not JSON: {e}"))
    })
}

/// The userinfo claims the ID token lacks, added to `claims` when the endpoint answers for the
/// same subject; nothing when it does not (the ID token is enough).
async fn userinfo_claims(fetch: &Fetch, url: &str, token: &str, claims: &mut Map<String, Value>) {
    let read = match user_api(fetch, url, token).await {
        Ok(Value::Object(read)) => read,
        Ok(_) => return,
        Err(error) => {
            tracing::debug!(%error, "the userinfo endpoint did not answer; the ID token is enough");
            return;
        }
    };
    if read.get("sub") != claims.get("sub") {
        tracing::debug!(url, "the userinfo endpoint answered for another subject");
        return;
    }
    for (name, value) in read {
        claims.entry(name).or_insert(value);
    }
}

/// `request`'s answer, the provider unreachable when there is none or it is a 5xx.
async fn send(
    fetch: &Fetch,
    request: Request<Full<Bytes>>,
    step: Step,
    url: &str,
) -> Result<Answer, UpstreamError> {
    let answer = fetch
        .send(request)
        .await
        .map_err(|problem| UpstreamError::unreachable(step, url, problem))?;
    if answer.status.is_server_error() {
        return Err(UpstreamError::unreachable(
            step,
            url,
            format!("answered HTTP {}", answer.status.as_u16()),
        ));
    }
    Ok(answer)
}

/// Whether `url` may be an issuer or endpoint: `https://`, or `http://` on a loopback address;
/// why not.
fn secure(url: &str) -> Result<(), &'static str> {
    let uri: http::Uri = url.parse().map_err(|_| "is not a URL")?;
    let (Some(scheme), Some(host)) = (uri.scheme_str(), uri.host()) else {
        return Err("is not an absolute URL");
    };
    match scheme {
        "https" => Ok(()),
        "http" if host == "localhost" || loopback(host) => Ok(()),
        "http" => Err("is http:// on an address that is not loopback (https:// is needed)"),
        _ => Err("is not an https:// URL"),
    }
}

fn loopback(host: &str) -> bool {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}

/// What is left as is in a query or form value: RFC 3986's unreserved characters.
const VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn encoded_value(value: &str) -> String {
    utf8_percent_encode(value, VALUE).to_string()
}

/// `name=value` pairs joined by `&`, each encoded.
fn encoded(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(name, value)| format!("{name}={}", encoded_value(value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// A sign-in under way: the URL the browser is sent to and what finishing it needs (kept with
/// the pending authorization, never shown).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Started {
    pub(crate) url: String,
    pub(crate) verifier: String,
    pub(crate) nonce: Option<String>,
}

/// Who signed in upstream: a stable subject (scoped to the provider, e.g. GitHub's numeric id)
/// and the provider's claims.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Identity {
    subject: String,
    claims: Map<String, Value>,
}

impl Identity {
    /// An identity of `subject` with `claims`: for an application's tests.
    pub fn new(subject: impl Into<String>, claims: Map<String, Value>) -> Self {
        Self {
            subject: subject.into(),
            claims,
        }
    }

    /// The provider's stable id of the user.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The user's email address, when the provider vouches for it.
    pub fn email(&self) -> Option<&str> {
        self.claims.get("email").and_then(Value::as_str)
    }

    /// The user's name, when the provider gives one.
    pub fn name(&self) -> Option<&str> {
        self.claims.get("name").and_then(Value::as_str)
    }

    /// One claim of the provider, by name.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims.get(name)
    }

    /// Every claim of the provider: the ID token's (and the userinfo endpoint's it lacks), or
    /// the user API's.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }
}

/// A step of a sign-in at the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Discovery,
    Token,
    IdToken,
    UserApi,
}

impl Step {
    fn name(self) -> &'static str {
        match self {
            Self::Discovery => "discovery",
            Self::Token => "token",
            Self::IdToken => "id token",
            Self::UserApi => "user API",
        }
    }
}

/// Why a sign-in could not go on at the provider: the step, the URL, the problem; never a
/// secret, code or token.
#[derive(Debug, Clone)]
pub struct UpstreamError {
    step: Step,
    url: String,
    problem: String,
    unreachable: bool,
}

impl UpstreamError {
    fn refused(step: Step, url: &str, problem: impl Into<String>) -> Self {
        Self {
            step,
            url: url.to_owned(),
            problem: problem.into(),
            unreachable: false,
        }
    }

    fn unreachable(step: Step, url: &str, problem: impl Into<String>) -> Self {
        Self {
            unreachable: true,
            ..Self::refused(step, url, problem)
        }
    }

    /// The step that failed: `discovery`, `token`, `id token` or `user API`.
    pub fn step(&self) -> &'static str {
        self.step.name()
    }

    /// The URL that failed (an endpoint, never the authorization URL with its query).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Whether the provider could not be reached (down, no answer in time, a 5xx), rather
    /// than refusing.
    pub fn is_unreachable(&self) -> bool {
        self.unreachable
    }
}

impl fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the identity provider's {}", self.step.name())?;
        if !self.url.is_empty() {
            write!(f, " ({})", self.url)?;
        }
        write!(f, ": {}", self.problem)
    }
}

impl std::error::Error for UpstreamError {}
