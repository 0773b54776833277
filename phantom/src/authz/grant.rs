//! `POST <issuer path>/token`: the authorization code grant (with the client's PKCE verifier) and
//! the refresh token grant (rotation, reuse revokes the family), with client authentication
//! (`none`, `client_secret_basic`, `client_secret_post`); errors as RFC 6749 §5.2 says.
//!
//! A refresh token is `<family>.<secret>`: the family's id finds its record in the
//! [`RefreshStore`](crate::store::RefreshStore), which keeps only digests of the tokens.

use std::collections::HashMap;
use std::time::Duration;

use axum::response::Response;
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use http::{HeaderMap, HeaderValue, header};
use serde_json::json;
use sha2::Digest as _;
use subtle::ConstantTimeEq as _;

use super::authorize::Signed;
use super::register::{Answer, AuthMethod, Registered, digest};
use super::server::{Unknown, answered, seconds_now};
use super::web;
use super::{AccessToken, AuthorizationServer};
use crate::store::Rotated;

/// How long a refresh-token family lives, however often it is rotated.
const FAMILY: Duration = Duration::from_secs(30 * 24 * 3600);

/// An error of the token or revocation endpoint (RFC 6749 §5.2).
pub(super) fn error(status: u16, error: &str, description: &str) -> Response {
    answered(Answer::error(status, error, description))
}

/// The form of a token or revocation request; `Err` says what is malformed.
pub(super) fn form(body: &[u8]) -> Result<HashMap<String, String>, String> {
    std::str::from_utf8(body)
        .map_err(|_| "the form is not UTF-8".to_owned())
        .and_then(web::params)
}

/// The client id and secret of an `Authorization: Basic` header (RFC 6749 §2.3.1: each
/// form-urlencoded before base64).
fn basic(headers: &HeaderMap) -> Option<Result<(String, String), ()>> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, credentials) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = STANDARD
        .decode(credentials.trim())
        .ok()
        .and_then(|b| String::from_utf8(b).ok());
    let pair = decoded.as_deref().and_then(|d| d.split_once(':'));
    Some(pair.ok_or(()).map(|(id, secret)| {
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(&s.replace('+', " "))
                .decode_utf8_lossy()
                .into_owned()
        };
        (decode(id), decode(secret))
    }))
}

/// Whether the PKCE `verifier` (RFC 7636 §4.1: 43 to 128 unreserved characters) hashes to
/// `challenge`.
fn pkce_holds(verifier: &str, challenge: &str) -> bool {
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    well_formed
        && bool::from(
            URL_SAFE_NO_PAD
                .encode(sha2::Sha256::digest(verifier))
                .as_bytes()
                .ct_eq(challenge.as_bytes()),
        )
}

