//! `etlscope serve` and `etlscope open`: the HTTP server with the embedded UI.

use crate::api::guard::{origin_of, url_host_name, AllowedHosts};
use crate::api::link_limits::{LinkGuard, LinkLimits};
use crate::api::note_rules::{NoteGuard, NoteLimits};
use crate::api::{self, state::ApiConfig, state::AppState};
use crate::store::Store;
use anyhow::{bail, Context};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on. Anything but loopback requires --token.
    #[arg(long, default_value = "127.0.0.1:8717")]
    pub addr: SocketAddr,
    /// Where uploads, the catalog and symbols are kept.
    #[arg(long, env = "ETLSCOPE_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Symbol path, in _NT_SYMBOL_PATH syntax.
    #[arg(long, env = "_NT_SYMBOL_PATH")]
    pub symbol_path: Option<String>,
    /// Token required for uploads and deletes (never empty).
    #[arg(long, env = "ETLSCOPE_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// The URL users open (e.g. behind a reverse proxy); its host name is
    /// accepted in `Host` and its origin in `Origin`.
    #[arg(long)]
    pub public_url: Option<String>,
    /// Another host name this server answers to (repeatable). Requests with
    /// any other `Host` than loopback, localhost or the address served get 403.
    #[arg(long)]
    pub allowed_host: Vec<String>,
    /// Most connections served at once (past their first request head);
    /// a completed head waits until one closes.
    #[arg(long, default_value_t = 256)]
    pub max_connections: usize,
    /// Most connections served at once for one client address (an IPv6
    /// /64). Behind a reverse proxy every client has the proxy's address.
    #[arg(long, default_value_t = 64)]
    pub max_connections_per_ip: usize,
    /// Most connections still sending their first request head, besides
    /// the served ones; a new one closes the oldest stalled head.
    #[arg(long, default_value_t = 128)]
    pub max_pending_heads: usize,
    /// Most connections still sending their first request head, for one
    /// client address; a new one closes that address's oldest stalled head.
    #[arg(long, default_value_t = 16)]
    pub max_pending_heads_per_ip: usize,
    /// Seconds a client may take to send a whole request head.
    #[arg(long, default_value_t = 5)]
    pub header_timeout_secs: u64,
    /// Seconds a request body may go without a byte.
    #[arg(long, default_value_t = 30, hide = true)]
    pub body_timeout_secs: u64,
    /// Require the token for reads too.
    #[arg(long)]
    pub private_reads: bool,
    /// Largest accepted upload, in MiB.
    #[arg(long, default_value_t = 8192)]
    pub max_upload_mb: u64,
    /// Longest short-link target (a view's path and query), in bytes; at
    /// most 65534, the longest URI this server reads (a longer link could not open).
    #[arg(long, default_value_t = crate::api::link_limits::MAX_TARGET_BYTES)]
    pub max_link_bytes: usize,
    /// Short links one client (IP address; IPv6: its /64) may create per
    /// minute: a burst of that many, then one every 60/N seconds.
    #[arg(long, default_value_t = crate::api::link_limits::DEFAULT_PER_MINUTE)]
    pub links_per_minute: u32,
    /// A reverse proxy (nginx in front of replicas) whose requests name
    /// their client in `X-Forwarded-For`: its last address, the one this
    /// proxy saw, is the client for per-client limits (repeat for several).
    #[arg(long = "trusted-proxy", value_name = "IP")]
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Most short links kept; more get 507.
    #[arg(long, default_value_t = crate::api::link_limits::DEFAULT_MAX_LINKS)]
    pub max_links: u64,
    /// Most bytes of short-link targets kept, in MiB; more get 507.
    #[arg(long, default_value_t = crate::api::link_limits::DEFAULT_MAX_MIB)]
    pub max_links_mb: u64,
    /// Longest note text, in KiB (at most 1024).
    #[arg(long, default_value_t = crate::api::note_rules::DEFAULT_MAX_NOTE_KIB)]
    pub max_note_kb: usize,
    /// Most notes on one trace; more get 507.
    #[arg(long, default_value_t = crate::api::note_rules::DEFAULT_NOTES_PER_TRACE)]
    pub notes_per_trace: u64,
    /// Notes one client (IP address; IPv6: its /64) may write (create or
    /// edit) per minute: a burst of that many, then one every 60/N seconds.
    #[arg(long, default_value_t = crate::api::note_rules::DEFAULT_NOTES_PER_MINUTE)]
    pub notes_per_minute: u32,
    /// Most rows a SQL query (`POST /api/traces/{id}/sql`) returns; more are cut, and said so.
    #[arg(long, default_value_t = 10_000)]
    pub sql_max_rows: usize,
    /// Longest a SQL query may run, in seconds.
    #[arg(long, default_value_t = 30.0)]
    pub sql_timeout_secs: f64,
    /// Memory one SQL query may take (its sorts and groups, and the answer), in MiB,
    /// reserved under --memory-budget-mb while it runs.
    #[arg(long, default_value_t = 256)]
    pub sql_memory_mb: u64,
    /// Memory budget for traces held in memory and ingests, in MiB
    /// [default: three quarters of the machine's memory].
    #[arg(long)]
    pub memory_budget_mb: Option<u64>,
    /// One trace of several files, joined like PATH (`a.etl:b.etl`; `;` on
    /// Windows) and read merged by time (repeatable).
    #[arg(long = "trace", value_name = "FILES")]
    pub trace_sets: Vec<std::ffi::OsString>,
    /// Also serve the bundled demo trace (embedded in the binary with its PDBs).
    #[arg(long)]
    pub demo: bool,
    /// The catalog: postgres://USER@HOST:PORT/DB (shared by the replicas
    /// of a team server) or sqlite://FILE [default: catalog.sqlite in the
    /// data directory].
    #[arg(long, env = "ETLSCOPE_CATALOG", hide_env_values = true)]
    pub catalog: Option<String>,
    /// Where uploaded trace bytes live: s3://BUCKET/PREFIX (endpoint and
    /// credentials from AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
    /// AWS_REGION) or file:///DIR [default: traces/ in the data directory].
    #[arg(long, env = "ETLSCOPE_STORE")]
    pub store: Option<String>,
    /// The local cache of traces fetched from an s3:// store
    /// [default: cache/ in the data directory].
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Most GiB of trace files kept in the cache (least recently used go first).
    #[arg(long, default_value_t = 20.0)]
    pub cache_gb: f64,
}

