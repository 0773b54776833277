//! `list`, `call`, `read` and `prompt` against `examples/studies`, over HTTP and over stdio, in
//! both eras: the `--json` output parses and holds what the server answers; the human output
//! shows it; progress goes to stderr; elicitation is declined with `--no-input`.

mod common;

use common::{Sandbox, both, json_of, serve_studies, studies};
use serde_json::Value;

/// The server part of the command line: a URL, or `-- studies --stdio`.
fn target(url: Option<&str>) -> Vec<String> {
    match url {
        Some(url) => vec![url.to_owned()],
        None => vec![
            "--".into(),
            studies().to_string_lossy().into_owned(),
            "--stdio".into(),
        ],
    }
}

fn run(sandbox: &Sandbox, head: &[&str], url: Option<&str>) -> std::process::Output {
    let mut args: Vec<String> = head.iter().map(|s| (*s).to_owned()).collect();
    args.extend(target(url));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    sandbox.run(&args)
}

fn names(items: &Value, key: &str) -> Vec<String> {
    items
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {items}"))
        .iter()
        .map(|i| i[key].as_str().unwrap().to_owned())
        .collect()
}

fn every_call(url: Option<&str>, era: &str) {
    let sandbox = Sandbox::new("calls");
    let listed = json_of(&run(&sandbox, &["list", "--json", "--era", era], url));
    let tools = names(&listed["tools"], "name");
    assert!(tools.contains(&"search".to_owned()), "{listed}");
    assert!(tools.contains(&"annotate".to_owned()), "{listed}");
    assert_eq!(names(&listed["prompts"], "name"), ["review"]);
    assert_eq!(
        names(&listed["resourceTemplates"], "uriTemplate"),
        ["studies:///studies/{id}"]
    );
    assert!(names(&listed["resources"], "uri").contains(&"studies:///summary".to_owned()));

    let args = [
        "call",
        "search",
        r#"{"query": "sleep"}"#,
        "--json",
        "--era",
        era,
    ];
    let called = run(&sandbox, &args, url);
    let result = json_of(&called);
    assert_eq!(result["isError"], Value::Null, "{result}");
    assert_eq!(
        result["structuredContent"]["studies"][0]["title"],
        "Sleep and memory consolidation"
    );
    // `search` reports progress; it is shown on stderr as it arrives.
    let stderr = String::from_utf8_lossy(&called.stderr);
    assert!(stderr.contains("progress: 1/"), "{}", both(&called));

    let args = ["read", "studies:///studies/1", "--json", "--era", era];
    let read = json_of(&run(&sandbox, &args, url));
    let text = read["contents"][0]["text"].as_str().unwrap();
    let study: Value = serde_json::from_str(text).unwrap();
    assert_eq!(study["id"], 1);

    let args = [
        "prompt",
        "review",
        r#"{"study_id": "1"}"#,
        "--json",
        "--era",
        era,
    ];
    let prompt = json_of(&run(&sandbox, &args, url));
    let message = prompt["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(
        message.contains("Sleep and memory consolidation"),
        "{prompt}"
    );

    // Human output: the text of the result and of the messages.
    let shown = run(
        &sandbox,
        &["call", "search", r#"{"query": "aspirin"}"#, "--era", era],
        url,
    );
    assert!(shown.status.success(), "{}", both(&shown));
    assert!(String::from_utf8_lossy(&shown.stdout).contains("Low-dose aspirin and migraine"));
    // A number where the prompt takes a string is sent as its text.
    let shown = run(
        &sandbox,
        &["prompt", "review", r#"{"study_id": 2}"#, "--era", era],
        url,
    );
    assert!(
        String::from_utf8_lossy(&shown.stdout).starts_with("# Review of study 2\nuser: "),
        "{}",
        both(&shown)
    );

    // A tool that asks the user: `--no-input` declines, and the tool says it kept the notes.
    // (Over stdio every command starts its own server, which forgets the note.)
    if url.is_none() {
        return;
    }
    let note = r#"{"id": 3, "note": "check the dose"}"#;
    json_of(&run(
        &sandbox,
        &["call", "annotate", note, "--json", "--era", era],
        url,
    ));
    let clear = [
        "call",
        "clear_notes",
        r#"{"id": 3}"#,
        "--no-input",
        "--era",
        era,
    ];
    let declined = run(&sandbox, &clear, url);
    assert!(declined.status.success(), "{}", both(&declined));
    assert_eq!(
        String::from_utf8_lossy(&declined.stdout).trim(),
        "kept the notes of study 3"
    );
    assert!(String::from_utf8_lossy(&declined.stderr).contains("(declined: --no-input)"));
}

#[test]
fn http_legacy() {
    let served = serve_studies();
    every_call(Some(&served.url), "legacy");
}

#[test]
fn http_modern() {
    let served = serve_studies();
    every_call(Some(&served.url), "modern");
}

#[test]
fn stdio_legacy() {
    every_call(None, "legacy");
}

#[test]
fn stdio_modern() {
    every_call(None, "modern");
}

#[test]
fn errors_say_what_to_do() {
    let sandbox = Sandbox::new("errors");
    let out = sandbox.run(&["list"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: no server given\n       help: "),
        "{stderr}"
    );

    let served = serve_studies();
    let out = sandbox.run(&["call", "search", "{not json", &served.url]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("are not JSON"), "{stderr}");
    // A tool error is an exit code, with the tool's text shown.
    let out = sandbox.run(&["call", "search", "{}", &served.url]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the tool `search` reported an error"),
        "{stderr}"
    );
}

/// The MCP project's reference server, over stdio. It needs Node 22 and the package, which
/// `tests/harness/server-everything.sh` installs into `.cache/` (printing its `dist/index.js`),
/// as `tests/harness/client/run.sh` does for phantom's client: run with `SERVER_EVERYTHING` (that
/// path) and `NODE` set, `cargo test -p cargo-phantom --test calls -- --ignored`.
#[test]
#[ignore = "needs Node 22 and @modelcontextprotocol/server-everything (SERVER_EVERYTHING, NODE): tests/harness/server-everything.sh installs them"]
fn server_everything_over_stdio() {
    let js = std::env::var("SERVER_EVERYTHING")
        .expect("SERVER_EVERYTHING: the path tests/harness/server-everything.sh prints");
    let node = std::env::var("NODE").unwrap_or_else(|_| "node".into());
    let sandbox = Sandbox::new("everything");
    let stdio = |head: &[&str]| {
        let mut args: Vec<&str> = head.to_vec();
        args.extend(["--", node.as_str(), js.as_str(), "stdio"]);
        sandbox.run(&args)
    };
    let listed = json_of(&stdio(&["list", "--json"]));
    assert!(
        names(&listed["tools"], "name").contains(&"echo".to_owned()),
        "{listed}"
    );
    let called = json_of(&stdio(&["call", "echo", r#"{"message": "hi"}"#, "--json"]));
    assert!(
        called["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("hi"),
        "{called}"
    );
    let first = listed["resources"][0]["uri"].as_str().unwrap().to_owned();
    let read = json_of(&stdio(&["read", &first, "--json"]));
    assert_eq!(read["contents"][0]["uri"], first.as_str());
    let no_required = |p: &&Value| {
        p["arguments"]
            .as_array()
            .is_none_or(|args| args.iter().all(|a| a["required"] != true))
    };
    let prompts = listed["prompts"].as_array().unwrap();
    let prompt = prompts
        .iter()
        .find(no_required)
        .expect("a prompt without required arguments");
    let prompt = prompt["name"].as_str().unwrap().to_owned();
    let got = json_of(&stdio(&["prompt", &prompt, "--json"]));
    assert!(got["messages"].is_array(), "{got}");
}

/// A server that wants a bearer token: every request is answered `401` with a challenge and an
/// OAuth error body (not JSON-RPC), as a server behind bearer authentication answers.
fn wants_a_token() -> String {
    use std::io::{BufRead as _, BufReader, Read as _, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream);
                loop {
                    // One request: its head, then its body (Content-Length).
                    let mut length = 0usize;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                        if let Some((name, value)) = line.split_once(':')
                            && name.eq_ignore_ascii_case("content-length")
                        {
                            length = value.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    let answer = r#"{"error":"invalid_token","error_description":"no token"}"#;
                    let response = format!(
                        "HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource\"\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
                        answer.len()
                    );
                    if reader.get_mut().write_all(response.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    format!("http://127.0.0.1:{port}/mcp")
}

#[test]
fn a_server_that_wants_a_token_says_so() {
    let sandbox = Sandbox::new("token");
    let url = wants_a_token();
    for era in ["auto", "legacy", "modern"] {
        let out = sandbox.run(&["list", "--era", era, &url]);
        assert_eq!(out.status.code(), Some(1), "{}", both(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("the server wants a token (HTTP 401)")
                && stderr.contains("resource_metadata=")
                && stderr.contains("--bearer TOKEN"),
            "{era}: {stderr}"
        );
    }
}
