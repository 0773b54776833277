#[tokio::main]
async fn main() -> std::io::Result<()> {
    // phantom logs through `tracing`, to stderr: stdout carries the protocol.
    tracing_subscriber::fmt().with_writer(std::io::stderr).init();
    phantom::stdio::run({{Type}}).await
}
