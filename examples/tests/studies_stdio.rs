//! Runs the `studies` binary as the README says (`--stdio`) and talks to it over real pipes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

#[test]
fn studies_answers_initialize_and_tools_call_over_stdio() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_studies"))
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("studies starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut send = |msg: Value| {
        writeln!(stdin, "{msg}").expect("write");
        stdin.flush().expect("flush");
    };
    let mut recv = || {
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read");
        serde_json::from_str::<Value>(&line).expect("one JSON reply per line")
    };

    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}),
    );
    let init = recv();
    assert_eq!(init["id"], 1);
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["result"]["serverInfo"]["name"], "studies");
    assert!(init["result"]["capabilities"]["tools"].is_object());

    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": "memory", "limit": 1}}}));
    let call = recv();
    assert_eq!(
        call["id"], 2,
        "the notification got no reply, so the next line answers id 2"
    );
    assert_eq!(call["result"]["structuredContent"]["total"], 2);
    assert_eq!(
        call["result"]["structuredContent"]["studies"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );

    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": "x", "limit": 99}}}));
    let bad = recv();
    assert_eq!(bad["result"]["isError"], true);
    let text = bad["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("`limit`"), "names the field: {text}");

    // A note on a subscribed study: the update comes as a line next to the result.
    send(
        json!({"jsonrpc": "2.0", "id": 4, "method": "resources/subscribe",
        "params": {"uri": "studies:///studies/1"}}),
    );
    assert_eq!(recv()["result"], json!({}));
    send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "annotate", "arguments": {"id": 1, "note": "seen"}}}));
    let mut got = [recv(), recv()];
    got.sort_by_key(|m| m.get("id").is_some());
    assert_eq!(
        got[0],
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "studies:///studies/1"}})
    );
    assert_eq!(got[1]["id"], 5);

    drop(stdin);
    let status = child.wait().expect("exits");
    assert!(status.success(), "exits cleanly at end of input");
}
