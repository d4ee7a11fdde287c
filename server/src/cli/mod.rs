//! Command-line interface: one module per subcommand.

mod dump;
mod info;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "etlscope",
    version,
    about = "WPA in the browser for ETW .etl traces"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print a trace's summary and a census of its events.
    Info {
        file: PathBuf,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print events as JSON lines: header fields plus payload hex.
    Dump {
        file: PathBuf,
        /// Stop after this many events.
        #[arg(long)]
        limit: Option<u64>,
        /// Only events of this provider GUID.
        #[arg(long, conflicts_with = "hook")]
        provider: Option<String>,
        /// Only kernel events with this hook id, e.g. 0x0f2e.
        #[arg(long)]
        hook: Option<String>,
    },
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Info { file, json }) => info::run(&file, json),
        Some(Command::Dump {
            file,
            limit,
            provider,
            hook,
        }) => dump::run(&file, limit, provider.as_deref(), hook.as_deref()),
        None => {
            anyhow::bail!(
                "the server is not built yet; try `etlscope info FILE` or `etlscope --help`"
            )
        }
    }
}
