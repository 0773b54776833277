//! The providers phantom knows, as data: where their endpoints are, what is asked of them, how
//! what they say of a user becomes an [`Identity`].

use serde_json::{Map, Value};

use super::Identity;

/// One kind of identity provider.
#[derive(Debug)]
pub(super) struct Preset {
    /// Its name, in `Debug` output and errors.
    pub(super) name: &'static str,
    pub(super) endpoints: Endpoints,
    /// The scopes asked of it unless the application sets others.
    pub(super) scopes: &'static [&'static str],
    /// Who signed in, from the claims read: the ID token's (OpenID Connect), or the user API's
    /// documents, each under its name; why they do not say.
    pub(super) identity: fn(Map<String, Value>) -> Result<Identity, String>,
}

/// Where a provider's endpoints are.
#[derive(Debug)]
pub(super) enum Endpoints {
    /// OpenID Connect: in the discovery document of this issuer (`None`: the one the
    /// application gives); who signed in is in the ID token.
    Discovery { issuer: Option<&'static str> },
    /// OAuth 2 at fixed addresses; who signed in is read from a user API with the access token,
    /// each document under its name.
    Fixed {
        authorization: &'static str,
        token: &'static str,
        /// How the client authenticates at the token endpoint.
        auth: ClientAuth,
        /// The user API's documents: a name and its URL.
        user_api: &'static [(&'static str, &'static str)],
    },
}

/// How phantom authenticates at the token endpoint with the client secret (RFC 6749 §2.3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ClientAuth {
    /// `client_secret_basic`: an `Authorization: Basic` header.
    Basic,
    /// `client_secret_post`: `client_id` and `client_secret` in the form.
    Post,
}

/// Any OpenID Connect provider, by discovery of the issuer the application gives.
pub(super) static OIDC: Preset = Preset {
    name: "oidc",
    endpoints: Endpoints::Discovery { issuer: None },
    scopes: &["openid", "email", "profile"],
    identity: oidc_identity,
};

/// Google: OpenID Connect; its email only when Google has verified it.
pub(super) static GOOGLE: Preset = Preset {
    name: "google",
    endpoints: Endpoints::Discovery {
        issuer: Some("https://accounts.google.com"),
    },
    scopes: &["openid", "email", "profile"],
    identity: google_identity,
};

/// GitHub: OAuth 2 and its REST user API (not OpenID Connect); the subject is the numeric
/// account id (a login can be renamed), the email the primary verified one.
pub(super) static GITHUB: Preset = Preset {
    name: "github",
    endpoints: Endpoints::Fixed {
        authorization: "https://github.com/login/oauth/authorize",
        token: "https://github.com/login/oauth/access_token",
        auth: ClientAuth::Post,
        user_api: &[
            ("user", "https://api.github.com/user"),
            ("emails", "https://api.github.com/user/emails"),
        ],
    },
    scopes: &["read:user", "user:email"],
    identity: github_identity,
};

/// The ID token's claims; its `email` dropped when `email_verified` says it is not verified.
fn oidc_identity(mut claims: Map<String, Value>) -> Result<Identity, String> {
    let subject = subject(&claims)?;
    if matches!(verified(&claims), Some(false)) {
        claims.remove("email");
    }
    Ok(Identity::new(subject, claims))
}

/// The ID token's claims; its `email` only when `email_verified` is true.
fn google_identity(mut claims: Map<String, Value>) -> Result<Identity, String> {
    let subject = subject(&claims)?;
    if verified(&claims) != Some(true) {
        claims.remove("email");
    }
    Ok(Identity::new(subject, claims))
}

/// `GET /user` (`id`, `login`, `name`, …) with `email` the primary verified address of
/// `GET /user/emails`, or none.
fn github_identity(mut documents: Map<String, Value>) -> Result<Identity, String> {
    let Some(Value::Object(mut user)) = documents.remove("user") else {
        return Err("`/user` is not a JSON object".into());
    };
    let subject = match user.get("id") {
        Some(Value::Number(id)) if id.is_u64() => id.to_string(),
        _ => return Err("`/user` has no numeric `id`".into()),
    };
    let primary = documents
        .get("emails")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|e| e["primary"] == Value::Bool(true) && e["verified"] == Value::Bool(true))
        .and_then(|e| e["email"].as_str())
        .map(str::to_owned);
    match primary {
        Some(email) => user.insert("email".into(), Value::String(email)),
        None => user.remove("email"),
    };
    Ok(Identity::new(subject, user))
}

