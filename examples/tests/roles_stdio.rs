//! Runs the `roles` binary with `--stdio`, its token in `HANDBOOK_TOKEN` as an MCP client
//! configures a stdio server, and talks to it over real pipes: the token's scopes apply as over
//! HTTP, and without a token `initialize` is refused.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// The binary serving stdio, started with `token` (none: the variable unset).
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn start(token: Option<&str>) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_roles"));
        command
            .arg("--stdio")
            .env_remove("HANDBOOK_TOKEN")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(token) = token {
            command.env("HANDBOOK_TOKEN", token);
        }
        let mut child = command.spawn().expect("roles starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Self {
            child,
            stdin,
            stdout,
            next_id: 0,
        }
    }

    fn send(&mut self, msg: &Value) {
        writeln!(self.stdin, "{msg}").expect("write");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request and reads its answer (the next line).
    fn request(&mut self, method: &str, params: &Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        let reply: Value = serde_json::from_str(&line).expect("one JSON reply per line");
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }

    fn initialize(&mut self) -> Value {
        let reply = self.request(
            "initialize",
            &json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}),
        );
        if reply.get("result").is_some() {
            self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        }
        reply
    }

    fn call(&mut self, tool: &str, arguments: &Value) -> Value {
        self.request("tools/call", &json!({"name": tool, "arguments": arguments}))
    }

    /// Closes stdin; the server ends.
    fn stop(mut self) {
        drop(self.stdin);
        assert!(self.child.wait().expect("roles ends").success());
    }
}

#[test]
fn a_reader_token_from_the_environment_reads_and_is_refused_writing() {
    let mut server = Server::start(Some("reader-token"));
    assert_eq!(
        server.initialize()["result"]["serverInfo"]["name"],
        "handbook"
    );
    let read = server.call("read_page", &json!({"name": "welcome"}));
    assert_eq!(
        read["result"]["content"][0]["text"], "Read the handbook before your first on-call.",
        "{read}"
    );
    let refused = server.call("write_page", &json!({"name": "welcome", "text": "gone"}));
    assert_eq!(refused["error"]["code"], -32001, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredScopes"],
        json!(["handbook:write"])
    );
    server.stop();
}

#[test]
fn an_admin_token_from_the_environment_writes_as_its_principal() {
    let mut server = Server::start(Some("admin-token"));
    let init = server.initialize();
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    let wrote = server.call(
        "write_page",
        &json!({"name": "on-call", "text": "Be kind."}),
    );
    assert_eq!(
        wrote["result"]["content"][0]["text"], "wrote `on-call`",
        "{wrote}"
    );
    let read = server.call("read_page", &json!({"name": "on-call"}));
    assert_eq!(read["result"]["content"][0]["text"], "Be kind. (admin)");
    server.stop();
}

#[test]
fn without_a_known_token_initialize_is_refused() {
    for token in [None, Some("guessed")] {
        let mut server = Server::start(token);
        let refused = server.initialize();
        assert_eq!(refused["error"]["code"], -32001, "{token:?}: {refused}");
        assert_eq!(refused["error"]["message"], "Unauthorized");
        server.stop();
    }
}
