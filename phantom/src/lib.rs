#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod auth;
pub mod completion;
pub mod config;
pub mod content;
pub mod dispatch;
pub mod error;
pub mod param;
pub mod prompt;
pub mod protocol;
pub mod request;
pub mod resource;
pub mod router;
pub mod server;
pub mod session;
pub mod store;
pub mod task;
pub mod testing;
pub mod tool;
mod transport;
pub mod uri;

pub use http::serve;
pub use transport::{http, sse, stdio};

pub use auth::{Bearer, ProtectedResource, WwwAuthenticate};
pub use completion::{CompleteContext, Completion, IntoCompletion};
pub use config::{CacheScope, Config};
pub use content::{Content, ResourceContents};
pub use dispatch::Dispatcher;
pub use error::Error;
pub use param::{Arguments, CallParam};
pub use prompt::{IntoPromptReply, PromptMessage, PromptReply, Role};
pub use protocol::{Icon, Implementation, LogLevel, ProtocolVersion};
pub use request::Request;
pub use resource::{Blob, Contents, IntoContents, Resource};
pub use server::{Authorized, Connect, Cursor, Page, ResolvedResource, Server};
pub use session::Session;
pub use task::{Task, TaskError, TaskStatus};
pub use tool::{IntoToolResult, Json, ToolResult};
pub use uri::FromUriParam;

#[doc = include_str!("docs/mcp_router.md")]
#[doc(inline)]
pub use phantom_macros::mcp_router;
#[doc = include_str!("docs/prompt.md")]
#[doc(inline)]
pub use phantom_macros::prompt;
#[doc = include_str!("docs/resource.md")]
#[doc(inline)]
pub use phantom_macros::resource;
#[doc = include_str!("docs/tool.md")]
#[doc(inline)]
pub use phantom_macros::tool;

/// Everything a router needs: `use phantom::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Bearer, Blob, CompleteContext, Completion, Connect, Content, Contents, Cursor, Error, Json,
        Page, PromptMessage, PromptReply, Request, Resource, ResourceContents, Server, Session,
        ToolResult, WwwAuthenticate, mcp_router, prompt, resource, tool,
    };
}

#[doc(hidden)]
pub mod __private {
    //! Items generated code refers to. Not a public API.
    pub use crate::param::{ArgsBuilder, CallParam, CallParts};
    pub use crate::router::{
        BoxFuture, CompleteFn, MetaValue, PromptDef, ReadParts, ResourceDef, Router, RouterDef,
        RouterInfo, ToolDef,
    };
    pub use crate::tool::ToolAnnotations;
    pub use crate::{
        CompleteContext, Completion, Error, IntoCompletion, IntoContents, IntoPromptReply,
        IntoToolResult, PromptReply, Server, ToolResult, uri::FromUriParam,
    };
    pub use schemars::{Schema, SchemaGenerator};
    pub use std::boxed::Box;
    pub use std::option::Option::{self, None, Some};
    pub use std::result::Result::{self, Err, Ok};
    pub use std::sync::OnceLock;
    pub use std::vec::Vec;

    use crate::request::Request;
    use crate::session::Session;

    /// A context parameter of a `#[resource]` handler (anything but a URI parameter).
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is neither a URI parameter of this template nor a context type",
        label = "this argument has no `<param>` in the URI template",
        note = "add `<name>` to the template for each URI argument, or take `&Session` / `&Request`"
    )]
    pub trait ResourceContext<'a>: Sized {
        /// Reads the parameter from the request.
        fn from_read(parts: &ReadParts<'a>) -> Self;
    }

    impl<'a> ResourceContext<'a> for &'a Session {
        fn from_read(parts: &ReadParts<'a>) -> Self {
            parts.session
        }
    }

    impl<'a> ResourceContext<'a> for &'a Request {
        fn from_read(parts: &ReadParts<'a>) -> Self {
            parts.request
        }
    }

    /// The types an `#[arg(header = "…")]` argument may have: the header carries one string,
    /// integer or boolean.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be mirrored in an `Mcp-Param-*` header",
        label = "`#[arg(header = …)]` needs a string, integer or boolean argument",
        note = "use `String`, an integer type, `bool`, or an `Option` of one of these"
    )]
    pub trait McpHeaderType {}
    impl McpHeaderType for String {}
    impl McpHeaderType for bool {}
    impl<T: McpHeaderType> McpHeaderType for Option<T> {}
    macro_rules! header_ints {
        ($($t:ty),*) => { $(impl McpHeaderType for $t {})* };
    }
    header_ints!(
        i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
    );

    /// Fails to compile unless `T` may be mirrored in a header.
    pub fn assert_header_type<T: McpHeaderType>() {}

    /// Gives a completion closure its higher-ranked signature.
    pub fn complete_fn<S>(f: CompleteFn<S>) -> CompleteFn<S> {
        f
    }

    /// Boxes a handler's own future with its output converted: the trampolines of tools and
    /// prompts add no state machine of their own. Requires the handler's future to be `Send`.
    pub fn map_boxed<'a, F, U>(
        future: F,
        convert: impl FnOnce(F::Output) -> U + Send + 'a,
    ) -> BoxFuture<'a, U>
    where
        F: std::future::Future + Send + 'a,
    {
        Box::pin(futures_util::FutureExt::map(future, convert))
    }

    /// A ready value as a boxed future (argument errors, plain `fn` handlers).
    pub fn ready_boxed<'a, T: Send + 'a>(value: T) -> BoxFuture<'a, T> {
        Box::pin(std::future::ready(value))
    }

    /// Pins the future of a handler as `Send`, so a non-`Send` handler fails at its signature.
    pub fn assert_send<'a, T>(
        f: impl std::future::Future<Output = T> + Send + 'a,
    ) -> BoxFuture<'a, T> {
        Box::pin(f)
    }
}
