//! The resource URI template grammar: `phantom-macros` validates `#[resource("…")]` with it at
//! compile time and the runtime builds its matcher from it, so both read templates with the same code.
//!
//! Grammar (EBNF):
//!
//! ```text
//! template  = scheme "://" authority { "/" segment } ;
//! scheme    = ALPHA { ALPHA | DIGIT | "+" | "-" | "." } ;
//! authority = segment ;                      (may be empty: `scheme:///path`)
//! segment   = literal | "<" ident ">" | "<" ident "..>" ;
//! literal   = { unreserved | pct-encoded | sub-delims | ":" | "@" } ;
//! ident     = (ALPHA | "_") { ALPHA | DIGIT | "_" } ;
//! ```
//!
//! A `<name>` parameter takes one whole segment; a `<name..>` parameter takes the rest of the URI (one
//! or more segments) and must come last. Query strings and fragments are not part of a template.

use std::fmt;

/// One segment of a parsed template. The authority is segment 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Literal text, compared exactly (the authority and scheme case-insensitively).
    Literal(String),
    /// `<name>`: exactly one segment.
    Param(String),
    /// `<name..>`: the rest of the URI, one or more segments.
    Rest(String),
}

/// A parsed resource URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// The scheme, lower-cased.
    pub scheme: String,
    /// Segment 0 is the authority; the others are path segments.
    pub segments: Vec<Segment>,
}

/// Why a template was rejected. [`TemplateError::message`] and [`TemplateError::help`] give the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateError {
    /// No `scheme://` prefix.
    MissingScheme,
    /// The scheme has characters outside `[A-Za-z0-9+.-]` or does not start with a letter.
    BadScheme(String),
    /// `?` or `#` in the template.
    QueryOrFragment,
    /// `{id}` (RFC 6570) syntax.
    BraceSyntax(String),
    /// `:id` (Plug/Express) syntax.
    ColonSyntax(String),
    /// `<` without a matching `>`, or a parameter sharing its segment with literal text.
    PartialSegment(String),
    /// A parameter name that is not a Rust identifier.
    BadIdent(String),
    /// The same parameter twice.
    DuplicateParam(String),
    /// `<name..>` followed by more segments.
    RestNotLast(String),
    /// A character not allowed in a URI.
    BadChar(char, String),
    /// An empty path segment (`a//b`) or a trailing slash.
    EmptySegment,
}

impl TemplateError {
    /// What is wrong, in rustc's voice.
    pub fn message(&self) -> String {
        match self {
            Self::MissingScheme => "resource URI template has no scheme".into(),
            Self::BadScheme(s) => format!("invalid URI scheme `{s}`"),
            Self::QueryOrFragment => {
                "resource URI templates cannot contain a query (`?`) or fragment (`#`)".into()
            }
            Self::BraceSyntax(n) => format!("URI parameter `{{{n}}}` uses RFC 6570 syntax"),
            Self::ColonSyntax(n) => format!("URI parameter `:{n}` uses colon syntax"),
            Self::PartialSegment(s) => {
                format!("URI parameter in segment `{s}` must span the whole segment")
            }
            Self::BadIdent(s) => format!("URI parameter name `{s}` is not a valid identifier"),
            Self::DuplicateParam(n) => format!("URI parameter `<{n}>` appears more than once"),
            Self::RestNotLast(n) => {
                format!("trailing parameter `<{n}..>` must be the last segment")
            }
            Self::BadChar(c, s) => format!("character `{c}` is not allowed in URI segment `{s}`"),
            Self::EmptySegment => "resource URI template has an empty path segment".into(),
        }
    }

