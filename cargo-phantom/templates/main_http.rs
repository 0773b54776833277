#[tokio::main]
async fn main() -> std::io::Result<()> {
    // phantom logs through `tracing`, to stderr: over stdio, stdout carries the protocol.
    tracing_subscriber::fmt().with_writer(std::io::stderr).init();
    let mut args = std::env::args().skip(1);
    let (mut addr, mut preview) = (String::from("127.0.0.1:4000"), false);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stdio" => return phantom::stdio::run({{Type}}).await,
            "--addr" => addr = args.next().ok_or_else(|| usage("`--addr` needs HOST:PORT"))?,
            "--preview" => preview = true,
            other => return Err(usage(&format!("unknown argument `{other}`"))),
        }
    }
    // Both protocol eras on one endpoint, `/mcp`; `--preview` adds the MCP Apps preview host.
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let local = listener.local_addr()?;
    let http = phantom::http::HttpConfig::for_addr(local).with_preview(preview);
    eprintln!("serving http://{local}/mcp");
    // On SIGTERM or SIGINT the server drains (requests in flight finish) and returns.
    phantom::http::serve_listener(listener, {{Type}}, http, phantom::shutdown_signal()).await
}

fn usage(problem: &str) -> std::io::Error {
    let usage = "usage: {{name}} [--addr HOST:PORT] [--preview] | --stdio";
    std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{problem}\n{usage}"))
}
