//! The `WWW-Authenticate: Bearer …` challenge of a `401` or `403` (RFC 6750 §3, RFC 9728 §5.1),
//! or the `DPoP …` one (RFC 9449 §7.1).

/// What a `Bearer` challenge says.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Challenge {
    /// Where the protected resource metadata is (RFC 9728).
    pub(super) resource_metadata: Option<String>,
    /// The scopes the request needs.
    pub(super) scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, …
    pub(super) error: Option<String>,
}

impl Challenge {
    /// The `Bearer` challenge among `headers`' `WWW-Authenticate` values, else the `DPoP` one
    /// (RFC 9449 §7.1: a server that takes only DPoP-bound tokens), else empty.
    pub(super) fn of(headers: &http::HeaderMap) -> Self {
        let values = || {
            headers
                .get_all(http::header::WWW_AUTHENTICATE)
                .iter()
                .filter_map(|v| v.to_str().ok())
        };
        values()
            .find_map(parse)
            .or_else(|| values().find_map(|v| parse_as(v, "dpop")))
            .unwrap_or_default()
    }

    /// Whether the server wants more scope than the token has (a `403` step-up).
    pub(super) fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// Parses one header value; `None` when it holds no `Bearer` challenge.
fn parse(value: &str) -> Option<Challenge> {
    parse_as(value, "bearer")
}

/// Parses the challenge of `scheme` (lowercase) in one header value; `None` when there is none.
fn parse_as(value: &str, scheme: &str) -> Option<Challenge> {
    let start = find_scheme(value, scheme)?;
    let mut rest = &value[start + scheme.len()..];
    let mut challenge = Challenge::default();
    loop {
        rest = rest.trim_start_matches([' ', '\t', ',']);
        let Some(eq) = rest.find('=') else { break };
        let name = rest[..eq].trim();
        if name.contains(' ') {
            // The next challenge's scheme: this one is over.
            break;
        }
        rest = rest[eq + 1..].trim_start();
        let value = if let Some(quoted) = rest.strip_prefix('"') {
            let mut out = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            out.push(escaped);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => out.push(c),
                }
            }
            rest = &quoted[end.min(quoted.len())..];
            out
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            let token = rest[..end].trim().to_owned();
            rest = &rest[end..];
            token
        };
        match name.to_ascii_lowercase().as_str() {
            "resource_metadata" => challenge.resource_metadata = Some(value),
            "scope" => challenge.scope = Some(value),
            "error" => challenge.error = Some(value),
            _ => {}
        }
    }
    Some(challenge)
}

/// Where the `scheme` (lowercase) starts (case-insensitive, as a whole word).
fn find_scheme(value: &str, scheme: &str) -> Option<usize> {
    let lower = value.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(scheme) {
        let at = from + i;
        let before = lower[..at].chars().next_back();
        let after = lower[at + scheme.len()..].chars().next();
        if before.is_none_or(|c| c == ' ' || c == ',') && after.is_none_or(|c| c == ' ') {
            return Some(at);
        }
        from = at + scheme.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_parameters_of_a_bearer_challenge() {
        let c = parse(
            r#"Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp""#,
        )
        .unwrap();
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scope.as_deref(), Some("mcp:read mcp:write"));
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://h/.well-known/oauth-protected-resource/mcp")
        );
        assert!(c.insufficient_scope());
    }

    #[test]
    fn a_bare_bearer_and_other_schemes() {
        assert_eq!(parse("Bearer"), Some(Challenge::default()));
        assert_eq!(parse(r#"Basic realm="x""#), None);
        let c = parse(r#"Basic realm="x", Bearer error=invalid_token"#).unwrap();
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
    }

    #[test]
    fn a_dpop_challenge_is_read_when_there_is_no_bearer_one() {
        let mut headers = http::HeaderMap::new();
        headers.insert(
            http::header::WWW_AUTHENTICATE,
            r#"DPoP algs="ES256", resource_metadata="http://h/prm""#
                .parse()
                .unwrap(),
        );
        assert_eq!(
            Challenge::of(&headers).resource_metadata.as_deref(),
            Some("http://h/prm")
        );
    }
}
