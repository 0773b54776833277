//! The command line: every command, its arguments and its `--help`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Cargo runs `cargo-phantom phantom …` for `cargo phantom …`.
#[derive(Debug, Parser)]
#[command(name = "cargo", bin_name = "cargo")]
pub(crate) enum Cargo {
    /// Make, run, try, check and install phantom MCP servers.
    #[command(version, propagate_version = true)]
    Phantom(Phantom),
}

/// `cargo phantom COMMAND`.
#[derive(Debug, Args)]
pub(crate) struct Phantom {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The commands of `cargo phantom`.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Create a new MCP server crate (a tool, a resource, a prompt and an in-process test).
    New(NewArgs),
    /// Build and run the server in this directory; rebuild and restart it on every change.
    Dev(DevArgs),
    /// List a server's tools, resources, resource templates and prompts.
    List(ListArgs),
    /// Call a tool: `call TOOL [JSON] (URL | -- COMMAND ARGS…)`.
    Call(CallArgs),
    /// Read a resource: `read URI (URL | -- COMMAND ARGS…)`.
    Read(ReadArgs),
    /// Get a prompt: `prompt NAME [JSON] (URL | -- COMMAND ARGS…)`.
    Prompt(CallArgs),
    /// Report a server: capabilities, tools with schemas, resources, prompts, skills and
    /// schema portability findings.
    Inspect(InspectArgs),
    /// Sign in to an OAuth-protected server: opens the browser (or prints the URL) and keeps
    /// the tokens for `list`, `call`, `read`, `prompt` and `inspect`.
    Login(LoginArgs),
    /// Forget the tokens kept for a server.
    Logout(LogoutArgs),
    /// Add a server to an MCP host's configuration (Claude Desktop, Claude Code, Cursor, VS
    /// Code) or print a generic `mcp.json` entry.
    Install(InstallArgs),
}

/// `cargo phantom new`.
#[derive(Debug, Args)]
pub(crate) struct NewArgs {
    /// The crate's name (and its directory, made in the current one).
    pub(crate) name: String,
    /// Serve only stdio (no HTTP): for servers a host starts as a child process.
    #[arg(long)]
    pub(crate) stdio_only: bool,
    /// Depend on a local phantom checkout (its `phantom/` directory) instead of crates.io.
    #[arg(long, value_name = "DIR")]
    pub(crate) path: Option<PathBuf>,
    /// Also depend on `phantom-redis` (sessions, tasks and notifications shared in Redis).
    #[arg(long)]
    pub(crate) redis: bool,
    /// Also enable phantom's `client` feature (`phantom::client`, `phantom::gateway`).
    #[arg(long)]
    pub(crate) client: bool,
}

/// `cargo phantom dev`.
#[derive(Debug, Args)]
pub(crate) struct DevArgs {
    /// The binary to run, when the package has several.
    #[arg(long, value_name = "B")]
    pub(crate) bin: Option<String>,
    /// The address the server listens on (passed to it as `--addr`), kept across restarts.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:4000")]
    pub(crate) addr: String,
    /// Also serve the MCP Apps preview host (passes `--preview`; open `http://ADDR/mcp/preview`).
    #[arg(long)]
    pub(crate) preview: bool,
    /// Arguments after `--` are passed to the server too.
    #[arg(last = true, value_name = "SERVER ARGS")]
    pub(crate) server_args: Vec<String>,
}

/// Which protocol era to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum EraArg {
    /// 2026-07-28 when the server answers `server/discover`, else a 2025-11-25 session.
    Auto,
    /// 2025-11-25 and earlier: `initialize`, a session.
    Legacy,
    /// 2026-07-28: stateless requests.
    Modern,
}

