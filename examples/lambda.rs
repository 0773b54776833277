//! `lambda`: the `everything` fixture server (every tool, resource and prompt of the official
//! conformance suite) as an AWS Lambda function, through `phantom-lambda`.
//!
//! ```text
//! cargo lambda watch -p phantom-examples --bin lambda --disable-cors --env-var PHANTOM_REDIS=redis://127.0.0.1:6379/
//! # its Function URL, on loopback: http://127.0.0.1:9000/lambda-url/lambda/mcp
//! ```
//!
//! Set in the environment, each optional:
//! - `PHANTOM_REDIS`: a Redis URL; sessions, events, changes and tasks are kept there, so that
//!   every instance of the function (and the next, after a cold start) sees them. Without it
//!   the function keeps nothing across instances, and serves the 2025-11-25 era stateless
//!   (`HttpConfig::with_stateless`);
//! - `PHANTOM_STATE_KEY`: the key every instance seals 2026-07-28 `requestState` with (32
//!   bytes in base64);
//! - `PHANTOM_ALLOWED_HOSTS`, `PHANTOM_ALLOWED_ORIGINS`, `PHANTOM_PATH`, `PHANTOM_RESPONSE`:
//!   see `phantom_lambda::LambdaConfig::from_env` (deployed, `PHANTOM_ALLOWED_HOSTS` names the
//!   Function URL's host).

#[allow(dead_code)]
#[path = "everything.rs"]
mod everything;

fn invalid(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string())
}

#[tokio::main]
async fn main() -> Result<(), phantom_lambda::Error> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .without_time()
        .init();
    let mut lambda = phantom_lambda::LambdaConfig::from_env().map_err(invalid)?;
    let mut config =
        phantom_lambda::config_from_env(phantom::Config::default()).map_err(invalid)?;
    match std::env::var("PHANTOM_REDIS") {
        Ok(url) => {
            let backend = phantom_redis::backend(&url)
                .await
                .map_err(|e| std::io::Error::other(format!("PHANTOM_REDIS {url}: {e}")))?;
            config = config.with_backend(backend);
        }
        Err(_) => {
            let http = lambda.http().clone().with_stateless(true);
            lambda = lambda.with_http(http);
        }
    }
    // `test://watched-resource` changes every three seconds while the instance runs (a frozen
    // instance announces nothing; the others, or this one once thawed, do).
    everything::watch_resource(config.notifier().clone());
    let dispatcher = phantom::dispatch::Dispatcher::with_config(everything::Everything, config);
    phantom_lambda::run(dispatcher, lambda).await
}
