//! [`Slow`]: a server with a tool that takes the time it is told, for tests of requests in flight.

use std::time::Duration;

use phantom::prelude::*;

/// A router with one tool, `wait`, that answers `"done"` after `ms` milliseconds.
#[derive(Clone, Debug, Default)]
pub struct Slow;

#[mcp_router(name = "slow", version = "1.0.0")]
impl Slow {
    /// Waits `ms` milliseconds.
    #[tool]
    async fn wait(&self, ms: u64) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        "done".into()
    }
}