/// The `sub` claim: a string, not empty.
fn subject(claims: &Map<String, Value>) -> Result<String, String> {
    match claims.get("sub") {
        Some(Value::String(sub)) if !sub.is_empty() => Ok(sub.clone()),
        _ => Err("it has no `sub`".into()),
    }
}

/// `email_verified`, as a boolean or as the strings `"true"` / `"false"` some providers send.
fn verified(claims: &Map<String, Value>) -> Option<bool> {
    match claims.get("email_verified")? {
        Value::Bool(b) => Some(*b),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        let Value::Object(map) = value else {
            unreachable!("an object")
        };
        map
    }

    #[test]
    fn google_vouches_for_an_email_only_when_it_verified_it() {
        let identity = (GOOGLE.identity)(object(json!({
            "iss": "https://accounts.google.com", "sub": "1089", "email": "ada@example.com",
            "email_verified": true, "name": "Ada Lovelace",
        })))
        .unwrap();
        assert_eq!(identity.subject(), "1089");
        assert_eq!(identity.email(), Some("ada@example.com"));
        assert_eq!(identity.name(), Some("Ada Lovelace"));
        assert_eq!(
            identity.claim("iss"),
            Some(&json!("https://accounts.google.com"))
        );

        for unverified in [json!(false), json!("false"), Value::Null] {
            let identity = (GOOGLE.identity)(object(json!({
                "sub": "1089", "email": "ada@example.com", "email_verified": unverified,
            })))
            .unwrap();
            assert_eq!(identity.email(), None, "{unverified}");
        }
        let missing = (GOOGLE.identity)(object(json!({"email": "ada@example.com"})));
        assert_eq!(missing.unwrap_err(), "it has no `sub`");
    }

    #[test]
    fn a_generic_provider_keeps_an_email_unless_it_says_it_is_unverified() {
        let kept = (OIDC.identity)(object(json!({"sub": "u1", "email": "u@example.com"})));
        assert_eq!(kept.unwrap().email(), Some("u@example.com"));
        let dropped = (OIDC.identity)(object(
            json!({"sub": "u1", "email": "u@example.com", "email_verified": false}),
        ));
        assert_eq!(dropped.unwrap().email(), None);
        assert!((OIDC.identity)(object(json!({"sub": ""}))).is_err());
    }

    #[test]
    fn github_is_its_numeric_id_and_its_primary_verified_email() {
        let identity = (GITHUB.identity)(object(json!({
            "user": {"id": 583231, "login": "octocat", "name": "The Octocat",
                     "email": "public@example.com"},
            "emails": [
                {"email": "old@example.com", "primary": false, "verified": true},
                {"email": "octocat@example.com", "primary": true, "verified": true},
            ],
        })))
        .unwrap();
        assert_eq!(identity.subject(), "583231");
        assert_eq!(identity.claim("login"), Some(&json!("octocat")));
        assert_eq!(identity.name(), Some("The Octocat"));
        assert_eq!(identity.email(), Some("octocat@example.com"));

        // A primary address not verified, and the profile's public one, are not vouched for.
        let identity = (GITHUB.identity)(object(json!({
            "user": {"id": 1, "login": "ghost", "name": null, "email": "public@example.com"},
            "emails": [{"email": "ghost@example.com", "primary": true, "verified": false}],
        })))
        .unwrap();
        assert_eq!(identity.email(), None);
        assert_eq!(identity.name(), None);

        let no_id = (GITHUB.identity)(object(json!({"user": {"login": "x"}, "emails": []})));
        assert_eq!(no_id.unwrap_err(), "`/user` has no numeric `id`");
    }
}
