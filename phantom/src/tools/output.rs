//! What a declared tool's trampoline hands the dispatcher: generated code names these through
//! `phantom::__private`; they are no public path.

use super::{IntoToolResult, ToolResult};

/// A declared tool's handler running: a plain `fn` handler's result (or an argument error) is
/// ready at once and kept as it is, an `async` one's future is boxed.
pub enum ToolFuture<'a> {
    /// The result, until it is taken.
    Ready(Option<ToolOutput>),
    /// The handler's future, its output converted.
    Boxed(crate::kernel::BoxFuture<'a, ToolOutput>),
}

impl std::future::Future for ToolFuture<'_> {
    type Output = ToolOutput;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<ToolOutput> {
        match self.get_mut() {
            // As `std::future::Ready`: a future is not polled after it completed.
            Self::Ready(output) => {
                std::task::Poll::Ready(output.take().expect("`ToolFuture` polled after completion"))
            }
            Self::Boxed(future) => future.as_mut().poll(cx),
        }
    }
}

/// A declared tool's result as its handler's trampoline hands it to the dispatcher: most tools
/// return one text (`String`, `&'static str`), which the reply is written around
/// (`Body::Text`) without the list of blocks of a [`ToolResult`] (an
/// allocation per call).
#[derive(Debug)]
pub enum ToolOutput {
    /// What [`ToolResult::text`] holds: one text block, not an error.
    Text(String),
    /// Any other result.
    Result(ToolResult),
}

impl ToolOutput {
    /// A handler's value as a trampoline hands it over: its text when
    /// [`IntoToolResult::into_text`] gives one, else its [`ToolResult`].
    pub fn new<T: IntoToolResult>(value: T) -> Self {
        match value.into_text() {
            Ok(text) => Self::Text(text),
            Err(value) => Self::Result(value.into_tool_result()),
        }
    }
}