    /// How to fix it.
    pub fn help(&self) -> String {
        match self {
            Self::MissingScheme => "write a URI such as `myapp:///items/<id>`".into(),
            Self::BadScheme(_) => {
                "a scheme starts with a letter and contains only letters, digits, `+`, `-` and `.`"
                    .into()
            }
            Self::QueryOrFragment => "remove the query or fragment; use path parameters".into(),
            Self::BraceSyntax(n) => format!("write `<{n}>` (phantom advertises it as `{{{n}}}`)"),
            Self::ColonSyntax(n) => format!("write `<{n}>`"),
            Self::PartialSegment(_) => {
                "put the parameter in a segment of its own, e.g. `items/<id>/data`".into()
            }
            Self::BadIdent(_) => "use a Rust identifier such as `<item_id>`".into(),
            Self::DuplicateParam(_) => "give each parameter a distinct name".into(),
            Self::RestNotLast(_) => "move `<name..>` to the end of the template".into(),
            Self::BadChar(..) => "percent-encode the character".into(),
            Self::EmptySegment => "remove the doubled or trailing `/`".into(),
        }
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    s != "_" && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_literal_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~%!$&'()*+,;=:@".contains(c)
}

fn parse_segment(raw: &str, names: &mut Vec<String>) -> Result<Segment, TemplateError> {
    if let Some(inner) = raw.strip_prefix('<') {
        let Some(inner) = inner.strip_suffix('>') else {
            return Err(TemplateError::PartialSegment(raw.into()));
        };
        let (name, rest) = match inner.strip_suffix("..") {
            Some(name) => (name, true),
            None => (inner, false),
        };
        if !is_ident(name) {
            return Err(TemplateError::BadIdent(name.into()));
        }
        if names.iter().any(|n| n == name) {
            return Err(TemplateError::DuplicateParam(name.into()));
        }
        names.push(name.into());
        return Ok(if rest {
            Segment::Rest(name.into())
        } else {
            Segment::Param(name.into())
        });
    }
    if raw.contains('<') || raw.contains('>') {
        return Err(TemplateError::PartialSegment(raw.into()));
    }
    if let Some(open) = raw.find('{') {
        let name = raw[open + 1..].trim_start_matches(['+', '#']);
        let name = name.split('}').next().unwrap_or(name);
        return Err(TemplateError::BraceSyntax(name.into()));
    }
    if let Some(name) = raw.strip_prefix(':').filter(|n| is_ident(n)) {
        return Err(TemplateError::ColonSyntax(name.into()));
    }
    if let Some(c) = raw.chars().find(|c| !is_literal_char(*c)) {
        return Err(TemplateError::BadChar(c, raw.into()));
    }
    Ok(Segment::Literal(raw.into()))
}

impl Template {
    /// Parses a template such as `myapp:///studies/<id>`.
    pub fn parse(src: &str) -> Result<Self, TemplateError> {
        let Some((scheme, rest)) = src.split_once("://") else {
            return Err(TemplateError::MissingScheme);
        };
        let scheme_ok = scheme
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
        if !scheme_ok {
            return Err(TemplateError::BadScheme(scheme.into()));
        }
        if rest.contains('?') || rest.contains('#') {
            return Err(TemplateError::QueryOrFragment);
        }
        let mut names = Vec::new();
        let mut segments = Vec::new();
        let mut parts = rest.split('/');
        let authority = parts.next().unwrap_or("");
        segments.push(parse_segment(authority, &mut names)?);
        for part in parts {
            if part.is_empty() {
                return Err(TemplateError::EmptySegment);
            }
            if let Some(Segment::Rest(name)) = segments.last() {
                return Err(TemplateError::RestNotLast(name.clone()));
            }
            segments.push(parse_segment(part, &mut names)?);
        }
        if matches!(segments.as_slice(), [Segment::Rest(_)]) {
            // `scheme://<rest..>` is fine; nothing else to check.
        }
        Ok(Self {
            scheme: scheme.to_ascii_lowercase(),
            segments,
        })
    }

