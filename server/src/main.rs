//! `etlscope`: a thin binary over the etlscope crates.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("etlscope: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
