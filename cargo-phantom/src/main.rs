//! `cargo phantom`: the everyday loop of a phantom MCP server from the command line — make a
//! crate (`new`), run it with reload (`dev`), try it (`list`, `call`, `read`, `prompt`), check it
//! (`inspect`) and put it into the hosts people use (`install`).

mod cli;
mod dev;
mod elicit;
mod inspect;
mod install;
mod login;
mod new;
mod remote;
mod show;

use std::process::ExitCode;

use clap::Parser as _;

use cli::{Cargo, Command};

/// What a command failed with: the message (rustc voice, no `error:` prefix) and a `help:` line.
#[derive(Debug)]
struct Failure {
    message: String,
    help: Option<String>,
}

impl Failure {
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            help: None,
        }
    }

    fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl From<phantom::client::ClientError> for Failure {
    fn from(e: phantom::client::ClientError) -> Self {
        Self::new(e.to_string())
    }
}

type Outcome = Result<ExitCode, Failure>;

fn main() -> ExitCode {
    // `cargo phantom …` runs `cargo-phantom phantom …`; run directly, `phantom` is implied.
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_none_or(|a| a != "phantom") {
        args.insert(1.min(args.len()), "phantom".into());
    }
    let Cargo::Phantom(cli::Phantom { command }) = Cargo::parse_from(args);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(run(command));
    // A stdio server's reader may still be blocked on its pipe: do not wait for it.
    runtime.shutdown_background();
    match outcome {
        Ok(code) => code,
        Err(failure) => {
            eprintln!("error: {}", failure.message);
            if let Some(help) = failure.help {
                eprintln!("       help: {help}");
            }
            ExitCode::FAILURE
        }
    }
}

async fn run(command: Command) -> Outcome {
    match command {
        Command::New(args) => new::run(&args),
        Command::Dev(args) => dev::run(args).await,
        Command::List(args) => remote::list(&args).await,
        Command::Call(args) => remote::call(&args).await,
        Command::Read(args) => remote::read(&args).await,
        Command::Prompt(args) => remote::prompt(&args).await,
        Command::Inspect(args) => inspect::run(&args).await,
        Command::Login(args) => login::login(&args).await,
        Command::Logout(args) => login::logout(&args).await,
        Command::Install(args) => install::run(&args),
    }
}
