//! Dynamic client registration (RFC 7591), bounded: a body of at most 16 KiB, at most
//! [`MAX_REDIRECT_URIS`] redirect URIs, a rate limit, and registrations that lapse when unused.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::Digest as _;

use crate::store::{Bucket, ClientStore, RateStore};

/// The largest registration request read, in bytes.
pub const MAX_REGISTRATION_BYTES: usize = 16 * 1024;

/// The most redirect URIs one client registers.
pub const MAX_REDIRECT_URIS: usize = 8;

/// The longest redirect URI, client name or scope accepted, in bytes.
pub(crate) const MAX_FIELD: usize = 2048;

/// How a registered client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AuthMethod {
    /// A public client (PKCE only).
    None,
    /// `client_secret_basic`.
    ClientSecretBasic,
    /// `client_secret_post`.
    ClientSecretPost,
}

/// What a registration stores (the text in the [`ClientStore`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Registered {
    pub(crate) redirect_uris: Vec<String>,
    pub(crate) auth_method: AuthMethod,
    /// The SHA-256 of the secret (base64url), for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) secret_digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) scope: Option<String>,
}

/// The limits of registration: how long an unused registration lives, and how many may be made
/// (a token bucket shared by every node through the [`RateStore`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegistrationLimits {
    /// A registration not used for this long lapses (default 7 days).
    pub idle: Duration,
    /// Registrations at once, then per second (default 20, then 1 per second).
    pub rate: Bucket,
}

impl Default for RegistrationLimits {
    fn default() -> Self {
        Self {
            idle: Duration::from_secs(7 * 24 * 3600),
            rate: Bucket {
                burst: 20,
                per_second: 1.0,
            },
        }
    }
}

/// An answer of an endpoint: its status, JSON body, and the seconds to wait when refused for
/// the rate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: String,
    pub(crate) retry_after: Option<u64>,
}

impl Answer {
    pub(crate) fn error(status: u16, error: &str, description: impl Into<String>) -> Self {
        Self {
            status,
            body: json!({"error": error, "error_description": description.into()}).to_string(),
            retry_after: None,
        }
    }
}

fn invalid(description: impl Into<String>) -> Answer {
    Answer::error(400, "invalid_client_metadata", description)
}

/// Whether `uri` may be registered as a redirect URI: an absolute URI without a fragment that is
/// `https://`, `http://` to a loopback host (RFC 8252 §7.3; its port may change at each sign-in),
/// or a private-use scheme written as a reverse domain name (RFC 8252 §7.1, e.g.
/// `com.example.app:/callback`).
pub(crate) fn redirect_uri_problem(uri: &str) -> Option<String> {
    if uri.len() > MAX_FIELD {
        return Some(format!("a redirect URI is longer than {MAX_FIELD} bytes"));
    }
    if uri.contains('#') {
        return Some(format!("redirect URI `{uri}` has a fragment"));
    }
    if uri.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some("a redirect URI holds white space or a control character".into());
    }
    let Some((scheme, rest)) = uri.split_once(':') else {
        return Some(format!("redirect URI `{uri}` is not an absolute URI"));
    };
    let scheme = scheme.to_ascii_lowercase();
    match scheme.as_str() {
        "https" | "http" => {
            let Some(authority) = rest.strip_prefix("//") else {
                return Some(format!("redirect URI `{uri}` has no host"));
            };
            let authority = authority.split(['/', '?']).next().unwrap_or_default();
            if authority.is_empty() || authority.contains('@') {
                return Some(format!(
                    "redirect URI `{uri}` has no host, or user information"
                ));
            }
            if scheme == "http" && loopback_host(authority).is_none() {
                return Some(format!(
                    "redirect URI `{uri}` is http:// to a host that is not loopback (use https://)"
                ));
            }
            None
        }
        _ if scheme.contains('.')
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-')) =>
        {
            None
        }
        _ => Some(format!(
            "redirect URI `{uri}` has scheme `{scheme}`: use https://, http:// to a loopback \
             host, or a reverse-domain private scheme"
        )),
    }
}

