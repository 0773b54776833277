//! Methods named almost like a callback whose signatures do not look like one are ordinary
//! helpers: they stay inherent methods, callable as usual.

use phantom::prelude::*;

#[derive(Clone)]
struct S {
    sessions: usize,
}

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[tool]
    async fn status(&self) -> String {
        format!("{} {}", self.terminated(), self.connected())
    }

    /// One edit from `terminate`, but neither `async` nor taking a `&Session`.
    fn terminated(&self) -> bool {
        false
    }

    fn connected(&self) -> usize {
        self.sessions
    }

    /// Two edits from `disconnect` and `async`, but without its `&Session` parameter.
    async fn disconnected(&self) -> bool {
        self.terminated()
    }
}

fn main() {
    let s = S { sessions: 2 };
    assert!(!s.terminated());
    assert_eq!(s.connected(), 2);
    let _ = s.disconnected();
}
