//! Resource URIs: the template grammar, typed parameters and the compiled matcher.

use phantom_uri::template;

mod matcher;

pub(crate) use matcher::Matcher;
pub(crate) use template::Template;

use std::fmt::Display;
use std::str::FromStr;

/// A type a URI parameter (`<id>` or `<rest..>`) can be parsed into: integers, `String`, `Uuid`, and
/// any type implementing `FromStr` (write a newtype with `FromStr` for your own ids).
///
/// The segment is percent-decoded before parsing.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a URI parameter",
    label = "this type does not implement `FromStr`",
    note = "URI parameters are parsed with `FromStr`: use an integer, `String`, `Uuid`, or a newtype implementing `FromStr`"
)]
pub trait FromUriParam: Sized {
    /// Parses the decoded segment; `Err` names what is wrong.
    fn from_uri_param(segment: &str) -> Result<Self, String>;
}

impl<T: FromStr> FromUriParam for T
where
    T::Err: Display,
{
    fn from_uri_param(segment: &str) -> Result<Self, String> {
        segment.parse().map_err(|e: T::Err| e.to_string())
    }
}
