//! `POST <issuer path>/revoke` (RFC 7009): a refresh token revokes its family; an access token
//! is a JWT no store knows, which lapses within its short lifetime; an unknown token is answered
//! like a known one.

use axum::response::Response;
use http::HeaderMap;

use super::AuthorizationServer;
use super::grant::{error, form};
use super::register::Answer;
use super::server::answered;

impl AuthorizationServer {
    /// `POST /revoke`: the client authenticated as at `/token`, then `200` whatever the token.
    pub(super) async fn revoking(&self, headers: &HeaderMap, body: &[u8]) -> Response {
        let params = match form(body) {
            Ok(params) => params,
            Err(why) => return error(400, "invalid_request", &why),
        };
        if let Err(answer) = self.client_of(headers, &params).await {
            return answer;
        }
        let Some(token) = params.get("token") else {
            return error(400, "invalid_request", "`token` is missing");
        };
        // A refresh token is `<family>.<secret>`; an access token (a JWT) has two dots.
        if let Some((family, secret)) = token.split_once('.')
            && !secret.contains('.')
            && let Err(e) = self.refreshes.revoke(family).await
        {
            tracing::warn!(error = %e, "the refresh store failed at a revocation");
            return error(
                503,
                "temporarily_unavailable",
                "the token cannot be revoked now",
            );
        }
        answered(Answer {
            status: 200,
            body: "{}".to_owned(),
            retry_after: None,
        })
    }
}
