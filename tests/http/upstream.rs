//! The scripted identity provider of `idp.rs` keeps the contract phantom's upstream client
//! relies on (phantom's side of a sign-in is tested in `phantom::authz`'s unit tests, where its
//! crate-private steps are reachable, and end to end through the authorization server): its
//! discovery and JWKS are followed by `JwtVerifier::discover`; a code is redeemed once, with
//! the verifier of the challenge and the client's credentials; each knob changes one thing.
//! Also the public face of `phantom::authz::Upstream` and `Identity`.

use std::net::SocketAddr;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use http::{Method, StatusCode};
use phantom::auth::{InvalidToken, JwtVerifier, TokenVerifier as _};
use phantom::authz::{Identity, Upstream};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::idp::{CLIENT_ID, CLIENT_SECRET, Idp, Knobs, decoded};
use crate::support::TestServer;

const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";
const VERIFIER: &str = "a-verifier-of-at-least-forty-three-characters-0123456789";

fn at(idp: &Idp) -> TestServer {
    let addr: SocketAddr = idp
        .url()
        .trim_start_matches("http://")
        .parse()
        .expect("an address");
    TestServer::at(addr)
}

/// `/authorize` with PKCE S256 and a nonce: the query of the redirect back.
async fn authorize(idp: &Idp) -> std::collections::HashMap<String, String> {
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(VERIFIER.as_bytes()));
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair("response_type", "code")
        .append_pair("client_id", CLIENT_ID)
        .append_pair("redirect_uri", REDIRECT_URI)
        .append_pair("scope", "openid email")
        .append_pair("state", "st&te")
        .append_pair("code_challenge", &challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("nonce", "n-1")
        .finish();
    let path: &'static str = Box::leak(format!("/authorize?{query}").into_boxed_str());
    let reply = at(idp).request(Method::GET).path(path).send().await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER);
    let location = reply.header("location").expect("a redirect").to_owned();
    let (to, back) = location.split_once('?').expect("a query");
    assert_eq!(to, REDIRECT_URI);
    decoded(back)
}

/// `/token` for `code` with `verifier` and `secret` (`client_secret_basic`): status and JSON.
async fn redeem(idp: &Idp, code: &str, verifier: &str, secret: &str) -> (StatusCode, Value) {
    let form = form_urlencoded::Serializer::new(String::new())
        .append_pair("grant_type", "authorization_code")
        .append_pair("code", code)
        .append_pair("redirect_uri", REDIRECT_URI)
        .append_pair("code_verifier", verifier)
        .finish();
    let encode = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let basic = STANDARD.encode(format!("{}:{}", encode(CLIENT_ID), encode(secret)));
    let reply = at(idp)
        .request(Method::POST)
        .path("/token")
        .header("content-type", "application/x-www-form-urlencoded")
        .header("authorization", &format!("Basic {basic}"))
        .body(form)
        .send()
        .await;
    (reply.status, reply.json().await)
}

#[tokio::test]
async fn the_idp_signs_its_user_in_and_its_id_token_verifies_by_discovery() {
    let (idp, issuer) = Idp::start(Knobs::default()).await;
    let back = authorize(&idp).await;
    assert_eq!(back["state"], "st&te");
    let (status, tokens) = redeem(&idp, &back["code"], VERIFIER, CLIENT_SECRET).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    let verifier = JwtVerifier::discover(&issuer, CLIENT_ID)
        .await
        .expect("its discovery and JWKS");
    let id_token = tokens["id_token"].as_str().expect("an ID token");
    let info = verifier.verify(id_token).await.expect("a valid ID token");
    assert_eq!(info.subject, "user-1");
    assert_eq!(info.claims["nonce"], "n-1");
    assert_eq!(info.claims["email"], "ada@example.com");
    let seen = idp.seen();
    assert_eq!(seen.authorize.len(), 1);
    assert_eq!(seen.token[0]["code_verifier"], VERIFIER);
}

#[tokio::test]
async fn the_idp_refuses_a_wrong_verifier_a_reused_code_and_a_wrong_secret() {
    let (idp, _) = Idp::start(Knobs::default()).await;
    let code = authorize(&idp).await.remove("code").expect("a code");
    let (status, answer) = redeem(&idp, &code, "another-verifier", CLIENT_SECRET).await;
    assert_eq!(
        (status, &answer["error"]),
        (StatusCode::BAD_REQUEST, &json!("invalid_grant"))
    );
    // The failed attempt used the code up.
    let (_, answer) = redeem(&idp, &code, VERIFIER, CLIENT_SECRET).await;
    assert_eq!(answer["error"], "invalid_grant");

    let code = authorize(&idp).await.remove("code").expect("a code");
    let (_, answer) = redeem(&idp, &code, VERIFIER, "not the secret").await;
    assert_eq!(answer["error"], "invalid_client");
    let (status, _) = redeem(&idp, &code, VERIFIER, CLIENT_SECRET).await;
    assert_eq!(status, StatusCode::OK);
    let (_, answer) = redeem(&idp, &code, VERIFIER, CLIENT_SECRET).await;
    assert_eq!(answer["error"], "invalid_grant", "a code is redeemed once");
}

