//! `install`: the host's documented configuration entry for a server, merged into the host's
//! configuration file (a backup of the old one kept as `<file>.bak`), or printed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Map, Value, json};

use crate::cli::{Host, InstallArgs, Scope};
use crate::{Failure, Outcome};

/// How the host starts or reaches the server.
enum Server<'a> {
    Stdio {
        command: String,
        args: &'a [String],
        env: Map<String, Value>,
    },
    Http {
        url: &'a str,
        headers: Map<String, Value>,
    },
}

/// The host's name for its list of servers in the file.
fn servers_key(host: Host) -> &'static str {
    match host {
        Host::Vscode => "servers",
        _ => "mcpServers",
    }
}

/// The host's configuration file, from its documentation.
fn config_path(args: &InstallArgs) -> Result<Option<PathBuf>, Failure> {
    if let Some(path) = &args.config {
        return Ok(Some(path.clone()));
    }
    let home = || {
        std::env::var_os("HOME").map(PathBuf::from).ok_or_else(|| {
            Failure::new("`HOME` is not set").help("set it, or name the file with `--config FILE`")
        })
    };
    Ok(Some(match (args.host, args.scope) {
        (Host::ClaudeDesktop, _) => claude_desktop_dir(&home()?).join("claude_desktop_config.json"),
        (Host::ClaudeCode, Scope::User) => home()?.join(".claude.json"),
        (Host::ClaudeCode, Scope::Project) => PathBuf::from(".mcp.json"),
        (Host::Cursor, _) => home()?.join(".cursor").join("mcp.json"),
        (Host::Vscode, _) => Path::new(".vscode").join("mcp.json"),
        (Host::McpJson, _) => return Ok(None),
    }))
}

/// Where Claude Desktop keeps its configuration on this platform.
fn claude_desktop_dir(home: &Path) -> PathBuf {
    if cfg!(target_os = "macos") {
        home.join("Library/Application Support/Claude")
    } else if cfg!(windows) {
        std::env::var_os("APPDATA")
            .map_or_else(|| home.join("AppData/Roaming"), PathBuf::from)
            .join("Claude")
    } else {
        std::env::var_os("XDG_CONFIG_HOME")
            .map_or_else(|| home.join(".config"), PathBuf::from)
            .join("Claude")
    }
}

/// `K=V` or `K:V` pairs as a JSON object.
fn pairs(items: &[String], sep: char, flag: &str) -> Result<Map<String, Value>, Failure> {
    let mut out = Map::new();
    for item in items {
        let Some((k, v)) = item.split_once(sep) else {
            return Err(Failure::new(format!("`{item}` has no `{sep}`"))
                .help(format!("write it as `{flag} NAME{sep}VALUE`")));
        };
        out.insert(k.trim().to_owned(), json!(v.trim()));
    }
    Ok(out)
}

fn server(args: &InstallArgs) -> Result<Server<'_>, Failure> {
    if let Some(url) = &args.http {
        if !args.env.is_empty() {
            return Err(Failure::new("`--env` applies to a server the host starts")
                .help("an HTTP server reads its own environment; leave `--env` out, or install a command after `--`"));
        }
        return Ok(Server::Http {
            url,
            headers: pairs(&args.headers, ':', "--header")?,
        });
    }
    let Some((program, rest)) = args.command.split_first() else {
        return Err(Failure::new("no server given").help(
            "add `--http URL` for a running server, or `-- COMMAND ARGS…` for one the host starts",
        ));
    };
    if !args.headers.is_empty() {
        return Err(Failure::new("`--header` applies to an `--http` server")
            .help("a server the host starts gets `--env K=V` instead"));
    }
    // The host starts the command from a directory of its own: a relative path is made absolute.
    let command = if program.contains(std::path::MAIN_SEPARATOR) || program.contains('/') {
        std::fs::canonicalize(program)
            .map_err(|e| {
                Failure::new(format!("cannot find `{program}`: {e}")).help(
                    "build the server first (`cargo build --release`), then give the binary's path",
                )
            })?
            .to_string_lossy()
            .into_owned()
    } else {
        program.clone()
    };
    Ok(Server::Stdio {
        command,
        args: rest,
        env: pairs(&args.env, '=', "--env")?,
    })
}