/// The view of the demo investigation (README walkthrough): 7-23 s, Process
/// then Stack, drilled to CFSFolder::_GetOverlayInfo.
const DEMO_VIEW: &str = "v=2&view=table&t=cpu-sampled&g=Process,Stack&r=7-23&o=explorer.exe%20%286148%29%2Fntdll.dll%21RtlUserThreadStart%2Fkernel32.dll%21BaseThreadInitThunk%2FSHCore.dll%21WorkThreadManager%3A%3ACThread%3A%3AThreadProc%2FSHCore.dll%21ExecuteWorkItemThreadProc%2Fshell32.dll%21CDefView%3A%3A_GetItemOverlay%2Fwindows.storage.dll%21CShellItem%3A%3AGetAttributes%2Fwindows.storage.dll%21CFSFolder%3A%3A_GetOverlayInfo&sel=explorer.exe%20%286148%29%2Fntdll.dll%21RtlUserThreadStart%2Fkernel32.dll%21BaseThreadInitThunk%2FSHCore.dll%21WorkThreadManager%3A%3ACThread%3A%3AThreadProc%2FSHCore.dll%21ExecuteWorkItemThreadProc%2Fshell32.dll%21CDefView%3A%3A_GetItemOverlay%2Fwindows.storage.dll%21CShellItem%3A%3AGetAttributes%2Fwindows.storage.dll%21CFSFolder%3A%3A_GetOverlayInfo";

/// Where the library lives without `--data-dir`: `%LOCALAPPDATA%\etlscope`
/// on Windows (a shell there may also set HOME, which Windows programs do
/// not use for data), `$XDG_DATA_HOME/etlscope` or `~/.local/share/etlscope`
/// elsewhere.
pub fn default_data_dir() -> PathBuf {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if cfg!(windows) {
        if let Some(a) = var("LOCALAPPDATA") {
            return PathBuf::from(a).join("etlscope");
        }
    }
    if let Some(x) = var("XDG_DATA_HOME") {
        return PathBuf::from(x).join("etlscope");
    }
    if let Some(h) = var("HOME") {
        return PathBuf::from(h).join(".local/share/etlscope");
    }
    if let Some(a) = var("LOCALAPPDATA") {
        return PathBuf::from(a).join("etlscope");
    }
    PathBuf::from(".etlscope-data")
}