impl AuthorizationServer {
    /// The client a token or revocation request authenticates as: its id, once its secret (for
    /// a confidential client) is checked. `Err` is the answer: `invalid_client` (401, with a
    /// `Basic` challenge) or `invalid_request`.
    pub(super) async fn client_of(
        &self,
        headers: &HeaderMap,
        params: &HashMap<String, String>,
    ) -> Result<String, Response> {
        let unauthorized = |description: &str| {
            let mut response = error(401, "invalid_client", description);
            let realm = format!("Basic realm=\"{}\"", self.metadata.issuer());
            if let Ok(realm) = HeaderValue::from_str(&realm) {
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, realm);
            }
            response
        };
        let (id, secret) = match (
            basic(headers),
            params.get("client_id"),
            params.get("client_secret"),
        ) {
            (Some(Err(())), ..) => {
                return Err(unauthorized(
                    "the `Authorization: Basic` header is not base64 of `id:secret`",
                ));
            }
            (Some(Ok((id, secret))), form_id, None) if form_id.is_none_or(|f| *f == id) => {
                (id, Some(secret))
            }
            (Some(Ok(_)), ..) => {
                return Err(error(
                    400,
                    "invalid_request",
                    "the client authenticates both in the header and in the form",
                ));
            }
            (None, Some(id), secret) => (id.clone(), secret.cloned()),
            (None, None, _) => {
                return Err(unauthorized(
                    "the client is not named: send `client_id` or `Authorization: Basic`",
                ));
            }
        };
        let registered: Registered = match self.client(&id).await {
            Ok(client) => client,
            Err(Unknown::Refused(why)) => return Err(unauthorized(&why)),
            Err(Unknown::Unreadable) => {
                return Err(error(
                    500,
                    "server_error",
                    "the client's registration cannot be read",
                ));
            }
            Err(Unknown::Store(e)) => {
                tracing::warn!(error = %e, "the client store failed at the token endpoint");
                return Err(error(
                    503,
                    "temporarily_unavailable",
                    "the client cannot be looked up now",
                ));
            }
        };
        match (registered.auth_method, &registered.secret_digest, secret) {
            (AuthMethod::None, _, None) => Ok(id),
            (AuthMethod::None, _, Some(_)) => Err(unauthorized(
                "the client is public (`none`): it has no secret to send",
            )),
            (_, Some(stored), Some(secret))
                if bool::from(digest(&secret).as_bytes().ct_eq(stored.as_bytes())) =>
            {
                Ok(id)
            }
            _ => Err(unauthorized("the client's secret is missing or wrong")),
        }
    }

    /// `POST /token`.
    pub(super) async fn token(&self, headers: &HeaderMap, body: &[u8]) -> Response {
        let params = match form(body) {
            Ok(params) => params,
            Err(why) => return error(400, "invalid_request", &why),
        };
        let client = match self.client_of(headers, &params).await {
            Ok(client) => client,
            Err(answer) => return answer,
        };
        match params.get("grant_type").map(String::as_str) {
            Some("authorization_code") => self.redeem(&client, &params).await,
            Some("refresh_token") => self.refresh(&client, &params).await,
            Some(other) => error(
                400,
                "unsupported_grant_type",
                &format!(
                    "`grant_type` `{other}` is not supported: use `authorization_code` or `refresh_token`"
                ),
            ),
            None => error(400, "invalid_request", "`grant_type` is missing"),
        }
    }

    /// The authorization code grant: the code taken once, then checked against the client, the
    /// redirect URI, the PKCE verifier and the resource.
    async fn redeem(&self, client: &str, params: &HashMap<String, String>) -> Response {
        let Some(code) = params.get("code") else {
            return error(400, "invalid_request", "`code` is missing");
        };
        let Some(verifier) = params.get("code_verifier") else {
            return error(
                400,
                "invalid_request",
                "`code_verifier` is missing (PKCE is required)",
            );
        };
        let signed: Signed = match self.grants.take(&format!("code:{}", digest(code))).await {
            Ok(Some(text)) => match serde_json::from_str(&text) {
                Ok(signed) => signed,
                Err(_) => return error(500, "server_error", "the code's record cannot be read"),
            },
            Ok(None) => {
                return error(
                    400,
                    "invalid_grant",
                    "the code is unknown, expired or used already",
                );
            }
            Err(e) => {
                tracing::warn!(error = %e, "the grant store failed at the token endpoint");
                return error(
                    503,
                    "temporarily_unavailable",
                    "the code cannot be read now",
                );
            }
        };
        let asked = &signed.asked;
        if asked.client_id != client {
            return error(
                400,
                "invalid_grant",
                "the code was issued to another client",
            );
        }
        let redirect_ok = match params.get("redirect_uri") {
            Some(uri) => *uri == asked.redirect_uri,
            None => !asked.redirect_uri_given,
        };
        if !redirect_ok {
            return error(
                400,
                "invalid_grant",
                "`redirect_uri` is not the authorization request's",
            );
        }
        if !pkce_holds(verifier, &asked.code_challenge) {
            return error(
                400,
                "invalid_grant",
                "the PKCE `code_verifier` does not match the `code_challenge`",
            );
        }
        if params.get("resource").is_some_and(|r| *r != asked.resource) {
            return error(
                400,
                "invalid_target",
                "`resource` is not the authorization request's",
            );
        }
        let family = crate::kernel::random_id::<16>();
        let refresh = format!("{family}.{}", crate::kernel::random_id::<32>());
        let record = serde_json::to_string(&signed).expect("a family's record is plain data");
        if let Err(e) = self
            .refreshes
            .start(&family, &digest(&refresh), &record, FAMILY)
            .await
        {
            tracing::warn!(error = %e, "the refresh store failed at the token endpoint");
            return error(
                503,
                "temporarily_unavailable",
                "the grant cannot be kept now",
            );
        }
        self.tokens(&signed, &signed.scopes, &refresh)
    }

    /// The refresh token grant: the token rotated (a reused one revokes its family), the scopes
    /// the same or fewer.
    async fn refresh(&self, client: &str, params: &HashMap<String, String>) -> Response {
        let Some(token) = params.get("refresh_token") else {
            return error(400, "invalid_request", "`refresh_token` is missing");
        };
        let unknown = || {
            error(
                400,
                "invalid_grant",
                "the refresh token is unknown, expired or revoked",
            )
        };
        let Some((family, _)) = token.split_once('.') else {
            return unknown();
        };
        let next = format!("{family}.{}", crate::kernel::random_id::<32>());
        let record = match self
            .refreshes
            .rotate(family, &digest(token), &digest(&next))
            .await
        {
            Ok(Rotated::Current(record)) => record,
            Ok(Rotated::Reused) => {
                tracing::warn!("a refresh token was presented again: its family is revoked");
                return error(
                    400,
                    "invalid_grant",
                    "the refresh token was used already: every token of its grant is revoked",
                );
            }
            Ok(_) => return unknown(),
            Err(e) => {
                tracing::warn!(error = %e, "the refresh store failed at the token endpoint");
                return error(
                    503,
                    "temporarily_unavailable",
                    "the grant cannot be read now",
                );
            }
        };
        let Ok(signed) = serde_json::from_str::<Signed>(&record) else {
            return error(500, "server_error", "the grant's record cannot be read");
        };
        let ended = |answer: Response| async move {
            if let Err(e) = self.refreshes.revoke(family).await {
                tracing::warn!(error = %e, "the refresh store failed to revoke a family");
            }
            answer
        };
        if signed.asked.client_id != client {
            return ended(error(
                400,
                "invalid_grant",
                "the refresh token was issued to another client",
            ))
            .await;
        }
        let scopes = match params.get("scope") {
            None => signed.scopes.clone(),
            Some(scope) => {
                let asked: Vec<String> =
                    scope.split_ascii_whitespace().map(str::to_owned).collect();
                if let Some(wider) = asked.iter().find(|s| !signed.scopes.contains(s)) {
                    return ended(error(
                        400,
                        "invalid_scope",
                        &format!("scope `{wider}` was not granted: a refresh may only narrow"),
                    ))
                    .await;
                }
                asked
            }
        };
        if params
            .get("resource")
            .is_some_and(|r| *r != signed.asked.resource)
        {
            return ended(error(
                400,
                "invalid_target",
                "`resource` is not the grant's",
            ))
            .await;
        }
        self.tokens(&signed, &scopes, &next)
    }

    /// The token response: an access token for `signed` with `scopes`, and `refresh`.
    fn tokens(&self, signed: &Signed, scopes: &[String], refresh: &str) -> Response {
        let mut claims = AccessToken::new(
            self.metadata.issuer(),
            &signed.asked.resource,
            &signed.subject,
            &signed.asked.client_id,
        )
        .scopes(scopes)
        .lifetime(self.token_lifetime);
        for (name, value) in &signed.claims {
            claims = claims.claim(name, value.clone());
        }
        let access = self.keyring.issue(&claims, seconds_now());
        let body = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.token_lifetime.as_secs(),
            "refresh_token": refresh,
            "scope": scopes.join(" "),
        });
        answered(Answer {
            status: 200,
            body: body.to_string(),
            retry_after: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_is_s256_of_a_well_formed_verifier() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(pkce_holds(verifier, challenge), "RFC 7636's example");
        assert!(!pkce_holds(challenge, challenge), "the challenge itself");
        assert!(!pkce_holds("short", challenge));
        assert!(!pkce_holds(&format!("{verifier}!"), challenge));
    }

    #[test]
    fn basic_credentials_are_form_decoded() {
        let mut headers = HeaderMap::new();
        let encoded = STANDARD.encode("my%20client:s%3Acret");
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(&format!("Basic {encoded}")).unwrap(),
        );
        assert_eq!(
            basic(&headers),
            Some(Ok(("my client".to_owned(), "s:cret".to_owned())))
        );
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic !!"));
        assert_eq!(basic(&headers), Some(Err(())));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer x"));
        assert_eq!(basic(&headers), None);
    }
}
