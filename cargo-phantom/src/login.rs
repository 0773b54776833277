//! `login` and `logout`: the OAuth sign-in to a protected server (a loopback redirect, RFC
//! 8252), its tokens kept in a file of the user's that `list`, `call`, `read`, `prompt` and
//! `inspect` read (and refresh).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use phantom::client::{Authorize, Client, FileTokenStore, Loopback, OAuth, TokenStore as _};

use crate::cli::{Connection, LoginArgs, LogoutArgs};
use crate::remote::era;
use crate::{Failure, Outcome};

/// The token file: `--token-file`, else `$PHANTOM_TOKEN_FILE`, else `phantom/tokens.json` in
/// the user's configuration directory (`$XDG_CONFIG_HOME`, else `~/.config`; `%APPDATA%` on
/// Windows).
pub(crate) fn token_file(given: Option<&PathBuf>) -> Result<PathBuf, Failure> {
    if let Some(path) = given {
        return Ok(path.clone());
    }
    if let Some(path) = std::env::var_os("PHANTOM_TOKEN_FILE").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let config = if cfg!(windows) {
        std::env::var_os("APPDATA").map(PathBuf::from)
    } else {
        std::env::var_os("XDG_CONFIG_HOME")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
    };
    config
        .map(|dir| dir.join("phantom").join("tokens.json"))
        .ok_or_else(|| {
            Failure::new("no configuration directory to keep tokens in (neither `XDG_CONFIG_HOME` nor `HOME` is set)")
                .help("give the file with `--token-file FILE` or `PHANTOM_TOKEN_FILE`")
        })
}

/// `cargo phantom login`.
pub(crate) async fn login(args: &LoginArgs) -> Outcome {
    if !(args.url.starts_with("http://") || args.url.starts_with("https://")) {
        return Err(
            Failure::new(format!("`{}` is not an http:// or https:// URL", args.url))
                .help("give the server's URL (`https://mcp.example.com/mcp`)"),
        );
    }
    let path = token_file(args.token_file.as_ref())?;
    let store = FileTokenStore::new(&path);
    // A sign-in starts afresh: the tokens (and the client) kept before are not used.
    store
        .remove(&args.url)
        .await
        .map_err(|e| Failure::new(format!("cannot forget the tokens kept before: {e}")))?;
    let no_browser = args.no_browser;
    let step = Loopback::bind(args.port)
        .await
        .map_err(|e| {
            Failure::new(format!(
                "cannot listen on 127.0.0.1:{} for the redirect: {e}",
                args.port
            ))
            .help("give another port with `--port`, or 0 for any")
        })?
        .wait(Duration::from_secs(args.wait))
        .show(move |url| {
            eprintln!("open this URL in a browser to sign in:\n  {url}");
            if !no_browser && !open_browser(url) {
                eprintln!("(no browser could be opened: open the URL yourself)");
            }
        });
    let mut oauth = OAuth::new(step.redirect_uri())
        .client_name("cargo-phantom")
        .authorize(step)
        .token_store(store.clone());
    if let Some(id) = &args.client_id {
        oauth = oauth.credentials(id, args.client_secret.as_deref());
    }
    if let Some(url) = &args.client_metadata_url {
        oauth = oauth.client_metadata_url(url);
    }
    let client = Client::http(&args.url)
        .era(era(args.era))
        // The sign-in happens within the first request.
        .timeout(Duration::from_secs(args.wait + 60))
        .oauth(oauth)
        .connect()
        .await
        .map_err(|e| Failure::new(format!("cannot sign in to {}: {e}", args.url)))?;
    client.close().await;
    let kept = store
        .load(&args.url)
        .await
        .map_err(|e| Failure::new(e.to_string()))?;
    if kept.is_some() {
        eprintln!(
            "signed in to {}; the tokens are kept in {}",
            args.url,
            path.display()
        );
    } else {
        eprintln!("{} asked for no sign-in; nothing kept", args.url);
    }
    Ok(ExitCode::SUCCESS)
}

/// `cargo phantom logout`.
pub(crate) async fn logout(args: &LogoutArgs) -> Outcome {
    let path = token_file(args.token_file.as_ref())?;
    let store = FileTokenStore::new(&path);
    let kept = store
        .load(&args.url)
        .await
        .map_err(|e| Failure::new(e.to_string()))?;
    store
        .remove(&args.url)
        .await
        .map_err(|e| Failure::new(e.to_string()))?;
    if kept.is_some() {
        eprintln!(
            "signed out of {}: its tokens are gone from {}",
            args.url,
            path.display()
        );
    } else {
        eprintln!("no tokens were kept for {} in {}", args.url, path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The sign-in `url`'s kept tokens for a command's connection, if `login` kept some and the
/// command gives no credentials of its own: refreshed when they expire; a sign-in that cannot
/// be refreshed ends with the advice to log in again.
pub(crate) async fn kept(url: &str, conn: &Connection) -> Result<Option<OAuth>, Failure> {
    let own = conn.bearer.is_some()
        || conn.headers.iter().any(|h| {
            h.split_once(':')
                .is_some_and(|(name, _)| name.trim().eq_ignore_ascii_case("authorization"))
        });
    if own {
        return Ok(None);
    }
    let path = token_file(conn.token_file.as_ref())?;
    let store = FileTokenStore::new(&path);
    let kept = store.load(url).await.map_err(|e| {
        Failure::new(e.to_string())
            .help("`cargo phantom logout URL` forgets a server's tokens; removing the file forgets them all")
    })?;
    Ok(kept.map(|_| {
        OAuth::new("http://127.0.0.1/callback")
            .authorize(SignInAgain(url.to_owned()))
            .token_store(store)
    }))
}

/// The interactive step of a command other than `login`: none, but the advice to log in again.
struct SignInAgain(String);

impl Authorize for SignInAgain {
    async fn authorize(&self, _url: &str) -> Result<String, String> {
        Err(format!(
            "the sign-in has expired and could not be refreshed: run `cargo phantom login {}`",
            self.0
        ))
    }
}

/// Opens `url` in the user's browser: whether a browser opener started.
fn open_browser(url: &str) -> bool {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        // Not `cmd /C start`, which reads the URL's `&` as its own.
        let mut command = std::process::Command::new("rundll32");
        command.arg("url.dll,FileProtocolHandler");
        command
    } else {
        std::process::Command::new("xdg-open")
    };
    command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .is_ok()
}