/// MiB to bytes, refusing values that do not fit.
fn mib(flag: &str, v: u64) -> anyhow::Result<u64> {
    match v.checked_mul(1 << 20) {
        Some(b) => Ok(b),
        None => bail!("--{flag} {v} is too large: at most {} MiB", u64::MAX >> 20),
    }
}

/// The short links' flags, checked: none is 0, and no target is longer than a URI can be.
fn link_limits(args: &ServeArgs) -> anyhow::Result<LinkLimits> {
    let max = crate::api::link_limits::MAX_TARGET_BYTES;
    if args.max_link_bytes == 0 || args.max_link_bytes > max {
        bail!(
            "--max-link-bytes {} is out of range: 1 to {max} (a longer link could not open)",
            args.max_link_bytes
        );
    }
    for (flag, v) in [
        ("links-per-minute", u64::from(args.links_per_minute)),
        ("max-links", args.max_links),
        ("max-links-mb", args.max_links_mb),
    ] {
        if v == 0 {
            bail!("--{flag} 0 would refuse every short link: give at least 1");
        }
    }
    Ok(LinkLimits {
        max_target_bytes: args.max_link_bytes,
        per_minute: args.links_per_minute,
        max_links: args.max_links,
        max_bytes: mib("max-links-mb", args.max_links_mb)?,
        trusted_proxies: args.trusted_proxies.clone(),
    })
}

/// The notes' flags, checked: none is 0, and a note is at most 1 MiB.
fn note_limits(args: &ServeArgs) -> anyhow::Result<NoteLimits> {
    let max = crate::api::note_rules::MAX_NOTE_KIB;
    if args.max_note_kb == 0 || args.max_note_kb > max {
        bail!(
            "--max-note-kb {} is out of range: 1 to {max}",
            args.max_note_kb
        );
    }
    for (flag, v) in [
        ("notes-per-trace", args.notes_per_trace),
        ("notes-per-minute", u64::from(args.notes_per_minute)),
    ] {
        if v == 0 {
            bail!("--{flag} 0 would refuse every note: give at least 1");
        }
    }
    Ok(NoteLimits {
        max_text_bytes: args.max_note_kb << 10,
        per_trace: args.notes_per_trace,
        per_minute: args.notes_per_minute,
    })
}

/// The host names and origin the guard accepts besides loopback.
fn allowed_hosts(args: &ServeArgs) -> anyhow::Result<AllowedHosts> {
    let mut names: Vec<String> = args
        .allowed_host
        .iter()
        .map(|h| h.trim().trim_end_matches('.').to_ascii_lowercase())
        .filter(|h| !h.is_empty())
        .collect();
    let public_origin = match &args.public_url {
        Some(u) => {
            let (Some(origin), Some(host)) = (origin_of(u), url_host_name(u)) else {
                bail!("--public-url {u:?} is not a URL like https://etl.example.com/");
            };
            names.push(host);
            Some(origin)
        }
        None => None,
    };
    Ok(AllowedHosts {
        served_ip: args.addr.ip(),
        names,
        public_origin,
    })
}

/// The traces to serve: `first` (unless empty), then each `--trace` set.
pub fn trace_groups(first: Vec<Vec<PathBuf>>, args: &ServeArgs) -> Vec<Vec<PathBuf>> {
    let mut groups: Vec<Vec<PathBuf>> = first.into_iter().filter(|g| !g.is_empty()).collect();
    groups.extend(
        args.trace_sets
            .iter()
            .map(|s| {
                std::env::split_paths(s)
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect()
            })
            .filter(|g: &Vec<PathBuf>| !g.is_empty()),
    );
    groups
}

