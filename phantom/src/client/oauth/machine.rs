//! The grants without a user: client credentials (RFC 6749 §4.4) and the JWT bearer grant
//! (RFC 7523 §2.1), with the application's assertion or an ID-JAG from the token exchange
//! (RFC 8693) of the user's ID token at their identity provider, their refresh, and the client's authentication at the token endpoint with a
//! secret or a signed assertion (`private_key_jwt`, RFC 7523 §2.2). The token request is a form
//! POST of its own (the `oauth2` crate has no JWT bearer grant nor client assertions).

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use oauth2::url::form_urlencoded;
use serde_json::{Value, json};

use super::discovery::Server;
use super::fetch::{Fetch, FetchError};
use super::registration::Method;
use super::{Grant, IdentityProvider, Learnt, OAuth, SigningKey, Tokens};
use crate::client::{AuthStep, ClientError};

/// RFC 7523 §2.1.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// RFC 7523 §2.2.
const CLIENT_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// RFC 8693 §2.1.
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";

/// RFC 8693 §3.
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";

/// The Identity Assertion JWT Authorization Grant's token type.
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// How long a client assertion this client signs is valid.
const ASSERTION_LIFE: u64 = 60;

fn token(message: impl std::fmt::Display) -> ClientError {
    ClientError::auth(AuthStep::Token, message)
}

/// A token request of the configured grant at the authorization server the flow found, for its
/// resource: `refresh` is the refresh token to use instead.
pub(super) async fn request(
    fetch: &Fetch,
    config: &OAuth,
    learnt: &Learnt,
    scopes: &[String],
    refresh: Option<&str>,
) -> Result<Tokens, ClientError> {
    let (Some((server, identity)), Some(resource)) = (&learnt.server, &learnt.resource) else {
        return Err(ClientError::auth(
            AuthStep::Discovery,
            "no authorization server",
        ));
    };
    let mut form: Vec<(&str, String)> = Vec::new();
    match (refresh, &config.grant) {
        (Some(refresh), _) => {
            form.push(("grant_type", "refresh_token".to_owned()));
            form.push(("refresh_token", refresh.to_owned()));
        }
        (None, Grant::JwtBearer(assertion)) => {
            let assertion = assertion().await.map_err(|why| {
                token(format!(
                    "the application gave no assertion for the JWT bearer grant: {why}"
                ))
            })?;
            check_assertion(&assertion, server)?;
            form.push(("grant_type", JWT_BEARER.to_owned()));
            form.push(("assertion", assertion));
        }
        (None, Grant::EnterpriseManaged(idp)) => {
            let assertion = id_jag(fetch, idp, server, resource, scopes).await?;
            form.push(("grant_type", JWT_BEARER.to_owned()));
            form.push(("assertion", assertion));
        }
        (None, _) => form.push(("grant_type", "client_credentials".to_owned())),
    }
    form.push(("resource", resource.to_owned()));
    if !scopes.is_empty() && refresh.is_none() {
        form.push(("scope", scopes.join(" ")));
    }
    let mut basic = None;
    if let Some(key) = &config.signing_key {
        form.push(("client_id", identity.client_id.clone()));
        form.push(("client_assertion_type", CLIENT_ASSERTION.to_owned()));
        form.push((
            "client_assertion",
            key.sign(&identity.client_id, &server.issuer)?,
        ));
    } else {
        match (identity.method, &identity.client_secret) {
            (Method::Basic, Some(secret)) => basic = Some(basic_auth(&identity.client_id, secret)),
            (Method::Post, Some(secret)) => {
                form.push(("client_id", identity.client_id.clone()));
                form.push(("client_secret", secret.clone()));
            }
            _ => form.push(("client_id", identity.client_id.clone())),
        }
    }
    let answer = post(fetch, &server.token_endpoint, &form, basic).await?;
    let Some(access_token) = answer["access_token"].as_str() else {
        return Err(token(format!(
            "{}: the answer is not a token response (no `access_token`)",
            server.token_endpoint
        )));
    };
    tracing::debug!(endpoint = %server.token_endpoint, "tokens received");
    Ok(Tokens {
        access_token: access_token.to_owned(),
        refresh_token: answer["refresh_token"]
            .as_str()
            .or(refresh)
            .map(str::to_owned),
        expires_at: answer["expires_in"]
            .as_u64()
            .map(|seconds| super::now() + seconds),
        scope: answer["scope"].as_str().map(str::to_owned),
        client: None,
        unbound: answer["token_type"]
            .as_str()
            .is_some_and(|t| t.eq_ignore_ascii_case("bearer")),
    })
}

