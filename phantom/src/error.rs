//! [`Error`]: what resource, prompt and callback handlers return when they fail.

use std::any::Any;
use std::borrow::Cow;
use std::fmt::{self, Display};

use serde_json::Value;

use crate::protocol::{ErrorObject, codes};

/// A JSON-RPC error a handler returns: a code, a message and optional data.
///
/// Any `std::error::Error` converts into it (as an internal error, `-32603`), so `?` works in
/// handlers. Like `anyhow::Error`, it does not implement `std::error::Error` itself.
///
/// # What a handler's `Err(e)` becomes
///
/// Every handler kind accepts `Result<T, E>` with one bound, `E: Display + 'static`: `String`,
/// `&'static str`, any `std::error::Error`, `Box<dyn std::error::Error + Send + Sync>`,
/// `anyhow::Error`, and `phantom::Error` itself. What the client receives depends on the kind:
///
/// | handler | `Err(phantom::Error)` (or an [`ErrorObject`]) | `Err(e)`, any other `E` |
/// |---|---|---|
/// | `#[tool]` | a result with `isError: true` and one text block, the error's message; its code and data are not sent | a result with `isError: true` and one text block, `e.to_string()` |
/// | `#[resource]`, `#[prompt]`, completion function | a JSON-RPC error with the error's code, message and data | a JSON-RPC error `-32603` (internal error) whose message is `e.to_string()` |
/// | a callback returning `Result<_, Error>` | a JSON-RPC error with the error's code, message and data | — |
///
/// A tool's failure is part of its result so that the model can read it and try again; the
/// JSON-RPC error of a tool call is kept for what phantom decides before the tool runs (unknown
/// tool, a missing client capability). Choose a code for a resource or prompt error by returning
/// a `phantom::Error` (`Error::invalid_params`, `Error::new`, …), converting other errors with
/// `?` or `map_err`.
///
/// ```
/// use phantom::prelude::*;
///
/// #[derive(Clone)]
/// struct Notes;
///
/// #[mcp_router(name = "notes", version = "1.0.0")]
/// impl Notes {
///     /// A note by number.
///     #[resource("notes:///notes/<n>")]
///     async fn note(&self, n: u32) -> Result<String, String> {
///         if n == 0 { Err("note 0 is reserved".into()) } else { Ok(format!("note {n}")) }
///     }
///
///     /// Write about a note.
///     #[prompt]
///     async fn write(&self, n: u32) -> Result<String, Error> {
///         if n == 0 { Err(Error::invalid_params("`n` must be positive")) } else { Ok(format!("Write about note {n}.")) }
///     }
///
///     /// Delete a note.
///     #[tool]
///     async fn delete(&self, n: u32) -> Result<String, Error> {
///         Err(Error::invalid_params(format!("note {n} is read-only")))
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut client = phantom::testing::Client::modern(Notes);
/// let read = client.read_resource("notes:///notes/0").await;
/// read.assert_error(-32603);
/// assert_eq!(read.error()["message"], "note 0 is reserved");
/// client.get_prompt("write", serde_json::json!({"n": 0})).await.assert_error(-32602);
/// client.call_tool("delete", serde_json::json!({"n": 3})).await.assert_tool_error("note 3 is read-only");
/// # });
/// ```
pub struct Error(ErrorObject);

impl Error {
    /// An error with an explicit JSON-RPC code.
    pub fn new(code: i32, message: impl Into<Cow<'static, str>>) -> Self {
        Self(ErrorObject::new(code, message))
    }

    /// `-32602`, invalid params.
    pub fn invalid_params(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(codes::INVALID_PARAMS, message)
    }

    /// `-32603`, internal error.
    pub fn internal(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(codes::INTERNAL_ERROR, message)
    }

    /// A missing resource. phantom sends `-32002` to legacy clients and `-32602` to modern ones,
    /// both with `data.uri`.
    pub fn resource_not_found(uri: impl Into<String>) -> Self {
        let uri = uri.into();
        Self(
            ErrorObject::new(codes::RESOURCE_NOT_FOUND, "Resource not found")
                .with_data(serde_json::json!({ "uri": uri })),
        )
    }

    /// Adds `data`.
    #[must_use]
    pub fn with_data(self, data: Value) -> Self {
        Self(self.0.with_data(data))
    }

    /// The error object sent on the wire.
    pub fn as_object(&self) -> &ErrorObject {
        &self.0
    }

    /// Converts into the wire error object.
    pub fn into_object(self) -> ErrorObject {
        self.0
    }

    /// The error a resource, prompt or completion handler's `Err(e)` becomes: `e` itself when it
    /// is an `Error` or an [`ErrorObject`] (its code kept), otherwise an internal error with
    /// `e.to_string()`. One `Display` bound covers `String` and every `std::error::Error`, which
    /// `From` impls cannot (`String` might implement `std::error::Error` one day). The type test
    /// is on `E` alone, so each use compiles to one branch; the clone is of an error, once.
    pub(crate) fn from_handler<E: Display + 'static>(err: E) -> Self {
        let any: &dyn Any = &err;
        if let Some(own) = any.downcast_ref::<Self>() {
            return Self(own.0.clone());
        }
        if let Some(object) = any.downcast_ref::<ErrorObject>() {
            return Self(object.clone());
        }
        Self::internal(err.to_string())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for Error {
    fn from(err: E) -> Self {
        Self::internal(err.to_string())
    }
}

impl From<ErrorObject> for Error {
    fn from(obj: ErrorObject) -> Self {
        Self(obj)
    }
}
