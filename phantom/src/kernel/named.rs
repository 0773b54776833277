//! The name and arguments of a `tools/call` or `prompts/get`: the name is the request's
//! [`Target`]'s (decoded once with its params), the arguments as read with the params.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Failure, parse_params, target_member};
use crate::protocol::{Params, Target};

/// The params of `tools/call` and `prompts/get` as a room expects them, read only for the exact
/// error of params whose `name` did not read as a string.
#[derive(Deserialize)]
#[allow(dead_code)]
struct NameParams<'a> {
    #[serde(borrow)]
    name: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

/// The arguments of params a middleware rewrote (their name is the one sent).
#[derive(Deserialize)]
struct Rewritten<'a> {
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

/// The name of the tool or prompt a request names and its arguments.
pub(crate) struct Named<'a> {
    pub(crate) name: &'a str,
    pub(crate) arguments: Option<&'a RawValue>,
}

/// The name (the request's target, decoded once with its params) and the arguments: as read with
/// the params when `arguments` is `Some`, else read again from `params`.
pub(crate) fn named_arguments<'a>(
    target: &'a Target<'_>,
    params: Option<Params<'a>>,
    arguments: Option<Option<&'a RawValue>>,
) -> Result<Named<'a>, Failure> {
    let name = target_member::<NameParams<'_>>(target.name(), params, "name")?;
    let arguments = match arguments {
        Some(arguments) => arguments,
        None => parse_params::<Rewritten<'_>>(params)?.arguments,
    };
    Ok(Named { name, arguments })
}
