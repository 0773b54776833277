//! Items generated code (and the crate's own benches) refer to. Not a public API.

pub use crate::apps::{ResourceUi, ToolUi};
pub use crate::completion::complete::CompleteFn;
pub use crate::completion::{CompleteContext, Completion, IntoCompletion};
pub use crate::extract::call::{ArgsBuilder, CallParts, ReadParam};
pub use crate::extract::{CallParam, FromContext};
pub use crate::kernel::BoxFuture;
pub use crate::kernel::Callback;
pub use crate::prompts::table::PromptDef;
pub use crate::prompts::{IntoPromptReply, PromptReply};
pub use crate::protocol::descriptor::MetaValue;
pub use crate::resources::table::{ReadParts, ResourceDef};
pub use crate::resources::{FromUriParam, IntoContents};
pub use crate::router::{Router, RouterDef, RouterInfo};
pub use crate::skills::table::SkillDef;
pub use crate::skills::{IntoSkill, Skill};
pub use crate::tools::ToolAnnotations;
pub use crate::tools::output::{ToolFuture, ToolOutput};
pub use crate::tools::table::{TaskSupport, ToolDef};
pub use crate::tools::{IntoToolResult, ToolResult};
pub use crate::{Error, Server};
pub use phantom_macros::embed_skill;
pub use schemars::{Schema, SchemaGenerator};
pub use std::boxed::Box;
pub use std::option::Option::{self, None, Some};
pub use std::result::Result::{self, Err, Ok};
pub use std::sync::OnceLock;
pub use std::vec::Vec;

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

/// What `#[complete(with = …)]` names: a function of the server, the partial value and the
/// context that returns a future. The generated code calls it through [`call_completion`], so a
/// function of another shape is reported at the `with` value with this trait's message, not as
/// an argument count inside the call.
///
/// `M` tells the impls apart: besides the one every completion function meets there is one that
/// no function meets, so rustc, finding no impl that holds, names this trait rather than the `Fn`
/// bound inside the only impl.
#[diagnostic::on_unimplemented(
    message = "`#[complete(with = …)]` does not name a completion function",
    label = "expected `async fn(&self, value: &str, cx: &CompleteContext<'_>) -> impl IntoCompletion`",
    note = "a completion function is `async fn ids(&self, value: &str, cx: &CompleteContext<'_>) -> Vec<String>`; it may return any `impl IntoCompletion` (`Vec<String>`, `Completion`, or a `Result` of one)"
)]
pub trait CompletionFn<'a, S: 'a, M>: Sized {
    /// The function's future.
    type Future: std::future::Future + 'a;
    /// Calls the function.
    fn call(self, this: &'a S, value: &'a str, cx: &'a CompleteContext<'a>) -> Self::Future;
}

/// The marker of the impl of [`CompletionFn`] that functions meet.
pub enum ByRef {}

/// The marker of the impl of [`CompletionFn`] that no function meets.
pub enum Unmet {}

/// Implemented by nothing: the bound of the impl of [`CompletionFn`] that no function meets.
pub trait Never {}

impl<'a, S: 'a, F, Fut> CompletionFn<'a, S, ByRef> for F
where
    F: Fn(&'a S, &'a str, &'a CompleteContext<'a>) -> Fut,
    Fut: std::future::Future + 'a,
{
    type Future = Fut;
    fn call(self, this: &'a S, value: &'a str, cx: &'a CompleteContext<'a>) -> Fut {
        self(this, value, cx)
    }
}

impl<'a, S: 'a, F: Never> CompletionFn<'a, S, Unmet> for F {
    type Future = std::future::Ready<()>;
    fn call(self, _: &'a S, _: &'a str, _: &'a CompleteContext<'a>) -> Self::Future {
        std::future::ready(())
    }
}

/// Calls the completion function `f`, which must be a [`CompletionFn`].
pub fn call_completion<'a, S: 'a, M, F: CompletionFn<'a, S, M>>(
    f: F,
    this: &'a S,
    value: &'a str,
    cx: &'a CompleteContext<'a>,
) -> F::Future {
    f.call(this, value, cx)
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

/// A tool handler's own future, boxed, with its output converted (as [`map_boxed`]). Requires the
/// handler's future to be `Send`.
pub fn tool_mapped<'a, F>(
    future: F,
    convert: impl FnOnce(F::Output) -> ToolOutput + Send + 'a,
) -> ToolFuture<'a>
where
    F: std::future::Future + Send + 'a,
{
    ToolFuture::Boxed(map_boxed(future, convert))
}

/// A tool's result ready at once (a plain `fn` handler's, an argument error): not boxed.
pub fn tool_ready<'a>(output: ToolOutput) -> ToolFuture<'a> {
    ToolFuture::Ready(Some(output))
}

/// A ready value as a boxed future (a prompt's argument errors, plain `fn` prompt handlers).
pub fn ready_boxed<'a, T: Send + 'a>(value: T) -> BoxFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

/// Pins the future of a handler as `Send`, so a non-`Send` handler fails at its signature.
pub fn assert_send<'a, T>(f: impl std::future::Future<Output = T> + Send + 'a) -> BoxFuture<'a, T> {
    Box::pin(f)
}

// For the crate's benches: the codec steps of a request.
pub use crate::dispatch::envelope::ParamsHead;
pub use crate::protocol::jsonrpc::Incoming;

/// For the crate's benches: a message read as the server reads every inbound message (the one
/// reader), without a depth limit; `None` for what is not a JSON-RPC message.
pub fn read_message(text: &str) -> Option<(Incoming<'_>, ParamsHead<'_>)> {
    crate::dispatch::read_message_within(text, usize::MAX)?.ok()
}
#[cfg(feature = "http")]
pub use crate::transport::sse;

/// For the crate's benches: seals `answers` as a `requestState` for a `tools/call` with `params`
/// by `principal`, as an `input_required` round does.
pub fn seal_state(
    key: &crate::input::StateKey,
    principal: Option<&str>,
    params: &serde_json::value::RawValue,
    answers: serde_json::Map<String, serde_json::Value>,
) -> String {
    let binding = crate::input::Binding::new("tools/call", principal, Some(params.into()));
    crate::input::seal(
        key,
        &binding,
        answers,
        std::time::Duration::from_secs(600),
        1 << 20,
    )
    .expect("the answers fit")
}

/// For the crate's benches: one round of a retry, as the dispatcher does it: the request's
/// binding once, its `state` opened, and the answers (with `more`) sealed for the next round.
/// `None` when the state does not open.
pub fn state_round(
    key: &crate::input::StateKey,
    principal: Option<&str>,
    params: &serde_json::value::RawValue,
    state: &str,
    more: serde_json::Map<String, serde_json::Value>,
) -> Option<String> {
    let binding = crate::input::Binding::new("tools/call", principal, Some(params.into()));
    let mut answers = crate::input::open(key, &binding, state).ok()?;
    answers.extend(more);
    crate::input::seal(
        key,
        &binding,
        answers,
        std::time::Duration::from_secs(600),
        1 << 20,
    )
    .ok()
}