/// Serve `groups` (each the files of one trace); with `demo` and no trace
/// given, the bundled demo traces. With `replay`, the traces given are fed
/// through the live view at that speed instead of read at once.
pub fn run(
    args: ServeArgs,
    mut groups: Vec<Vec<PathBuf>>,
    companions: bool,
    demo: bool,
    live: Option<crate::live::Source>,
) -> anyhow::Result<()> {
    crate::store::tune_malloc();
    if args.token.as_deref().is_some_and(|t| t.trim().is_empty()) {
        bail!("--token (or ETLSCOPE_TOKEN) is empty: give a real token, e.g. $(openssl rand -hex 16), or leave it out");
    }
    if !args.addr.ip().is_loopback() && args.token.is_none() {
        bail!(
            "listening on {} (not loopback) requires --token (or ETLSCOPE_TOKEN) so that strangers cannot upload or delete",
            args.addr
        );
    }
    if args.private_reads && args.token.is_none() {
        bail!("--private-reads needs --token: reads would be refused to everyone");
    }
    let max_upload_bytes = mib("max-upload-mb", args.max_upload_mb)?;
    let link_limits = link_limits(&args)?;
    let note_limits = note_limits(&args)?;
    let memory_budget = match args.memory_budget_mb {
        Some(v) => mib("memory-budget-mb", v)?,
        None => crate::machine_memory::default_budget(),
    };
    let allowed_hosts = allowed_hosts(&args)?;
    let data_dir = args.data_dir.clone().unwrap_or_else(default_data_dir);
    if !(args.cache_gb.is_finite() && args.cache_gb >= 0.0) {
        bail!("--cache-gb {} is not a size in GiB", args.cache_gb);
    }
    let backends = crate::store::Backends {
        catalog: args.catalog.clone(),
        store: args.store.clone(),
        cache_dir: args.cache_dir.clone(),
        cache_bytes: (args.cache_gb * f64::from(1u32 << 30)) as u64,
    };
    let store = Store::open(
        &data_dir,
        memory_budget,
        args.symbol_path.clone(),
        &backends,
    )
    .with_context(|| format!("cannot open the data directory {}", data_dir.display()))?;
    // `etlscope` alone, or `serve --demo`, serves the bundled demo too.
    if demo || args.demo {
        groups.extend(
            super::demo::demo_traces(&data_dir)?
                .into_iter()
                .map(|t| vec![t]),
        );
    }
    // Each trace's files are checked by their headers now; their read and
    // the hash that names them start here and run while the server listens.
    let mut checked = Vec::new();
    for given in &groups {
        let files = crate::companions::trace_files(given, companions);
        crate::companions::announce(given, &files);
        let abs = super::register::check_local(&files)?;
        checked.push((files, abs));
    }
    let mut named: Vec<_> = Vec::new();
    for (files, abs) in checked {
        let id = match &live {
            // A replay is named before it starts: its live model takes the
            // id the finished trace will have.
            Some(crate::live::Source::Replay(speed)) => {
                let e = super::register::register_checked(&store, &abs)?;
                crate::live::replay::start(store.clone(), &e, files.clone(), *speed)?;
                known(e.id)
            }
            _ => store.open_local(abs, super::register::register_checked),
        };
        named.push((files, id));
    }
    // `record --serve`: the recording is the live trace.
    let (recording, recorder) = match live {
        Some(crate::live::Source::Record(a)) => {
            let (id, output, thread) = start_recording(&store, a)?;
            named.push((vec![output], known(id.clone())));
            (Some(id), Some(thread))
        }
        _ => (None, None),
    };
    let jobs_store = store.clone();
    let state = AppState {
        store: store.clone(),
        config: Arc::new(ApiConfig {
            max_upload_bytes,
            token: args.token.clone(),
            token_for_reads: args.private_reads,
            query_wait: std::time::Duration::from_secs(20),
            allowed_hosts,
            body_idle_timeout: Duration::from_secs(args.body_timeout_secs.max(1)),
            sql: super::sql::limits(args.sql_max_rows, args.sql_timeout_secs, args.sql_memory_mb)?,
        }),
        links: Arc::new(LinkGuard::new(link_limits)),
        notes: Arc::new(NoteGuard::new(note_limits)),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        let addr = listener.local_addr()?;
        // A team server's replicas read uploads through a shared queue.
        crate::ingest_jobs::start(jobs_store.clone(), addr)?;
        crate::library::sweep::start(jobs_store);
        if addr.ip().is_unspecified() && args.allowed_host.is_empty() && args.public_url.is_none() {
            // The DNS-rebinding guard refuses names it was not told about.
            eprintln!(
                "etlscope: answering only to localhost and IP addresses; add --allowed-host NAME (or --public-url URL) for each name users open this server by"
            );
        }
        // Written, not println!: a server whose stdout was closed (a pipe
        // read by a script that went away) keeps serving instead of panicking.
        use std::io::Write;
        let mut out = std::io::stdout();
        let _ = writeln!(
            out,
            "etlscope is serving on http://{addr}/ (data in {})",
            data_dir.display()
        );
        out.flush().ok();
        // Each trace's link once its id (the content hash) is known.
        tokio::task::spawn_blocking(move || print_links(addr, named));
        if let Some(id) = &recording {
            open_browser(&format!("http://{addr}/t/{id}"));
        }
        super::listen::serve(
            listener,
            api::router(state),
            super::conn_limits::Limits {
                served: args.max_connections,
                served_per_ip: args.max_connections_per_ip,
                heads: args.max_pending_heads,
                heads_per_ip: args.max_pending_heads_per_ip,
                // A head still incomplete after this counts as stalled.
                grace: Duration::from_millis(500),
            },
            Duration::from_secs(args.header_timeout_secs.max(1)),
            shutdown_signal(),
        )
        .await?;
        let _ = writeln!(std::io::stdout(), "etlscope stopped");
        anyhow::Ok(())
    })?;
    // Ctrl+C stopped the recording too: let it finish writing its file.
    if let Some(t) = recorder {
        let _ = t.join();
    }
    Ok(())
}