/// POSTs `form` to the token endpoint `endpoint` (with `basic` as its `Authorization`): the
/// JSON answer of a success, else the OAuth error it names (never its body).
async fn post(
    fetch: &Fetch,
    endpoint: &str,
    form: &[(&str, String)],
    basic: Option<String>,
) -> Result<Value, ClientError> {
    let body = {
        let mut body = form_urlencoded::Serializer::new(String::new());
        for (name, value) in form {
            body.append_pair(name, value);
        }
        body.finish()
    };
    let mut request = http::Request::post(endpoint)
        .header(
            http::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .header(http::header::ACCEPT, "application/json");
    if let Some(basic) = basic {
        request = request.header(http::header::AUTHORIZATION, basic);
    }
    let request = request
        .body(body.into_bytes())
        .map_err(|e| token(format!("the token endpoint `{endpoint}` is not a URL: {e}")))?;
    let uri = request.uri().clone();
    let response = fetch
        .token(request)
        .await
        .map_err(|e: FetchError| token(e))?;
    let status = response.status();
    if status.is_server_error() {
        return Err(token(FetchError::failed(&uri, status, response.body())));
    }
    let answer: Value = serde_json::from_slice(response.body()).unwrap_or(Value::Null);
    if !status.is_success() {
        let mut message = format!(
            "{endpoint} refused: {}",
            answer["error"]
                .as_str()
                .unwrap_or("no OAuth error in the answer")
        );
        if let Some(description) = answer["error_description"].as_str() {
            message.push_str(&format!(" ({description})"));
        }
        return Err(token(message));
    }
    Ok(answer)
}

/// An Identity Assertion JWT Authorization Grant (ID-JAG) for `server` and `resource`: the
/// RFC 8693 token exchange of the user's ID token at the identity provider's token endpoint.
async fn id_jag(
    fetch: &Fetch,
    idp: &IdentityProvider,
    server: &Server,
    resource: &str,
    scopes: &[String],
) -> Result<String, ClientError> {
    let id_token = (idp.id_token)()
        .await
        .map_err(|why| token(format!("the application gave no ID token: {why}")))?;
    let mut form = vec![
        ("grant_type", TOKEN_EXCHANGE.to_owned()),
        ("requested_token_type", ID_JAG.to_owned()),
        ("subject_token", id_token),
        ("subject_token_type", ID_TOKEN.to_owned()),
        ("audience", server.issuer.clone()),
        ("resource", resource.to_owned()),
        ("client_id", idp.client_id.clone()),
    ];
    if !scopes.is_empty() {
        form.push(("scope", scopes.join(" ")));
    }
    let answer = post(fetch, &idp.token_endpoint, &form, None).await?;
    tracing::debug!(endpoint = %idp.token_endpoint, "identity assertion grant received");
    match (
        answer["issued_token_type"].as_str(),
        answer["access_token"].as_str(),
    ) {
        (Some(ID_JAG), Some(jag)) => Ok(jag.to_owned()),
        (issued, _) => Err(token(format!(
            "{}: the token exchange gave no ID-JAG (`issued_token_type` is `{}`)",
            idp.token_endpoint,
            issued.unwrap_or("missing")
        ))),
    }
}

/// `client_secret_basic` (RFC 6749 §2.3.1: each part form-encoded first).
fn basic_auth(client_id: &str, secret: &str) -> String {
    let encode = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let pair = format!("{}:{}", encode(client_id), encode(secret));
    format!("Basic {}", STANDARD.encode(pair))
}

/// Refuses, before sending it, an assertion the authorization server would refuse: one that
/// has expired or is not for it (its `aud` names neither its issuer nor its token endpoint).
/// The signature is the server's to check; an assertion that is not a JWT is sent as it is.
fn check_assertion(assertion: &str, server: &Server) -> Result<(), ClientError> {
    let Some(claims) = assertion
        .split('.')
        .nth(1)
        .and_then(|payload| URL_SAFE_NO_PAD.decode(payload).ok())
        .and_then(|payload| serde_json::from_slice::<Value>(&payload).ok())
    else {
        return Ok(());
    };
    if let Some(exp) = claims["exp"].as_u64()
        && exp <= super::now()
    {
        return Err(token(
            "the assertion for the JWT bearer grant has expired (its `exp` is past): not sent",
        ));
    }
    let trimmed = |s: &str| s.trim_end_matches('/').to_owned();
    let ours = [trimmed(&server.issuer), trimmed(&server.token_endpoint)];
    let audience: Vec<String> = match &claims["aud"] {
        Value::String(aud) => vec![trimmed(aud)],
        Value::Array(list) => list.iter().filter_map(Value::as_str).map(trimmed).collect(),
        _ => return Ok(()),
    };
    if !audience.iter().any(|aud| ours.contains(aud)) {
        return Err(token(format!(
            "the assertion for the JWT bearer grant is for `{}`, not for the authorization server `{}`: not sent",
            audience.join(" "),
            server.issuer
        )));
    }
    Ok(())
}

impl SigningKey {
    /// A client assertion (RFC 7523 §3): `iss` and `sub` the client, `aud` the authorization
    /// server's issuer, a unique `jti`, valid for [`ASSERTION_LIFE`].
    fn sign(&self, client_id: &str, audience: &str) -> Result<String, ClientError> {
        let algorithm: jsonwebtoken::Algorithm = self.algorithm.parse().map_err(|_| {
            token(format!(
                "`{}` is not a JWS algorithm this client signs with",
                self.algorithm
            ))
        })?;
        let pem = self.pem.as_bytes();
        let key = match algorithm {
            jsonwebtoken::Algorithm::ES256 | jsonwebtoken::Algorithm::ES384 => {
                jsonwebtoken::EncodingKey::from_ec_pem(pem)
            }
            jsonwebtoken::Algorithm::EdDSA => jsonwebtoken::EncodingKey::from_ed_pem(pem),
            jsonwebtoken::Algorithm::HS256
            | jsonwebtoken::Algorithm::HS384
            | jsonwebtoken::Algorithm::HS512 => {
                return Err(token(format!(
                    "`{}` is a shared-secret algorithm, not one for `private_key_jwt`",
                    self.algorithm
                )));
            }
            _ => jsonwebtoken::EncodingKey::from_rsa_pem(pem),
        }
        .map_err(|e| {
            token(format!(
                "the private key is not a {} key in PEM: {e}",
                self.algorithm
            ))
        })?;
        let now = super::now();
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + ASSERTION_LIFE,
            "jti": crate::kernel::random_id::<16>(),
        });
        jsonwebtoken::encode(&jsonwebtoken::Header::new(algorithm), &claims, &key)
            .map_err(|e| token(format!("signing the client assertion: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwt(claims: &Value) -> String {
        format!(
            "e30.{}.c2ln",
            URL_SAFE_NO_PAD.encode(claims.to_string().as_bytes())
        )
    }

    #[test]
    fn an_expired_assertion_or_one_for_another_server_is_not_sent() {
        let server = Server {
            issuer: "http://as.example".to_owned(),
            token_endpoint: "http://as.example/token".to_owned(),
            ..Server::default()
        };
        let later = super::super::now() + 60;
        assert!(
            check_assertion(
                &jwt(&json!({"aud": "http://as.example/", "exp": later})),
                &server
            )
            .is_ok()
        );
        assert!(
            check_assertion(&jwt(&json!({"aud": ["http://as.example/token"]})), &server).is_ok()
        );
        assert!(check_assertion("opaque", &server).is_ok());
        for (claims, why) in [
            (json!({"aud": "http://as.example", "exp": 1}), "expired"),
            (
                json!({"aud": "https://wrong.example", "exp": later}),
                "not for",
            ),
        ] {
            match check_assertion(&jwt(&claims), &server) {
                Err(ClientError::Auth {
                    step: AuthStep::Token,
                    message,
                }) => {
                    assert!(message.contains(why), "{message}");
                }
                other => panic!("{claims}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_basic_secret_is_form_encoded_first() {
        assert_eq!(
            basic_auth("a b", "c:d"),
            format!("Basic {}", STANDARD.encode("a+b:c%3Ad"))
        );
    }
}
