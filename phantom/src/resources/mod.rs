//! Resources: what `#[resource]` handlers return ([`IntoContents`]) and the `resources/list` items.

mod added;
mod read;
pub(crate) mod table;
pub(crate) mod uri;

mod resolved;

pub use crate::content::ResourceContents;
pub use crate::protocol::Resource;
#[cfg(feature = "client")]
pub(crate) use added::Watch;
pub(crate) use added::{Added, AddedResource, Declared, Matched, Named, Reader, Table};
pub(crate) use read::{Env, contents_body, read, run_read, uri_of};
pub use resolved::{Authorized, ResolvedResource, TemplateInfo};
pub(crate) use table::{ReadParts, ResourceDef, ResourceEntry};
pub use uri::FromUriParam;

use std::fmt::Display;

use serde::Serialize;

use crate::content::Json;
use crate::error::Error;

/// Several contents for one read (for example a directory): the return type of a `#[resource]`
/// handler that answers more than one [`ResourceContents`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Contents(pub Vec<ResourceContents>);

/// Raw bytes returned by a resource; sent base64-encoded as `blob`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Blob(pub Vec<u8>);

/// The resource a read is for: what an [`IntoContents`] implementation writes its `contents`
/// for (the URI each [`ResourceContents`] names, and the MIME type the template declares).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ReadTarget<'a> {
    /// The URI that was read.
    pub uri: &'a str,
    /// The template's `mime_type`, if it declares one.
    pub mime_type: Option<&'a str>,
}

impl ReadTarget<'_> {
    fn text(&self, text: String, default_mime: Option<&str>) -> ResourceContents {
        let mut c = ResourceContents::text(self.uri, text);
        c.mime_type = self.mime_type.or(default_mime).map(Into::into);
        c
    }
}

/// What a `#[resource]` handler may return. `None` means "not found".
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[resource]`",
    label = "unsupported resource return type",
    note = "return `String`, `Json<T>`, `Blob`, `ResourceContents`, `Contents`, `Option<T>` (None = not found) or `Result<T, E>` where `E: Display + 'static` (`String`, any error type; a `phantom::Error` keeps its code)"
)]
pub trait IntoContents {
    /// Converts the handler's value; `Ok(None)` is "not found".
    fn into_contents(self, target: ReadTarget<'_>) -> Result<Option<Vec<ResourceContents>>, Error>;
}

impl IntoContents for String {
    fn into_contents(self, target: ReadTarget<'_>) -> Result<Option<Vec<ResourceContents>>, Error> {
        Ok(Some(vec![target.text(self, Some("text/plain"))]))
    }
}

impl IntoContents for &'static str {
    fn into_contents(self, target: ReadTarget<'_>) -> Result<Option<Vec<ResourceContents>>, Error> {
        self.to_owned().into_contents(target)
    }
}

impl IntoContents for Blob {
    fn into_contents(self, target: ReadTarget<'_>) -> Result<Option<Vec<ResourceContents>>, Error> {
        let mut c = ResourceContents::blob(target.uri, self.0);
        c.mime_type = Some(
            target
                .mime_type
                .unwrap_or("application/octet-stream")
                .into(),
        );
        Ok(Some(vec![c]))
    }
}

impl<T: Serialize> IntoContents for Json<T> {
    fn into_contents(self, target: ReadTarget<'_>) -> Result<Option<Vec<ResourceContents>>, Error> {
        let text = serde_json::to_string(&self.0)?;
        Ok(Some(vec![target.text(text, Some("application/json"))]))
    }
}

impl IntoContents for ResourceContents {
    fn into_contents(self, _: ReadTarget<'_>) -> Result<Option<Vec<ResourceContents>>, Error> {
        Ok(Some(vec![self]))
    }
}

impl IntoContents for Contents {
    fn into_contents(self, _: ReadTarget<'_>) -> Result<Option<Vec<ResourceContents>>, Error> {
        Ok(Some(self.0))
    }
}

impl<T: IntoContents> IntoContents for Option<T> {
    fn into_contents(self, target: ReadTarget<'_>) -> Result<Option<Vec<ResourceContents>>, Error> {
        match self {
            Some(v) => v.into_contents(target),
            None => Ok(None),
        }
    }
}

impl<T: IntoContents, E: Display + 'static> IntoContents for Result<T, E> {
    fn into_contents(self, target: ReadTarget<'_>) -> Result<Option<Vec<ResourceContents>>, Error> {
        self.map_err(Error::from_handler)?.into_contents(target)
    }
}
