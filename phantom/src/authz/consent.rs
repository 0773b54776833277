//! The consent page (after the upstream's callback) and `POST <issuer path>/consent`, then the
//! authorization code sent back to the client (RFC 6749 §4.1.2, with RFC 9207's `iss`).
//!
//! The form's token is the key of the waiting record in the
//! [`GrantStore`](crate::store::GrantStore), so the answer may be posted to any node; it is bound
//! to the browser that was shown the page by a cookie whose digest the record holds (a double
//! submit: a page of another site can post the form but not send the cookie).

use std::time::Duration;

use axum::response::Response;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq as _;

use super::AuthorizationServer;
use super::authorize::{SIGN_IN, Signed};
use super::register::digest;
use super::web::{self, escape, page, redirect, with_query};

/// How long an authorization code may be redeemed.
const CODE: Duration = Duration::from_secs(60);

/// How long a consent is remembered.
const REMEMBERED: Duration = Duration::from_secs(30 * 24 * 3600);

/// A consent form waiting for the user's answer.
#[derive(Debug, Serialize, Deserialize)]
struct Waiting {
    signed: Signed,
    /// The digest of the cookie given to the browser the page was shown to.
    browser: String,
}

/// The key a consent is remembered by: the user, the client, the scopes (sorted) and the
/// resource, so another scope or resource asks again.
fn consent_key(signed: &Signed) -> String {
    let mut scopes = signed.scopes.clone();
    scopes.sort();
    let of = serde_json::json!([
        signed.subject,
        signed.asked.client_id,
        scopes,
        signed.asked.resource
    ]);
    digest(&of.to_string())
}

/// The name of the cookie that binds the form `token` to its browser (one per form, so two
/// sign-ins in one browser do not overwrite each other's).
fn cookie_name(token: &str) -> String {
    format!("phantom_consent_{}", &digest(token)[..16])
}