type Recording = (String, PathBuf, std::thread::JoinHandle<()>);

#[cfg(windows)]
fn start_recording(
    store: &Arc<Store>,
    args: super::record::RecordArgs,
) -> anyhow::Result<Recording> {
    crate::live::record_windows::start(store.clone(), args)
}

/// Elsewhere `record` says it needs Windows (and fails).
#[cfg(not(windows))]
fn start_recording(
    _store: &Arc<Store>,
    args: super::record::RecordArgs,
) -> anyhow::Result<Recording> {
    super::record::run(args)?;
    Ok((String::new(), PathBuf::new(), std::thread::spawn(|| ())))
}

/// The default browser on the live view (`record --serve`).
fn open_browser(url: &str) {
    #[cfg(windows)]
    let r = std::process::Command::new("explorer").arg(url).spawn();
    #[cfg(not(windows))]
    let r: std::io::Result<()> = Ok(());
    if let Err(e) = r {
        eprintln!("etlscope: cannot open a browser ({e}); open {url}");
    }
}

/// An id known already, in the shape `print_links` waits on.
fn known(id: String) -> std::sync::mpsc::Receiver<anyhow::Result<String>> {
    let (tx, rx) = std::sync::mpsc::channel();
    let _ = tx.send(Ok(id));
    rx
}

/// Print each trace's viewer URL, in the order given, as its id arrives.
fn print_links(
    addr: SocketAddr,
    named: Vec<(
        Vec<PathBuf>,
        std::sync::mpsc::Receiver<anyhow::Result<String>>,
    )>,
) {
    use std::io::Write;
    let mut out = std::io::stdout();
    for (files, id) in named {
        let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let names = names.join(" + ");
        let id = match id.recv() {
            Ok(Ok(id)) => id,
            Ok(Err(e)) => {
                eprintln!("etlscope: cannot add {names}: {e:#}");
                continue;
            }
            Err(_) => continue,
        };
        let _ = writeln!(out, "  {names} -> http://{addr}/t/{id}");
        let demo_file = matches!(files.as_slice(),
            [path] if path.file_name().is_some_and(|n| n == "explorer-overlay.etl"));
        if demo_file {
            let _ = writeln!(
                out,
                "    the investigation: http://{addr}/t/{id}?{DEMO_VIEW}"
            );
        }
        out.flush().ok();
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

impl ServeArgs {
    /// The defaults (and environment variables) of `etlscope serve`.
    pub fn defaults() -> ServeArgs {
        #[derive(clap::Parser)]
        struct Wrapper {
            #[command(flatten)]
            args: ServeArgs,
        }
        <Wrapper as clap::Parser>::parse_from(["etlscope"]).args
    }
}
