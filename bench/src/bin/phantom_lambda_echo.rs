//! phantom-echo as an AWS Lambda function, invoked in process: `phantom_lambda::service` over
//! the echo server, wrapped as `lambda_http::run` wraps it (buffered: the Function URL event
//! parsed from JSON, converted into a request with its invocation context, the service's answer
//! converted into the Function URL response and serialized to JSON), without the Lambda runtime
//! API's HTTP round trip (the runtime's polling is Lambda's, not phantom's).
//!
//! Each invocation is a 2026-07-28 `tools/call echo {"text":"hello"}`, the listener's
//! `modern` scenario, in a Function URL (API Gateway HTTP API v2) event. The events are built
//! before the first invocation; the invocations run one after the other (one per instance, as
//! Lambda runs them) on a current-thread runtime, so every instruction of an invocation runs on
//! this thread inside `invocations`: `phantom-bench lambda` counts them with callgrind's
//! `--toggle-collect`.
//!
//! | env | values | default | effect |
//! |---|---|---|---|
//! | `WARMUP` | count | `2000` | invocations before the measured ones (outside `invocations`) |
//! | `N` | count | `20000` | measured invocations; the last answer is printed on stdout |

#[path = "../echo.rs"]
mod echo;

use lambda_http::tower::Service as _;

type Adapter = lambda_http::Adapter<'static, phantom_lambda::Response, phantom_lambda::Handler>;

/// The Function URL event of the `id`th `tools/call`.
fn event(id: usize) -> Vec<u8> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{{"name":"phantom-bench","version":"0.1"}},"io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    serde_json::to_vec(&serde_json::json!({
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": "/mcp",
        "rawQueryString": "",
        "headers": {
            "host": "localhost:9000",
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "echo",
            "x-forwarded-proto": "https"
        },
        "requestContext": {
            "accountId": "anonymous",
            "apiId": "phantombench",
            "domainName": "localhost:9000",
            "domainPrefix": "phantombench",
            "http": {
                "method": "POST",
                "path": "/mcp",
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": "phantom-bench"
            },
            "requestId": format!("invocation-{id}"),
            "routeKey": "$default",
            "stage": "$default",
            "time": "06/Dec/2026:20:00:00 +0000",
            "timeEpoch": 1_765_051_200_000_u64
        },
        "body": body,
        "isBase64Encoded": false
    }))
    .expect("a JSON value serializes")
}

/// One invocation, as the runtime makes it: the event's JSON in, the response's JSON out.
async fn invoke(adapter: &mut Adapter, event: &[u8]) -> Result<Vec<u8>, String> {
    let payload: lambda_http::request::LambdaRequest =
        serde_json::from_slice(event).map_err(|e| format!("event: {e}"))?;
    let invocation = lambda_http::LambdaEvent::new(payload, lambda_http::Context::default());
    let Ok(response) = adapter.call(invocation).await;
    serde_json::to_vec(&response).map_err(|e| format!("response: {e}"))
}

/// The warm-up: not counted.
#[inline(never)]
fn warm_up(
    rt: &tokio::runtime::Runtime,
    adapter: &mut Adapter,
    events: &[Vec<u8>],
) -> Result<(), String> {
    rt.block_on(async {
        for event in events {
            invoke(adapter, event).await?;
        }
        Ok(())
    })
}

/// The measured invocations (callgrind's `--toggle-collect` names this function); the last
/// answer.
#[inline(never)]
fn invocations(
    rt: &tokio::runtime::Runtime,
    adapter: &mut Adapter,
    events: &[Vec<u8>],
) -> Result<Vec<u8>, String> {
    rt.block_on(async {
        let mut last = Vec::new();
        for event in events {
            last = invoke(adapter, event).await?;
        }
        Ok(last)
    })
}

fn count(name: &str, default: usize) -> Result<usize, String> {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .map_err(|_| format!("{name} must be a count, not `{v}`")),
        Err(_) => Ok(default),
    }
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("phantom-lambda-echo: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let warmup = count("WARMUP", 2000)?;
    let n = count("N", 20000)?.max(1);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let warm: Vec<Vec<u8>> = (1..=warmup).map(event).collect();
    let measured: Vec<Vec<u8>> = (warmup + 1..=warmup + n).map(event).collect();
    let config =
        phantom_lambda::LambdaConfig::new().with_response(phantom_lambda::ResponseKind::Buffered);
    let dispatcher = phantom::dispatch::Dispatcher::new(echo::Echo);
    let mut adapter = Adapter::from(phantom_lambda::service(dispatcher, &config));
    warm_up(&rt, &mut adapter, &warm)?;
    let last = invocations(&rt, &mut adapter, &measured)?;
    let text = String::from_utf8_lossy(&last);
    if !text.contains(r#"\"text\":\"hello\""#) || !text.contains(r#""statusCode":200"#) {
        return Err(format!("unexpected answer: {text}"));
    }
    println!("{text}");
    Ok(())
}