/// The host of an `http://` authority when it is loopback (`127.0.0.1`, `[::1]`, `localhost`),
/// without its port.
pub(crate) fn loopback_host(authority: &str) -> Option<&str> {
    let host = if let Some(v6) = authority.strip_prefix('[') {
        &authority[..=v6.find(']')? + 1]
    } else {
        authority.split(':').next().unwrap_or_default()
    };
    matches!(
        host.to_ascii_lowercase().as_str(),
        "127.0.0.1" | "[::1]" | "localhost"
    )
    .then_some(host)
}

/// Registers a client (RFC 7591 §3): `body` is the request's JSON. The answer is `201` with the
/// client's information, or `400` with `invalid_redirect_uri` or `invalid_client_metadata` naming
/// the field, or `429` past the rate; nothing is stored unless it is `201`.
pub(crate) async fn register(
    clients: &dyn ClientStore,
    rates: &dyn RateStore,
    limits: RegistrationLimits,
    body: &[u8],
    now: u64,
) -> Answer {
    if body.len() > MAX_REGISTRATION_BYTES {
        return invalid(format!(
            "the registration is larger than {MAX_REGISTRATION_BYTES} bytes"
        ));
    }
    let Ok(Value::Object(request)) = serde_json::from_slice::<Value>(body) else {
        return invalid("the registration is not a JSON object");
    };
    let redirect_uris = match redirect_uris(&request) {
        Ok(uris) => uris,
        Err(problem) => return Answer::error(400, "invalid_redirect_uri", problem),
    };
    let text = |field: &str| optional_text(&request, field).map_err(invalid);
    let (client_name, scope, method) = match (
        text("client_name"),
        text("scope"),
        text("token_endpoint_auth_method"),
    ) {
        (Ok(n), Ok(s), Ok(m)) => (n, s, m),
        (Err(e), ..) | (_, Err(e), _) | (.., Err(e)) => return e,
    };
    let auth_method = match method.as_deref() {
        None | Some("none") => AuthMethod::None,
        Some("client_secret_basic") => AuthMethod::ClientSecretBasic,
        Some("client_secret_post") => AuthMethod::ClientSecretPost,
        Some(other) => {
            return invalid(format!(
                "`token_endpoint_auth_method` `{other}` is not supported: use `none`, \
                 `client_secret_basic` or `client_secret_post`"
            ));
        }
    };
    if let Some(problem) = types_problem(&request) {
        return invalid(problem);
    }
    match rates.take("authz:register", limits.rate).await {
        Ok(None) => {}
        Ok(Some(wait)) => {
            let mut answer = Answer::error(
                429,
                "too_many_requests",
                "too many registrations: try again later",
            );
            answer.retry_after = Some(wait.as_secs().max(1));
            return answer;
        }
        Err(e) => return Answer::error(503, "temporarily_unavailable", e.to_string()),
    }
    let client_id = crate::kernel::random_id::<16>();
    let secret = (auth_method != AuthMethod::None).then(crate::kernel::random_id::<32>);
    let record = Registered {
        redirect_uris,
        auth_method,
        secret_digest: secret.as_deref().map(digest),
        client_name,
        scope,
    };
    let stored = serde_json::to_string(&record).expect("a registration is plain data");
    if let Err(e) = clients.register(&client_id, &stored, limits.idle).await {
        return Answer::error(503, "temporarily_unavailable", e.to_string());
    }
    let mut info = json!({
        "client_id": client_id,
        "client_id_issued_at": now,
        "redirect_uris": record.redirect_uris,
        "token_endpoint_auth_method": auth_method,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    });
    if let Some(secret) = secret {
        info["client_secret"] = json!(secret);
        info["client_secret_expires_at"] = json!(0);
    }
    if let Some(name) = &record.client_name {
        info["client_name"] = json!(name);
    }
    if let Some(scope) = &record.scope {
        info["scope"] = json!(scope);
    }
    Answer {
        status: 201,
        body: info.to_string(),
        retry_after: None,
    }
}

/// The `redirect_uris` of a registration or a client metadata document: 1 to
/// [`MAX_REDIRECT_URIS`] strings, each passing [`redirect_uri_problem`]; why not, naming the
/// field or the URI.
pub(crate) fn redirect_uris(request: &Map<String, Value>) -> Result<Vec<String>, String> {
    let Some(Value::Array(uris)) = request.get("redirect_uris") else {
        return Err("`redirect_uris` is required: a list of the client's redirect URIs".into());
    };
    if uris.is_empty() || uris.len() > MAX_REDIRECT_URIS {
        return Err(format!(
            "`redirect_uris` must hold 1 to {MAX_REDIRECT_URIS} URIs"
        ));
    }
    let mut redirect_uris = Vec::with_capacity(uris.len());
    for uri in uris {
        let Some(uri) = uri.as_str() else {
            return Err("a redirect URI is not a string".into());
        };
        if let Some(problem) = redirect_uri_problem(uri) {
            return Err(problem);
        }
        redirect_uris.push(uri.to_owned());
    }
    Ok(redirect_uris)
}

