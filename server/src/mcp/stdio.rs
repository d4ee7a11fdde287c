//! `etlscope mcp [TRACE...]`: the MCP server on stdin/stdout for a local
//! agent, over the same library (data directory) as `etlscope serve`.
//! Stdout carries the protocol only; notices go to stderr.

use super::{Etlscope, Transport};
use crate::api::guard::AllowedHosts;
use crate::api::link_limits::{LinkGuard, LinkLimits};
use crate::api::state::{ApiConfig, AppState};
use crate::cli::serve::default_data_dir;
use crate::store::{Backends, Store};
use anyhow::Context;
use rmcp::ServiceExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args, Debug, Clone)]
pub struct McpArgs {
    /// The library: where traces, the catalog and symbols are kept (the
    /// same as `etlscope serve`'s, so both see the same traces).
    #[arg(long, env = "ETLSCOPE_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Symbol path, in _NT_SYMBOL_PATH syntax.
    #[arg(long, env = "_NT_SYMBOL_PATH")]
    pub symbol_path: Option<String>,
    /// Also add the bundled demo traces (embedded in the binary with their PDBs).
    #[arg(long)]
    pub demo: bool,
    /// The UI that tools' links point at: an `etlscope serve` of the same
    /// data directory.
    #[arg(long, default_value = "http://127.0.0.1:8717")]
    pub ui_url: String,
    /// Memory budget for traces held in memory and ingests, in MiB
    /// [default: three quarters of the machine's memory].
    #[arg(long)]
    pub memory_budget_mb: Option<u64>,
}

/// Add `traces` (each file one trace) to the library, then answer MCP on stdio until stdin closes.
pub fn run(args: McpArgs, traces: Vec<PathBuf>, companions: bool) -> anyhow::Result<()> {
    crate::store::tune_malloc();
    let data_dir = args.data_dir.clone().unwrap_or_else(default_data_dir);
    let budget = match args.memory_budget_mb {
        Some(v) => v
            .checked_mul(1 << 20)
            .with_context(|| format!("--memory-budget-mb {v} is too large"))?,
        None => crate::machine_memory::default_budget(),
    };
    let store = Store::open(
        &data_dir,
        budget,
        args.symbol_path.clone(),
        &Backends::default(),
    )
    .with_context(|| format!("cannot open the data directory {}", data_dir.display()))?;
    let mut groups: Vec<Vec<PathBuf>> = traces.into_iter().map(|t| vec![t]).collect();
    if args.demo {
        groups.extend(
            crate::cli::demo::demo_traces(&data_dir)?
                .into_iter()
                .map(|t| vec![t]),
        );
    }
    // Each trace is in the catalog before the first request, so that
    // list_traces names it; its read goes on while the agent talks.
    for given in &groups {
        let files = crate::companions::trace_files(given, companions);
        crate::companions::announce(given, &files);
        let abs = crate::cli::register::check_local(&files)?;
        let id = store
            .open_local(abs, crate::cli::register::register_checked)
            .recv()
            .context("the trace's registration ended without an id")??;
        let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        eprintln!("etlscope mcp: {} is trace {id}", names.join(" + "));
    }
    let app = AppState {
        store,
        config: Arc::new(ApiConfig {
            max_upload_bytes: 0,
            token: None,
            token_for_reads: false,
            query_wait: Duration::from_secs(20),
            body_idle_timeout: Duration::from_secs(30),
            allowed_hosts: AllowedHosts {
                served_ip: std::net::IpAddr::from([127, 0, 0, 1]),
                names: Vec::new(),
                public_origin: None,
            },
            // No SQL tool yet (see mcp/mod.rs): the server's defaults.
            sql: ::sql::Limits::default(),
            require_redacted: false,
        }),
        links: Arc::new(LinkGuard::new(LinkLimits::default())),
        // No tool writes notes; the state needs its guard all the same.
        notes: Arc::new(crate::api::note_rules::NoteGuard::new(Default::default())),
    };
    let server = Etlscope::new(
        app,
        Transport::Stdio {
            ui_url: args.ui_url,
        },
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .context("MCP session did not start")?;
        running.waiting().await.context("MCP session")?;
        anyhow::Ok(())
    })?;
    // Reads and symbol lookups still running must not hold the exit.
    rt.shutdown_timeout(Duration::from_millis(100));
    Ok(())
}