    /// The parameter names in order of appearance.
    pub fn params(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Param(n) | Segment::Rest(n) => Some(n.as_str()),
            Segment::Literal(_) => None,
        })
    }

    /// Whether the template has no parameters (a concrete resource).
    pub fn is_concrete(&self) -> bool {
        self.params().next().is_none()
    }

    /// The RFC 6570 form clients see: `<id>` becomes `{id}` and `<rest..>` becomes `{+rest}`.
    pub fn to_rfc6570(&self) -> String {
        let mut out = format!("{}://", self.scheme);
        for (i, seg) in self.segments.iter().enumerate() {
            if i > 0 {
                out.push('/');
            }
            match seg {
                Segment::Literal(l) => out.push_str(l),
                Segment::Param(n) => {
                    out.push('{');
                    out.push_str(n);
                    out.push('}');
                }
                Segment::Rest(n) => {
                    out.push_str("{+");
                    out.push_str(n);
                    out.push('}');
                }
            }
        }
        out
    }

    /// Whether `self` and `other` accept exactly the same URIs, so that neither can be reached
    /// reliably. Literal segments win over `<param>`, which wins over `<rest..>`, so templates that
    /// differ in the kind of some segment do not collide.
    pub fn collides_with(&self, other: &Self) -> bool {
        self.scheme == other.scheme
            && self.segments.len() == other.segments.len()
            && self
                .segments
                .iter()
                .zip(&other.segments)
                .enumerate()
                .all(|(i, (a, b))| match (a, b) {
                    (Segment::Literal(x), Segment::Literal(y)) => {
                        if i == 0 {
                            x.eq_ignore_ascii_case(y)
                        } else {
                            x == y
                        }
                    }
                    (Segment::Param(_), Segment::Param(_))
                    | (Segment::Rest(_), Segment::Rest(_)) => true,
                    _ => false,
                })
    }
}

/// Splits a concrete URI into its lower-cased scheme and its segments (authority first), without
/// decoding. Returns `None` when the URI has no `scheme://`.
pub fn split_uri(uri: &str) -> Option<(&str, impl Iterator<Item = &str>)> {
    let (scheme, rest) = uri.split_once("://")?;
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    Some((scheme, rest.split('/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_renders_rfc6570() {
        let t = Template::parse("studies:///studies/<id>/files/<path..>").expect("valid");
        assert_eq!(t.params().collect::<Vec<_>>(), ["id", "path"]);
        assert_eq!(t.to_rfc6570(), "studies:///studies/{id}/files/{+path}");
        assert!(
            Template::parse("test://static-text")
                .expect("valid")
                .is_concrete()
        );
    }

    #[test]
    fn rejects_with_a_reason() {
        let err = |s| Template::parse(s).expect_err(s);
        assert_eq!(err("no-scheme/x"), TemplateError::MissingScheme);
        assert_eq!(err("a:///x/{id}"), TemplateError::BraceSyntax("id".into()));
        assert_eq!(
            err("a:///x/{+rest}"),
            TemplateError::BraceSyntax("rest".into())
        );
        assert_eq!(err("a:///x/:id"), TemplateError::ColonSyntax("id".into()));
        assert_eq!(
            err("a:///file-<id>.txt"),
            TemplateError::PartialSegment("file-<id>.txt".into())
        );
        assert_eq!(err("a:///<r..>/x"), TemplateError::RestNotLast("r".into()));
        assert_eq!(
            err("a:///<id>/<id>"),
            TemplateError::DuplicateParam("id".into())
        );
        assert_eq!(err("a:///x?y=1"), TemplateError::QueryOrFragment);
        assert_eq!(err("a:///x//y"), TemplateError::EmptySegment);
        assert_eq!(err("a:///<1d>"), TemplateError::BadIdent("1d".into()));
        assert!(err("a:///x/{id}").help().contains("<id>"));
    }

    #[test]
    fn collisions_are_same_shape_only() {
        let t = |s| Template::parse(s).expect("valid");
        assert!(t("a:///x/<id>").collides_with(&t("a:///x/<name>")));
        assert!(t("a://HOST/<id>").collides_with(&t("a://host/<other>")));
        assert!(!t("a:///x/<id>").collides_with(&t("a:///x/new")));
        assert!(!t("a:///x/<id>").collides_with(&t("a:///x/<rest..>")));
        assert!(!t("a:///x/<id>").collides_with(&t("b:///x/<id>")));
    }
}