/// The text of `field` when present (at most `MAX_FIELD` bytes); why not.
pub(crate) fn optional_text(
    request: &Map<String, Value>,
    field: &str,
) -> Result<Option<String>, String> {
    match request.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.len() <= MAX_FIELD => Ok(Some(s.clone())),
        Some(Value::String(_)) => Err(format!("`{field}` is longer than {MAX_FIELD} bytes")),
        Some(_) => Err(format!("`{field}` is not a string")),
    }
}

/// What is wrong with the `grant_types` and `response_types` of a registration or a metadata
/// document: only the authorization code (with refresh tokens) is served.
pub(crate) fn types_problem(request: &Map<String, Value>) -> Option<String> {
    for (field, allowed) in [
        ("grant_types", &["authorization_code", "refresh_token"][..]),
        ("response_types", &["code"][..]),
    ] {
        match request.get(field) {
            None => {}
            Some(Value::Array(values)) => {
                if let Some(bad) = values
                    .iter()
                    .find(|v| !v.as_str().is_some_and(|v| allowed.contains(&v)))
                {
                    return Some(format!(
                        "`{field}` holds {bad}: only {} are supported",
                        allowed.join(", ")
                    ));
                }
            }
            Some(_) => return Some(format!("`{field}` is not a list")),
        }
    }
    None
}

