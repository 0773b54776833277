//! [`Error`]: what resource, prompt and callback handlers return when they fail.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

use crate::protocol::{ErrorObject, codes};

/// A JSON-RPC error a handler returns: a code, a message and optional data.
///
/// Any `std::error::Error` converts into it (as an internal error, `-32603`), so `?` works in
/// handlers. Like `anyhow::Error`, it does not implement `std::error::Error` itself.
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
