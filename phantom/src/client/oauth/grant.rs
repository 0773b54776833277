//! The authorization code grant with PKCE (S256), `state` and the RFC 8707 `resource`, and the
//! refresh grant, through `oauth2`; the interactive step is the application's
//! [`Authorize`](super::Authorize).

use oauth2::basic::{BasicClient, BasicRequestTokenError};
use oauth2::url::Url;
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    RedirectUrl, RefreshToken, Scope, TokenResponse as _, TokenUrl,
};

use super::discovery::Server;
use super::fetch::{Fetch, FetchError};
use super::registration::{Identity, Method};
use super::{DynAuthorize, Tokens};
use crate::client::{AuthStep, ClientError};

fn authorization(message: impl std::fmt::Display) -> ClientError {
    ClientError::auth(AuthStep::Authorization, message)
}

fn token(message: impl std::fmt::Display) -> ClientError {
    ClientError::auth(AuthStep::Token, message)
}

/// `oauth2`'s client for `identity` at `server`, both endpoints set.
fn client(
    server: &Server,
    identity: &Identity,
    redirect_uri: &str,
) -> Result<
    BasicClient<
        oauth2::EndpointSet,
        oauth2::EndpointNotSet,
        oauth2::EndpointNotSet,
        oauth2::EndpointNotSet,
        oauth2::EndpointSet,
    >,
    ClientError,
> {
    let auth_url = AuthUrl::new(server.authorization_endpoint.clone()).map_err(|e| {
        authorization(format!(
            "the authorization endpoint `{}` is not a URL: {e}",
            server.authorization_endpoint
        ))
    })?;
    let token_url = TokenUrl::new(server.token_endpoint.clone()).map_err(|e| {
        token(format!(
            "the token endpoint `{}` is not a URL: {e}",
            server.token_endpoint
        ))
    })?;
    let redirect = RedirectUrl::new(redirect_uri.to_owned()).map_err(|e| {
        authorization(format!(
            "the redirect URI `{redirect_uri}` is not a URL: {e}"
        ))
    })?;
    let mut client = BasicClient::new(ClientId::new(identity.client_id.clone()))
        .set_auth_uri(auth_url)
        .set_token_uri(token_url)
        .set_redirect_uri(redirect)
        .set_auth_type(match identity.method {
            Method::Basic => AuthType::BasicAuth,
            Method::Post | Method::None => AuthType::RequestBody,
        });
    if identity.method != Method::None
        && let Some(secret) = &identity.client_secret
    {
        client = client.set_client_secret(ClientSecret::new(secret.clone()));
    }
    Ok(client)
}

/// What the token endpoint is reached with: `oauth2`'s requests on the flow's hyper client.
fn sender(
    fetch: &Fetch,
) -> impl Fn(
    oauth2::HttpRequest,
) -> std::pin::Pin<Box<dyn Future<Output = Result<oauth2::HttpResponse, FetchError>> + Send>>
+ use<> {
    let fetch = fetch.clone();
    move |request| {
        let fetch = fetch.clone();
        Box::pin(async move {
            let uri = request.uri().clone();
            let response = fetch.token(request).await?;
            // A 5xx is the server failing, not an OAuth error answer (those are 400 and 401):
            // said with its status.
            if response.status().is_server_error() {
                return Err(FetchError::failed(&uri, response.status(), response.body()));
            }
            Ok(response)
        })
    }
}

/// Runs the authorization request (through `authorize`) and exchanges the code for tokens.
pub(super) async fn authorization_code(
    fetch: &Fetch,
    authorize: Option<&dyn DynAuthorize>,
    server: &Server,
    identity: &Identity,
    redirect_uri: &str,
    resource: &str,
    scopes: &[String],
) -> Result<Tokens, ClientError> {
    if !server.pkce_s256 {
        return Err(authorization(format!(
            "`{}` does not support PKCE with S256 (`code_challenge_methods_supported`)",
            server.issuer
        )));
    }
    let client = client(server, identity, redirect_uri)?;
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let mut request = client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_extra_param("resource", resource);
    for scope in scopes {
        request = request.add_scope(Scope::new(scope.clone()));
    }
    if scopes.iter().any(|s| s == "offline_access") {
        // OpenID Connect Core §11: `offline_access` is granted only with `prompt=consent` (an
        // OpenID provider drops it otherwise, and issues no refresh token); an OAuth server
        // ignores the parameter (RFC 6749 §3.1).
        request = request.add_extra_param("prompt", "consent");
    }
    let (url, state) = request.url();
    tracing::debug!(endpoint = %server.authorization_endpoint, "authorization request");
    let landed = match authorize {
        Some(step) => step.authorize_boxed(url.as_str()).await,
        None => super::fetch_redirect(fetch, url.as_str()).await,
    };
    let landed = landed
        .map_err(|why| authorization(format!("the authorization request did not end: {why}")))?;
    let code = redirected(&landed, redirect_uri, state.secret(), server)?;
    let exchange = client
        .exchange_code(AuthorizationCode::new(code))
        .set_pkce_verifier(verifier)
        .add_extra_param("resource", resource);
    let answer = exchange
        .request_async(&sender(fetch))
        .await
        .map_err(|e| token(refused(&server.token_endpoint, &e)))?;
    tracing::debug!(endpoint = %server.token_endpoint, "tokens received");
    Ok(tokens(&answer, None))
}