/// Where a server is and how to talk to it; shared by `list`, `call`, `read`, `prompt` and
/// `inspect`.
#[derive(Debug, Args)]
pub(crate) struct Connection {
    /// The protocol era.
    #[arg(long, value_enum, default_value = "auto")]
    pub(crate) era: EraArg,
    /// An HTTP header sent with every request (repeatable).
    #[arg(long = "header", value_name = "NAME:VALUE")]
    pub(crate) headers: Vec<String>,
    /// Sends `Authorization: Bearer TOKEN`.
    #[arg(long, value_name = "TOKEN")]
    pub(crate) bearer: Option<String>,
    /// Prints the results as JSON (one document on stdout) for scripts.
    #[arg(long)]
    pub(crate) json: bool,
    /// Declines what the server asks (elicitation) instead of asking on the terminal.
    #[arg(long)]
    pub(crate) no_input: bool,
    /// The lowest level of log messages to ask the server for.
    #[arg(long, value_name = "LEVEL", default_value = "info")]
    pub(crate) log_level: String,
    /// Seconds one request may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub(crate) timeout: u64,
    /// The file `cargo phantom login` keeps tokens in (default: `$PHANTOM_TOKEN_FILE`, else
    /// `phantom/tokens.json` in the user's configuration directory).
    #[arg(long, value_name = "FILE")]
    pub(crate) token_file: Option<PathBuf>,
    /// A stdio server to start: `-- COMMAND ARGS…`.
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// `cargo phantom list`.
#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// The server's URL (`http://127.0.0.1:4000/mcp`), or `-- COMMAND ARGS…` for stdio.
    pub(crate) url: Option<String>,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// `cargo phantom call` and `cargo phantom prompt`.
#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    /// The tool's or prompt's name.
    pub(crate) name: String,
    /// The arguments as a JSON object (`'{"query": "memory"}'`), and the server's URL, in either
    /// order; without a URL, `-- COMMAND ARGS…` starts a stdio server.
    #[arg(value_name = "JSON | URL", num_args = 0..=2)]
    pub(crate) rest: Vec<String>,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// `cargo phantom read`.
#[derive(Debug, Args)]
pub(crate) struct ReadArgs {
    /// The resource's URI.
    pub(crate) uri: String,
    /// The server's URL, or `-- COMMAND ARGS…` for stdio.
    pub(crate) url: Option<String>,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// `cargo phantom inspect`.
#[derive(Debug, Args)]
pub(crate) struct InspectArgs {
    /// The server's URL, or `-- COMMAND ARGS…` for stdio.
    pub(crate) url: Option<String>,
    /// Exits non-zero when a schema has a portability finding.
    #[arg(long)]
    pub(crate) strict: bool,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// `cargo phantom login`.
#[derive(Debug, Args)]
pub(crate) struct LoginArgs {
    /// The server's URL (`https://mcp.example.com/mcp`).
    pub(crate) url: String,
    /// Prints the URL to open instead of opening the browser.
    #[arg(long)]
    pub(crate) no_browser: bool,
    /// A client registered beforehand with the authorization server (else the client registers
    /// itself, or uses `--client-metadata-url`).
    #[arg(long, value_name = "ID")]
    pub(crate) client_id: Option<String>,
    /// The secret of `--client-id` (a confidential client).
    #[arg(long, value_name = "SECRET", requires = "client_id")]
    pub(crate) client_secret: Option<String>,
    /// The HTTPS URL of a client metadata document this client is known by, for authorization
    /// servers that take one.
    #[arg(long, value_name = "URL")]
    pub(crate) client_metadata_url: Option<String>,
    /// The loopback port the redirect comes back to (default: any free port; a pre-registered
    /// client needs the port it registered, as `http://127.0.0.1:PORT/callback`).
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub(crate) port: u16,
    /// Seconds to wait for the sign-in in the browser.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub(crate) wait: u64,
    /// The protocol era.
    #[arg(long, value_enum, default_value = "auto")]
    pub(crate) era: EraArg,
    /// The file the tokens are kept in (default: `$PHANTOM_TOKEN_FILE`, else
    /// `phantom/tokens.json` in the user's configuration directory).
    #[arg(long, value_name = "FILE")]
    pub(crate) token_file: Option<PathBuf>,
}

/// `cargo phantom logout`.
#[derive(Debug, Args)]
pub(crate) struct LogoutArgs {
    /// The server's URL, as given to `login`.
    pub(crate) url: String,
    /// The file the tokens are kept in (as for `login`).
    #[arg(long, value_name = "FILE")]
    pub(crate) token_file: Option<PathBuf>,
}

/// The MCP hosts `install` writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Host {
    /// Claude Desktop: `claude_desktop_config.json`, `mcpServers` (stdio only).
    ClaudeDesktop,
    /// Claude Code: `~/.claude.json` (`--scope user`) or `./.mcp.json` (`--scope project`).
    ClaudeCode,
    /// Cursor: `~/.cursor/mcp.json`, `mcpServers`.
    Cursor,
    /// VS Code: `./.vscode/mcp.json`, `servers`.
    Vscode,
    /// A generic `{"mcpServers": {…}}`, printed (or merged into `--config FILE`).
    McpJson,
}

/// Where Claude Code keeps the entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Scope {
    /// `~/.claude.json`: every project of this user.
    User,
    /// `./.mcp.json`: this project, shared through version control.
    Project,
}

/// `cargo phantom install`.
#[derive(Debug, Args)]
pub(crate) struct InstallArgs {
    /// The host whose configuration to write.
    #[arg(value_enum)]
    pub(crate) host: Host,
    /// The entry's name (default: the command's file name).
    #[arg(long, value_name = "N")]
    pub(crate) name: Option<String>,
    /// A server the host reaches over Streamable HTTP at this URL.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub(crate) http: Option<String>,
    /// An environment variable of the started server (repeatable).
    #[arg(long = "env", value_name = "K=V")]
    pub(crate) env: Vec<String>,
    /// An HTTP header the host sends to an `--http` server (repeatable).
    #[arg(long = "header", value_name = "NAME:VALUE")]
    pub(crate) headers: Vec<String>,
    /// Claude Code only: where the entry goes.
    #[arg(long, value_enum, default_value = "user")]
    pub(crate) scope: Scope,
    /// Writes this file instead of the host's own.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// Prints the file as it would be written; writes nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Replaces an entry of the same name that differs.
    #[arg(long)]
    pub(crate) force: bool,
    /// The server the host starts (stdio): `-- COMMAND ARGS…`.
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}