/// The entry in the shape the host documents.
fn entry(host: Host, server: &Server<'_>) -> Result<Value, Failure> {
    let typed = matches!(host, Host::ClaudeCode | Host::Vscode);
    let mut entry = Map::new();
    match server {
        Server::Stdio { command, args, env } => {
            if typed {
                entry.insert("type".into(), json!("stdio"));
            }
            entry.insert("command".into(), json!(command));
            entry.insert("args".into(), json!(args));
            if !env.is_empty() {
                entry.insert("env".into(), Value::Object(env.clone()));
            }
        }
        Server::Http { url, headers } => {
            if host == Host::ClaudeDesktop {
                return Err(Failure::new("Claude Desktop's configuration file starts stdio servers only")
                    .help("add a remote server in Claude Desktop under Settings → Connectors, or install a command after `--`"));
            }
            if typed {
                entry.insert("type".into(), json!("http"));
            }
            entry.insert("url".into(), json!(url));
            if !headers.is_empty() {
                entry.insert("headers".into(), Value::Object(headers.clone()));
            }
        }
    }
    Ok(Value::Object(entry))
}

/// The entry's default name: the command's file name.
fn default_name(server: &Server<'_>) -> Result<String, Failure> {
    match server {
        Server::Stdio { command, .. } => Path::new(command)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .ok_or_else(|| {
                Failure::new("cannot name the entry").help("give it a name with `--name N`")
            }),
        Server::Http { .. } => {
            Err(Failure::new("an `--http` entry needs a name").help("give it one with `--name N`"))
        }
    }
}

/// `cargo phantom install`.
pub(crate) fn run(args: &InstallArgs) -> Outcome {
    let server = server(args)?;
    let entry = entry(args.host, &server)?;
    let name = match &args.name {
        Some(name) => name.clone(),
        None => default_name(&server)?,
    };
    let key = servers_key(args.host);
    let Some(path) = config_path(args)? else {
        // `mcp-json` without `--config`: the document, on stdout.
        println!("{}", pretty(&json!({key: {name: entry}})));
        return Ok(ExitCode::SUCCESS);
    };
    let existing = read(&path)?;
    let mut document = existing.clone().unwrap_or_else(|| json!({}));
    let Some(root) = document.as_object_mut() else {
        return Err(
            Failure::new(format!("`{}` is not a JSON object", path.display()))
                .help("fix or move the file, then run again"),
        );
    };
    let servers = root.entry(key).or_insert_with(|| json!({}));
    let Some(servers) = servers.as_object_mut() else {
        return Err(
            Failure::new(format!("`{key}` in `{}` is not an object", path.display()))
                .help("fix the file, then run again"),
        );
    };
    match servers.get(&name) {
        Some(old) if *old == entry => {
            println!("`{name}` is in `{}` already, unchanged", path.display());
            return Ok(ExitCode::SUCCESS);
        }
        Some(old) if !args.force => {
            return Err(Failure::new(format!(
                "`{}` has an entry `{name}` already: {old}",
                path.display()
            ))
            .help("pass `--force` to replace it, or choose another `--name`"));
        }
        _ => {}
    }
    servers.insert(name.clone(), entry);
    let text = pretty(&document);
    if args.dry_run {
        println!("would write `{}` (--dry-run):\n{text}", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    write(&path, existing.is_some(), &text)?;
    println!("added `{name}` to `{}`", path.display());
    if existing.is_some() {
        println!("the previous file is `{}`", backup_path(&path).display());
    }
    Ok(ExitCode::SUCCESS)
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string()) + "\n"
}

/// The file's JSON, `None` when it does not exist (or is empty).
fn read(path: &Path) -> Result<Option<Value>, Failure> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Failure::new(format!(
                "cannot read `{}`: {e}",
                path.display()
            )));
        }
    };
    if text.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str(&text).map(Some).map_err(|e| {
        Failure::new(format!("`{}` is not JSON: {e}", path.display()))
            .help("fix the file (the host would not read it either), then run again")
    })
}

fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".bak");
    PathBuf::from(name)
}

/// Writes `text` to `path`: the old file copied to `<file>.bak` first, the new one written
/// beside it and renamed over it, so a failure leaves the old file whole.
fn write(path: &Path, existed: bool, text: &str) -> Result<(), Failure> {
    let failed = |what: &str, e: std::io::Error| {
        Failure::new(format!("cannot {what} `{}`: {e}", path.display()))
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| failed("create the directory of", e))?;
    }
    if existed {
        std::fs::copy(path, backup_path(path)).map_err(|e| failed("back up", e))?;
    }
    let mut temp = path.as_os_str().to_owned();
    temp.push(".tmp");
    std::fs::write(&temp, text).map_err(|e| failed("write", e))?;
    // The host's file may hold secrets (tokens in `env`): it keeps its permissions.
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(&temp, meta.permissions()).map_err(|e| failed("write", e))?;
    }
    std::fs::rename(&temp, path).map_err(|e| failed("replace", e))
}
