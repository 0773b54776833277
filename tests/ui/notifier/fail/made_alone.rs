// An app that makes its own notifier: no served router hears it, so the compiler says where the
// served one comes from.
#![deny(deprecated)]

use phantom::prelude::*;

#[derive(Clone)]
struct Jobs {
    notifier: Notifier,
}

#[mcp_router(name = "jobs", version = "1.0.0")]
impl Jobs {}

fn main() {
    let app = Jobs {
        notifier: Notifier::new(),
    };
    let _ = app.notifier;
}
