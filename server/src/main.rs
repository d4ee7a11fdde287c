//! `etlscope`: a thin binary over the etlscope crates.

mod admission;
mod api;
mod catalog;
mod cell_json;
mod cli;
mod companions;
mod findings_json;
mod heal;
mod ingest_jobs;
mod library;
mod live;
mod machine_memory;
mod mcp;
mod region_store;
mod schema_store;
mod stack_tag_store;
mod store;
mod symbolize;
mod sysconfig_json;
mod upload;
mod wpa_profile;

use clap::Parser;

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ETLSCOPE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("etlscope: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