/// The SHA-256 of `secret`, base64url: what is stored of a secret.
pub(crate) fn digest(secret: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(secret))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{MemoryClientStore, MemoryRateStore};

    async fn registering(body: &str) -> (Answer, MemoryClientStore) {
        let clients = MemoryClientStore::new();
        let answer = register(
            &clients,
            &MemoryRateStore::new(),
            RegistrationLimits::default(),
            body.as_bytes(),
            1_700_000_000,
        )
        .await;
        (answer, clients)
    }

    fn error_of(answer: &Answer) -> (u16, String, String) {
        let body: Value = serde_json::from_str(&answer.body).expect("JSON");
        (
            answer.status,
            body["error"].as_str().unwrap_or_default().to_owned(),
            body["error_description"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        )
    }

    #[tokio::test]
    async fn a_public_client_registers_and_is_stored() {
        let (answer, clients) = registering(
            r#"{"redirect_uris":["http://127.0.0.1/callback","https://app.example/cb"],
                "client_name":"Notes","token_endpoint_auth_method":"none"}"#,
        )
        .await;
        assert_eq!(answer.status, 201, "{}", answer.body);
        let info: Value = serde_json::from_str(&answer.body).unwrap();
        let id = info["client_id"].as_str().expect("client_id");
        assert!(
            info.get("client_secret").is_none(),
            "a public client has no secret"
        );
        assert_eq!(info["client_id_issued_at"], 1_700_000_000);
        let stored = clients
            .client(id, Duration::from_secs(60))
            .await
            .unwrap()
            .expect("stored");
        let record: Registered = serde_json::from_str(&stored).unwrap();
        assert_eq!(record.redirect_uris.len(), 2);
        assert_eq!(record.auth_method, AuthMethod::None);
    }

    #[tokio::test]
    async fn a_confidential_client_gets_a_secret_of_which_only_a_digest_is_stored() {
        let (answer, clients) = registering(
            r#"{"redirect_uris":["https://app.example/cb"],
                "token_endpoint_auth_method":"client_secret_basic"}"#,
        )
        .await;
        assert_eq!(answer.status, 201, "{}", answer.body);
        let info: Value = serde_json::from_str(&answer.body).unwrap();
        let secret = info["client_secret"].as_str().expect("a secret");
        let stored = clients
            .client(info["client_id"].as_str().unwrap(), Duration::from_secs(60))
            .await
            .unwrap()
            .expect("stored");
        assert!(!stored.contains(secret), "the secret itself is not stored");
        assert!(stored.contains(&digest(secret)), "its digest is");
    }

    #[tokio::test]
    async fn bad_registrations_name_the_field_and_store_nothing() {
        let long = format!(
            r#"{{"redirect_uris":["https://a.example/{}"]}}"#,
            "x".repeat(3000)
        );
        let many = format!(
            r#"{{"redirect_uris":[{}]}}"#,
            [r#""https://a.example/cb""#; MAX_REDIRECT_URIS + 1].join(",")
        );
        let huge = format!(
            r#"{{"redirect_uris":["https://a.example/cb"],"x":"{}"}}"#,
            "x".repeat(MAX_REGISTRATION_BYTES)
        );
        let cases: &[(&str, &str, &str)] = &[
            ("[]", "invalid_client_metadata", "not a JSON object"),
            ("{}", "invalid_redirect_uri", "`redirect_uris` is required"),
            (r#"{"redirect_uris":[]}"#, "invalid_redirect_uri", "1 to 8"),
            (&many, "invalid_redirect_uri", "1 to 8"),
            (&long, "invalid_redirect_uri", "longer than"),
            (&huge, "invalid_client_metadata", "larger than"),
            (
                r#"{"redirect_uris":["http://evil.example/cb"]}"#,
                "invalid_redirect_uri",
                "not loopback",
            ),
            (
                r#"{"redirect_uris":["https://a.example/cb#frag"]}"#,
                "invalid_redirect_uri",
                "fragment",
            ),
            (
                r#"{"redirect_uris":["javascript:alert(1)"]}"#,
                "invalid_redirect_uri",
                "scheme `javascript`",
            ),
            (
                r#"{"redirect_uris":["https://user@a.example/cb"]}"#,
                "invalid_redirect_uri",
                "user information",
            ),
            (
                r#"{"redirect_uris":[7]}"#,
                "invalid_redirect_uri",
                "not a string",
            ),
            (
                r#"{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}"#,
                "invalid_client_metadata",
                "`token_endpoint_auth_method`",
            ),
            (
                r#"{"redirect_uris":["https://a.example/cb"],"grant_types":["implicit"]}"#,
                "invalid_client_metadata",
                "`grant_types`",
            ),
            (
                r#"{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}"#,
                "invalid_client_metadata",
                "`response_types`",
            ),
            (
                r#"{"redirect_uris":["https://a.example/cb"],"client_name":5}"#,
                "invalid_client_metadata",
                "`client_name` is not a string",
            ),
        ];
        for (body, error, says) in cases {
            let (answer, clients) = registering(body).await;
            let (status, got, description) = error_of(&answer);
            assert_eq!(
                (status, got.as_str()),
                (400, *error),
                "{body:.80}: {description}"
            );
            assert!(description.contains(says), "{body:.80}: {description}");
            assert!(
                clients.clients_len() == 0,
                "{body:.80}: a refused registration stores nothing"
            );
        }
    }

    #[tokio::test]
    async fn registrations_past_the_rate_are_refused_and_store_nothing() {
        let clients = MemoryClientStore::new();
        let rates = MemoryRateStore::new();
        let limits = RegistrationLimits {
            rate: Bucket {
                burst: 2,
                per_second: 0.0,
            },
            ..RegistrationLimits::default()
        };
        let body = br#"{"redirect_uris":["https://a.example/cb"]}"#;
        for _ in 0..2 {
            let answer = register(&clients, &rates, limits, body, 0).await;
            assert_eq!(answer.status, 201);
        }
        let refused = register(&clients, &rates, limits, body, 0).await;
        assert_eq!(error_of(&refused).0, 429);
        assert!(refused.retry_after.is_some_and(|s| s >= 1));
        assert_eq!(clients.clients_len(), 2, "the refused one stored nothing");
    }

    #[test]
    fn loopback_hosts_are_found_with_any_port() {
        for (authority, host) in [
            ("127.0.0.1:5173", Some("127.0.0.1")),
            ("localhost", Some("localhost")),
            ("[::1]:8080", Some("[::1]")),
            ("127.0.0.1.evil.example", None),
            ("localhost.evil.example:80", None),
            ("[::2]:80", None),
        ] {
            assert_eq!(loopback_host(authority), host, "{authority}");
        }
        assert_eq!(redirect_uri_problem("com.example.app:/callback"), None);
    }
}
