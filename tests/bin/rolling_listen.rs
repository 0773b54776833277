//! One 2026-07-28 `subscriptions/listen` kept open through `phantom::client`, for the rolling
//! restart test (`tests/harness/rolling/`): `rolling-listen URL` connects in 2026-07-28, and
//! prints one line per notification the listen stream brings (`<method>`, then the URI of a
//! resource update), flushed at once, until its standard input closes. The client opens the
//! listen again by itself whenever a node ends it (its drain ends listens with their final
//! result); each opening shows as a `notifications/subscriptions/acknowledged` line.

use std::io::Write as _;

use phantom::client::{Client, Era};
use serde_json::Value;

#[tokio::main]
async fn main() {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: rolling-listen URL");
        std::process::exit(2);
    };
    let client = Client::http(&url)
        .era(Era::Modern)
        .on_notification(|method, params| {
            let uri = params.get("uri").and_then(Value::as_str).unwrap_or("");
            let mut out = std::io::stdout().lock();
            // The test reads the lines as they come; a closed pipe ends the test anyway.
            let _ = writeln!(out, "{method} {uri}").and_then(|()| out.flush());
        })
        .connect()
        .await;
    let client = match client {
        Ok(client) => client,
        Err(e) => {
            eprintln!("rolling-listen: cannot connect to {url}: {e}");
            std::process::exit(1);
        }
    };
    println!("connected");
    // Until the test closes our standard input.
    let _ = tokio::task::spawn_blocking(|| std::io::read_to_string(std::io::stdin())).await;
    client.close().await;
}