impl AuthorizationServer {
    /// A code at once when the user consented to this before, else the consent page.
    pub(super) async fn asking(&self, signed: Signed) -> Response {
        match self.consents.remembered(&consent_key(&signed)).await {
            Ok(true) => return self.issue_code(&signed).await,
            Ok(false) => {}
            Err(e) => {
                tracing::warn!(error = %e, "the consent store failed: asking the user again");
            }
        }
        let token = crate::kernel::random_id::<32>();
        let browser = crate::kernel::random_id::<32>();
        let body = self.consent_page(&signed, &token);
        let waiting = Waiting {
            signed,
            browser: digest(&browser),
        };
        let record = serde_json::to_string(&waiting).expect("a consent form is plain data");
        if let Err(e) = self
            .grants
            .put(&format!("consent:{token}"), &record, SIGN_IN)
            .await
        {
            tracing::warn!(error = %e, "the grant store failed at the consent page");
            return self.refused(
                &waiting.signed.asked,
                "temporarily_unavailable",
                "the sign-in cannot be kept now: try again later",
            );
        }
        let mut response = web::html(StatusCode::OK, "Allow access?", &body);
        let secure = if self.metadata.issuer().starts_with("https://") {
            "; Secure"
        } else {
            ""
        };
        let cookie = format!(
            "{}={browser}; Path={}; Max-Age={}; HttpOnly; SameSite=Strict{secure}",
            cookie_name(&token),
            self.path("/consent"),
            SIGN_IN.as_secs(),
        );
        if let Ok(cookie) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, cookie);
        }
        response
    }

    /// The consent page's HTML: which client (its name and id), for which user, which scopes,
    /// which resource, where the browser returns; the form with its token.
    fn consent_page(&self, signed: &Signed, token: &str) -> String {
        let asked = &signed.asked;
        let client = match &asked.client_name {
            Some(name) => format!(
                "<strong>{}</strong> (client <code>{}</code>)",
                escape(name),
                escape(&asked.client_id)
            ),
            None => format!("The client <code>{}</code>", escape(&asked.client_id)),
        };
        let user = signed
            .claims
            .get("email")
            .and_then(|e| e.as_str())
            .unwrap_or(&signed.subject);
        let scopes = if signed.scopes.is_empty() {
            "<p>No permissions beyond signing you in.</p>".to_owned()
        } else {
            let items: String = signed
                .scopes
                .iter()
                .map(|s| format!("<li><code>{}</code></li>", escape(s)))
                .collect();
            format!("<p>with these permissions:</p><ul>{items}</ul>")
        };
        format!(
            "<h1>Allow access?</h1>\
             <p>{client} asks to act as <strong>{user}</strong> on <code>{resource}</code></p>\
             {scopes}\
             <p>You will return to <code>{back}</code>.</p>\
             <form method=\"post\" action=\"{action}\">\
             <input type=\"hidden\" name=\"token\" value=\"{token}\">\
             <button type=\"submit\" name=\"decision\" value=\"allow\">Allow</button>\
             <button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button>\
             </form>",
            user = escape(user),
            resource = escape(&asked.resource),
            back = escape(&asked.redirect_uri),
            action = escape(&self.path("/consent")),
            token = escape(token),
        )
    }

    /// `POST /consent`: the form's token and the browser's cookie checked (a page, and nothing
    /// issued, when either is missing or wrong), then the user's answer sent back to the client.
    pub(super) async fn consenting(&self, headers: &HeaderMap, body: &[u8]) -> Response {
        let failed = |status, message: &str| page(status, "Consent failed", message);
        let params = match super::grant::form(body) {
            Ok(params) => params,
            Err(why) => return failed(StatusCode::BAD_REQUEST, &why),
        };
        let Some(token) = params.get("token") else {
            return failed(
                StatusCode::BAD_REQUEST,
                "The consent form's token is missing.",
            );
        };
        let waiting: Waiting = match self.grants.take(&format!("consent:{token}")).await {
            Ok(Some(text)) => match serde_json::from_str(&text) {
                Ok(waiting) => waiting,
                Err(_) => {
                    return failed(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "The consent form cannot be read.",
                    );
                }
            },
            Ok(None) => {
                return failed(
                    StatusCode::FORBIDDEN,
                    "This consent form is unknown, expired or answered already.",
                );
            }
            Err(e) => {
                tracing::warn!(error = %e, "the grant store failed at a consent");
                return failed(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "The consent cannot be taken now: try again later.",
                );
            }
        };
        let same_browser = web::cookie(headers, &cookie_name(token)).is_some_and(|cookie| {
            bool::from(digest(cookie).as_bytes().ct_eq(waiting.browser.as_bytes()))
        });
        if !same_browser {
            return failed(
                StatusCode::FORBIDDEN,
                "This consent form was not shown to this browser: start again from the application.",
            );
        }
        let signed = waiting.signed;
        let mut response = match params.get("decision").map(String::as_str) {
            Some("allow") => {
                if let Err(e) = self
                    .consents
                    .remember(&consent_key(&signed), REMEMBERED)
                    .await
                {
                    tracing::warn!(error = %e, "the consent store failed: the consent is not remembered");
                }
                self.issue_code(&signed).await
            }
            Some("deny") => self.refused(&signed.asked, "access_denied", "the user refused access"),
            _ => {
                return failed(
                    StatusCode::BAD_REQUEST,
                    "The answer is neither `allow` nor `deny`.",
                );
            }
        };
        let expired = format!(
            "{}=; Path={}; Max-Age=0; HttpOnly; SameSite=Strict",
            cookie_name(token),
            self.path("/consent"),
        );
        if let Ok(expired) = HeaderValue::from_str(&expired) {
            response.headers_mut().append(header::SET_COOKIE, expired);
        }
        response
    }

    /// A one-time authorization code for `signed`, kept by its digest for a minute, and the
    /// browser sent back to the client with it.
    pub(super) async fn issue_code(&self, signed: &Signed) -> Response {
        let code = crate::kernel::random_id::<32>();
        let record = serde_json::to_string(signed).expect("a code's record is plain data");
        if let Err(e) = self
            .grants
            .put(&format!("code:{}", digest(&code)), &record, CODE)
            .await
        {
            tracing::warn!(error = %e, "the grant store failed at issuing a code");
            return self.refused(
                &signed.asked,
                "temporarily_unavailable",
                "the code cannot be kept now: try again later",
            );
        }
        let mut pairs = vec![("code", code.as_str())];
        if let Some(state) = &signed.asked.state {
            pairs.push(("state", state));
        }
        pairs.push(("iss", self.metadata.issuer()));
        redirect(&with_query(&signed.asked.redirect_uri, &pairs))
    }
}