#[tokio::test]
async fn the_idps_knobs_each_change_one_thing() {
    let (idp, issuer) = Idp::start(Knobs {
        deny: true,
        ..Knobs::default()
    })
    .await;
    let back = authorize(&idp).await;
    assert_eq!(back["error"], "access_denied");
    assert_eq!(back["state"], "st&te");
    assert!(!back.contains_key("code"));

    let verifier = JwtVerifier::discover(&issuer, CLIENT_ID)
        .await
        .expect("discovery");
    for (knob, expected) in [
        (
            Knobs {
                foreign_key: true,
                ..Knobs::default()
            },
            Err(InvalidToken::BadSignature),
        ),
        (
            Knobs {
                audience: Some("someone-else".into()),
                ..Knobs::default()
            },
            Err(InvalidToken::WrongAudience),
        ),
        (
            Knobs {
                issuer: Some("http://127.0.0.1:1".into()),
                ..Knobs::default()
            },
            Err(InvalidToken::WrongIssuer),
        ),
        (
            Knobs {
                nonce: Some("replayed".into()),
                ..Knobs::default()
            },
            Ok(json!("replayed")),
        ),
    ] {
        idp.set(|knobs| *knobs = knob.clone());
        let code = authorize(&idp).await.remove("code").expect("a code");
        let (_, tokens) = redeem(&idp, &code, VERIFIER, CLIENT_SECRET).await;
        let verified = verifier
            .verify(tokens["id_token"].as_str().expect("an ID token"))
            .await
            .map(|info| info.claims["nonce"].clone());
        assert_eq!(verified, expected, "{knob:?}");
    }

    idp.set(|knobs| {
        *knobs = Knobs {
            token_status: Some(500),
            ..Knobs::default()
        }
    });
    let code = authorize(&idp).await.remove("code").expect("a code");
    let (status, _) = redeem(&idp, &code, VERIFIER, CLIENT_SECRET).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);

    idp.set(|knobs| {
        *knobs = Knobs {
            discovery_issuer: Some("https://elsewhere.example".into()),
            ..Knobs::default()
        }
    });
    let refused = JwtVerifier::discover(&issuer, CLIENT_ID)
        .await
        .expect_err("another issuer");
    assert!(
        refused.to_string().contains("https://elsewhere.example"),
        "{refused}"
    );

    idp.stop();
    tokio::task::yield_now().await;
    let down = JwtVerifier::discover(&issuer, CLIENT_ID)
        .await
        .expect_err("down");
    assert_eq!(down.issuer(), issuer);
}

#[test]
fn an_upstream_never_shows_its_secret_and_an_identity_reads_its_claims() {
    for upstream in [
        Upstream::oidc("https://idp.example", CLIENT_ID, CLIENT_SECRET),
        Upstream::google(CLIENT_ID, CLIENT_SECRET).scopes(["openid"]),
        Upstream::github(CLIENT_ID, CLIENT_SECRET),
    ] {
        let shown = format!("{upstream:?}");
        assert!(
            shown.contains(CLIENT_ID) && !shown.contains(CLIENT_SECRET),
            "{shown}"
        );
    }
    let error = Upstream::google(CLIENT_ID, CLIENT_SECRET)
        .root_certificate(b"not a certificate")
        .expect_err("no certificate");
    assert!(
        error.contains("no `-----BEGIN CERTIFICATE-----`"),
        "{error}"
    );

    let Value::Object(claims) =
        json!({"email": "ada@example.com", "name": "Ada", "hd": "example.com"})
    else {
        unreachable!()
    };
    let identity = Identity::new("user-1", claims.clone());
    assert_eq!(identity.subject(), "user-1");
    assert_eq!(identity.email(), Some("ada@example.com"));
    assert_eq!(identity.name(), Some("Ada"));
    assert_eq!(identity.claim("hd"), Some(&json!("example.com")));
    assert_eq!(identity.claims(), &claims);
    let stored = serde_json::to_string(&identity).expect("serializes");
    assert_eq!(
        serde_json::from_str::<Identity>(&stored).expect("reads back"),
        identity
    );
}