/// A new access token for `refresh` (the refresh token kept when the answer has none).
pub(super) async fn refresh(
    fetch: &Fetch,
    server: &Server,
    identity: &Identity,
    redirect_uri: &str,
    resource: &str,
    refresh: &str,
) -> Result<Tokens, ClientError> {
    let client = client(server, identity, redirect_uri)?;
    let refresh_token = RefreshToken::new(refresh.to_owned());
    let answer = client
        .exchange_refresh_token(&refresh_token)
        .add_extra_param("resource", resource)
        .request_async(&sender(fetch))
        .await
        .map_err(|e| token(refused(&server.token_endpoint, &e)))?;
    tracing::debug!(endpoint = %server.token_endpoint, "tokens refreshed");
    Ok(tokens(&answer, Some(refresh)))
}

fn tokens(answer: &oauth2::basic::BasicTokenResponse, kept_refresh: Option<&str>) -> Tokens {
    let expires_at = answer.expires_in().map(|d| super::now() + d.as_secs());
    Tokens {
        access_token: answer.access_token().secret().clone(),
        refresh_token: answer
            .refresh_token()
            .map(|r| r.secret().clone())
            .or_else(|| kept_refresh.map(str::to_owned)),
        expires_at,
        scope: answer.scopes().map(|scopes| {
            scopes
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        }),
        client: None,
        unbound: *answer.token_type() == oauth2::basic::BasicTokenType::Bearer,
    }
}

/// Why the token endpoint gave no tokens, without the body (it may hold one).
fn refused(endpoint: &str, error: &BasicRequestTokenError<FetchError>) -> String {
    match error {
        oauth2::RequestTokenError::ServerResponse(answer) => {
            let mut message = format!("{endpoint} refused: {}", answer.error());
            if let Some(description) = answer.error_description() {
                message.push_str(&format!(" ({description})"));
            }
            message
        }
        oauth2::RequestTokenError::Request(e) => e.to_string(),
        oauth2::RequestTokenError::Parse(e, _) => {
            format!(
                "{endpoint}: the answer is not a token response (at `{}`)",
                e.path()
            )
        }
        oauth2::RequestTokenError::Other(why) => format!("{endpoint}: {why}"),
    }
}

/// The code of the redirect the authorization ended at: it must be to the redirect URI, carry
/// the `state` sent, and, when it has an `iss` or the server promised one, the server's issuer
/// exactly (RFC 9207).
fn redirected(
    landed: &str,
    redirect_uri: &str,
    state: &str,
    server: &Server,
) -> Result<String, ClientError> {
    let url =
        Url::parse(landed).map_err(|e| authorization(format!("the redirect is not a URL: {e}")))?;
    let expected = Url::parse(redirect_uri)
        .map_err(|e| authorization(format!("the redirect URI is not a URL: {e}")))?;
    // Compared part by part: a custom scheme's origin is opaque, never equal to another.
    let place = |u: &Url| {
        (
            u.scheme().to_owned(),
            u.host_str().map(str::to_owned),
            u.port(),
        )
    };
    if place(&url) != place(&expected) || url.path() != expected.path() {
        return Err(authorization(format!(
            "the authorization ended at {}://{}{}, not at the redirect URI {redirect_uri}",
            url.scheme(),
            url.host_str().unwrap_or_default(),
            url.path()
        )));
    }
    let param = |name: &str| {
        url.query_pairs()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.into_owned())
    };
    if param("state").as_deref() != Some(state) {
        return Err(authorization(
            "the redirect's `state` is not the one sent (a forged or stale redirect)",
        ));
    }
    match param("iss") {
        Some(iss) if iss != server.issuer => {
            return Err(authorization(format!(
                "the redirect's `iss` is `{iss}`, not the authorization server's issuer `{}`",
                server.issuer
            )));
        }
        None if server.iss_parameter_supported => {
            return Err(authorization(format!(
                "the redirect has no `iss`, which `{}` promised (`authorization_response_iss_parameter_supported`)",
                server.issuer
            )));
        }
        _ => {}
    }
    if let Some(error) = param("error") {
        let description = param("error_description")
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        return Err(authorization(format!(
            "the authorization server refused: {error}{description}"
        )));
    }
    param("code").ok_or_else(|| authorization("the redirect has no `code`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> Server {
        Server {
            issuer: "http://as.example".to_owned(),
            iss_parameter_supported: true,
            ..Server::default()
        }
    }

    #[test]
    fn the_code_comes_from_the_redirect_uri_with_the_state_and_issuer() {
        let code = redirected(
            "com.example.app:/cb?code=c&state=s&iss=http%3A%2F%2Fas.example",
            "com.example.app:/cb",
            "s",
            &server(),
        );
        assert_eq!(code.unwrap(), "c");
        for (landed, why) in [
            (
                "http://evil.example/cb?code=c&state=s&iss=http%3A%2F%2Fas.example",
                "redirect URI",
            ),
            (
                "com.example.app:/cb?code=c&state=t&iss=http%3A%2F%2Fas.example",
                "state",
            ),
            ("com.example.app:/cb?code=c&state=s", "no `iss`"),
            (
                "com.example.app:/cb?code=c&state=s&iss=http%3A%2F%2Fas.example%2F",
                "`iss`",
            ),
        ] {
            match redirected(landed, "com.example.app:/cb", "s", &server()) {
                Err(ClientError::Auth {
                    step: AuthStep::Authorization,
                    message,
                }) => {
                    assert!(message.contains(why), "{landed}: {message}");
                }
                other => panic!("{landed}: {other:?}"),
            }
        }
    }
}
