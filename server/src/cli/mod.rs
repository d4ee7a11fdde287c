//! Command-line interface: one module per subcommand.

/// `say!(out, "...", args)`: one line of a command's text output into a
/// `String`, written out at once (so a closed pipe is one error, handled once).
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {{
        $out.push_str(&format!($($arg)*));
        $out.push('\n');
    }};
}

pub mod compare;
mod conn_limits;
pub(crate) mod demo;
mod dump;
pub(crate) mod export;
mod files;
mod findings;
mod info;
mod info_tables;
mod info_text;
mod listen;
pub mod manifests;
#[cfg(windows)]
mod manifests_windows;
mod parse_errors;
mod profile_export;
mod progress;
pub mod record;
#[cfg(windows)]
pub mod record_windows;
mod redact;
pub mod register;
pub mod serve;
pub(crate) mod sql;
mod symbols;
mod synth;

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
    /// Read only the files given: not PerfView's unmerged companions of an
    /// `x.etl` (`x.kernel*.etl`, `x.clr*.etl`, `x.user*.etl` beside it).
    #[arg(long, global = true)]
    pub no_companions: bool,
    /// Instrumentation manifests (`.man`/`.xml`, as `wevtutil gp PROVIDER
    /// /ge /gm:true` writes them) or schema packs (`.pack`), files or
    /// folders, repeatable: they name and decode the events of providers
    /// the trace carries no schema for (after the trace's own schemas,
    /// before the built-in pack).
    #[arg(long, global = true, value_name = "PATH")]
    pub manifests: Vec<PathBuf>,
    /// A WPA Regions of Interest file: its regions' instances become the
    /// "Regions of Interest" table (`--table regions`) and a Region column
    /// of CPU Usage (Sampled) and Generic Events, in every command.
    #[arg(long, global = true, value_name = "FILE")]
    pub regions: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve the API and the web UI (plain `etlscope`, with no subcommand, serves the bundled demo).
    Serve {
        #[command(flatten)]
        serve: serve::ServeArgs,
        /// Traces to serve (added to the library by reference, not copied),
        /// one trace per file; `x.etl` brings PerfView's `x.kernel*.etl`,
        /// `x.clr*.etl` and `x.user*.etl` from its folder along.
        traces: Vec<PathBuf>,
    },
    /// Serve one trace and print its viewer URL. Several files (or a
    /// container's several .etl members) are read as one trace, merged by time.
    Open {
        #[command(flatten)]
        serve: serve::ServeArgs,
        /// The files of the trace; `x.etl` brings PerfView's `x.kernel*.etl`,
        /// `x.clr*.etl` and `x.user*.etl` from its folder along.
        #[arg(required = true, num_args = 1..)]
        files: Vec<PathBuf>,
        /// Feed the trace through the live view instead of reading it at
        /// once: its events paced by their timestamps, SPEED times real time
        /// (`max`: as fast as possible). The page grows as they arrive.
        #[arg(long, value_name = "SPEED")]
        replay: Option<String>,
    },
    /// Print a trace's summary and a census of its events. Several files
    /// (or a container's several .etl members) are read as one trace.
    Info {
        #[arg(required = true, num_args = 1..)]
        file: Vec<PathBuf>,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print events as JSON lines: header fields plus payload hex.
    Dump {
        /// The files of the trace (several are read as one, merged by time).
        #[arg(required = true, num_args = 1..)]
        file: Vec<PathBuf>,
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
    /// Print a table grouped by key columns, with value columns and their aggregates, like wpaexporter.
    Export {
        /// The files of the trace (several are read as one, merged by time).
        #[arg(required = true, num_args = 1..)]
        file: Vec<PathBuf>,
        /// cpu-sampled, cpu-precise, images, processes, threads, file-io, disk-io, generic, hard-faults, network, page-faults, registry, virtual-alloc, heap, regions, marks, dpc-isr, processor-frequency, cpu-idle-states, window-in-focus, ui-delays, gpu-utilization or frame-times.
        #[arg(long, required_unless_present = "profile", default_value = "")]
        table: String,
        /// A WPA .wpaProfile: one CSV per preset in --outdir, named and laid out as
        /// wpaexporter writes them (docs/cli.md).
        #[arg(long, value_name = "FILE", conflicts_with_all = ["table", "group", "values", "sort", "limit", "filter", "rows"])]
        profile: Option<PathBuf>,
        /// Where --profile writes its CSVs (default: the current folder).
        #[arg(long, value_name = "DIR", requires = "profile")]
        outdir: Option<PathBuf>,
        /// Key columns, in order, e.g. "Process,Module".
        #[arg(long, value_delimiter = ',')]
        group: Vec<String>,
        /// Value columns with aggregations, e.g. "Load Time:min,Image Size:max,Count"
        /// (sum, min, max, avg, count, unique, single); without it, the table's defaults.
        #[arg(long, value_delimiter = ',')]
        values: Option<Vec<String>>,
        /// Sort by a key or value column, e.g. "File Version:asc" or "Duration:desc".
        #[arg(long)]
        sort: Option<String>,
        /// Print at most this many rows.
        #[arg(long, default_value_t = 0)]
        limit: usize,
        /// Time range START-END in seconds from trace start.
        #[arg(long)]
        range: Option<String>,
        /// Keep rows whose COLUMN equals VALUE; `COLUMN!=VALUE` leaves them out (repeatable).
        #[arg(long)]
        filter: Vec<String>,
        #[arg(long, default_value = "csv", value_parser = ["csv", "tsv", "json"])]
        format: String,
        /// Name frames from PDBs on this symbol path (_NT_SYMBOL_PATH syntax);
        /// a `symbols/` folder beside the trace is searched first.
        #[arg(long, env = "_NT_SYMBOL_PATH")]
        symbol_path: Option<String>,
        /// A WPA .stacktags file for the Stack Tag columns (default: the built-in set).
        #[arg(long, value_name = "FILE")]
        stack_tags: Option<PathBuf>,
        /// One line per row of the table (per sample, per I/O...) with every column, nothing
        /// grouped, like wpaexporter on a preset without grouping; --range, --filter and --limit apply.
        #[arg(long, conflicts_with_all = ["group", "values", "sort"])]
        rows: bool,
    },
    /// Compare two traces: the same grouped table on both, rows matched by identity, with
    /// baseline, comparison, delta and delta % per value column, largest loss first.
    Compare {
        base: PathBuf,
        new: PathBuf,
        /// cpu-sampled, cpu-precise, images, processes, threads, file-io, disk-io, generic, hard-faults, network, page-faults, registry, virtual-alloc, heap, regions, marks, dpc-isr, processor-frequency, cpu-idle-states, window-in-focus, ui-delays, gpu-utilization or frame-times.
        #[arg(long)]
        table: String,
        /// Key columns, in order, e.g. "Process Name,Module".
        #[arg(long, value_delimiter = ',')]
        group: Vec<String>,
        /// Value columns with aggregations; without it, the table's defaults.
        #[arg(long, value_delimiter = ',')]
        values: Option<Vec<String>>,
        /// Time range START-END in seconds on the baseline.
        #[arg(long)]
        range_base: Option<String>,
        /// Time range START-END in seconds on the comparison.
        #[arg(long)]
        range_new: Option<String>,
        /// Scale the baseline by the ratio of the time ranges or of the total rows (samples).
        #[arg(long, default_value = "none", value_parser = ["none", "time", "samples"])]
        normalize: String,
        #[arg(long, default_value = "csv", value_parser = ["csv", "json"])]
        format: String,
        #[arg(long, env = "_NT_SYMBOL_PATH")]
        symbol_path: Option<String>,
    },
    /// Run one SQL query over a trace: a table per WPA table (cpu_sampled, file_io, ...), stacks,
    /// frames, modules and trace_info; read-only, with row, time and memory limits (docs/guide/sql.md).
    ///
    /// `sql --library "SELECT ..."` queries the library instead: the trace summaries in the
    /// catalog (library_traces, library_cpu_processes, ...; docs/guide/sql.md, "Library").
    Sql {
        /// The trace (`x.etl` brings PerfView's companions along, as everywhere); with
        /// --library, the statement.
        file: PathBuf,
        /// One statement, e.g. "SELECT process, count(*) FROM cpu_sampled GROUP BY 1".
        query: Option<String>,
        /// Query the library's trace summaries (the catalog of --data-dir, or --catalog).
        #[arg(long)]
        library: bool,
        /// With --library: the data directory whose catalog.sqlite is read.
        #[arg(long, env = "ETLSCOPE_DATA_DIR")]
        data_dir: Option<PathBuf>,
        /// With --library: the catalog, postgres://USER@HOST:PORT/DB or sqlite://FILE
        /// (in place of --data-dir's).
        #[arg(long)]
        catalog: Option<String>,
        #[arg(long, default_value = "csv", value_parser = ["csv", "tsv", "json"])]
        format: String,
        /// Print at most this many rows (a warning on stderr says when rows were left out).
        #[arg(long, default_value_t = 1_000_000)]
        max_rows: usize,
        /// Stop the query after this many seconds.
        #[arg(long, default_value_t = 300.0, value_name = "SECONDS")]
        timeout: f64,
        /// Memory the query (SQLite's sorts and groups, and the answer) may take, in MiB.
        #[arg(long, default_value_t = 2048, value_name = "MIB")]
        memory_mb: u64,
        /// Name frames from PDBs on this symbol path (_NT_SYMBOL_PATH syntax);
        /// a `symbols/` folder beside the trace is searched first.
        #[arg(long, env = "_NT_SYMBOL_PATH")]
        symbol_path: Option<String>,
    },
    /// List what in the trace deserves a look, each with its figure, UI link and export command.
    Findings {
        file: PathBuf,
        #[arg(long, default_value = "text", value_parser = ["text", "json"])]
        format: String,
        /// Symbol path (_NT_SYMBOL_PATH syntax); a `symbols/` folder beside
        /// the trace is searched first.
        #[arg(long, env = "_NT_SYMBOL_PATH")]
        symbol_path: Option<String>,
    },
    /// List the trace's modules, their PDB identities and symbol status.
    Symbols {
        /// The files of the trace (several are read as one, merged by time).
        #[arg(required = true, num_args = 1..)]
        file: Vec<PathBuf>,
        /// Symbol path (_NT_SYMBOL_PATH syntax); a `symbols/` folder beside
        /// the trace is searched first.
        #[arg(long, env = "_NT_SYMBOL_PATH")]
        symbol_path: Option<String>,
    },
    /// Answer MCP (Model Context Protocol) on stdin/stdout for an AI agent:
    /// tools over the traces of the library (docs/guide/agents.md). Each
    /// TRACE file is added to the library first, by reference.
    Mcp {
        #[command(flatten)]
        mcp: crate::mcp::stdio::McpArgs,
        traces: Vec<PathBuf>,
    },
    /// Record a trace on Windows: WPR's CPU profile (kernel flags, stacks,
    /// sampling interval) plus user providers, with image identities added.
    Record(record::RecordArgs),
    /// Write a synthetic trace: the demo (explorer-overlay) or a benchmark (bench).
    #[command(subcommand)]
    Synth(synth::Scenario),
    /// Write a copy of a trace to share: user, computer and domain names, command-line
    /// arguments, window titles, chosen paths, IP addresses and environment values
    /// replaced, the same original by the same replacement; events, times, stacks unchanged.
    Redact(redact::RedactArgs),
    /// Schema packs: turn manifests into one (`pack`), or on Windows export
    /// the registered providers' schemas (`export`).
    #[command(subcommand)]
    Manifests(manifests::ManifestsCommand),
}

/// Read `--regions FILE` and match every trace built from now on against it.
fn install_regions(path: &std::path::Path) -> anyhow::Result<()> {
    use anyhow::Context;
    let bytes = std::fs::read(path).with_context(|| format!("--regions {}", path.display()))?;
    let xml = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("--regions {}: not UTF-8 text", path.display()))?;
    let set =
        regions::parse(&xml).map_err(|e| anyhow::anyhow!("--regions {}: {e}", path.display()))?;
    for n in &set.notices {
        eprintln!("etlscope: --regions {}: {n}", path.display());
    }
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("regions")
        .to_string();
    model::regions::install(&name, std::sync::Arc::new(set));
    Ok(())
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    let companions = !cli.no_companions;
    manifests::install(&cli.manifests);
    if let Some(path) = &cli.regions {
        install_regions(path)?;
    }
    match cli.command {
        Some(Command::Manifests(m)) => manifests::run(m),
        Some(Command::Info { file, json }) => info::run(&file, json, companions),
        Some(Command::Compare {
            base,
            new,
            table,
            group,
            values,
            range_base,
            range_new,
            normalize,
            format,
            symbol_path,
        }) => compare::run(
            &base,
            &new,
            compare::CompareArgs {
                table,
                group,
                values,
                range_base: range_base.as_deref().map(export::parse_range).transpose()?,
                range_new: range_new.as_deref().map(export::parse_range).transpose()?,
                normalize,
                json: format == "json",
                symbol_path,
            },
        ),
        Some(Command::Findings {
            file,
            format,
            symbol_path,
        }) => findings::run(&file, format == "json", symbol_path.as_deref()),
        Some(Command::Dump {
            file,
            limit,
            provider,
            hook,
        }) => dump::run(
            &file,
            companions,
            limit,
            provider.as_deref(),
            hook.as_deref(),
        ),
        Some(Command::Export {
            file,
            table,
            group,
            values,
            sort,
            limit,
            range,
            filter,
            format,
            symbol_path,
            stack_tags,
            rows,
            profile,
            outdir,
        }) => {
            let stack_tags = stack_tags
                .as_deref()
                .map(export::read_stack_tags)
                .transpose()?;
            if let Some(profile) = profile {
                let args = profile_export::ProfileArgs {
                    profile: &profile,
                    outdir: outdir.as_deref().unwrap_or(std::path::Path::new(".")),
                    range: range.as_deref().map(export::parse_range).transpose()?,
                    symbol_path: symbol_path.as_deref(),
                    stack_tags,
                };
                return profile_export::run(&file, companions, args);
            }
            let args = export::ExportArgs {
                table: &table,
                group,
                values,
                sort: sort.as_deref(),
                limit,
                range: range.as_deref().map(export::parse_range).transpose()?,
                filters: filter
                    .iter()
                    .map(|f| export::parse_filter(f))
                    .collect::<anyhow::Result<_>>()?,
                format: export::Format::parse(&format)?,
                symbol_path: symbol_path.as_deref(),
                stack_tags,
                rows,
            };
            export::run(&file, companions, args)
        }
        Some(Command::Sql {
            file,
            query,
            library,
            data_dir,
            catalog,
            format,
            max_rows,
            timeout,
            memory_mb,
            symbol_path,
        }) => {
            let args = |sql| sql::SqlArgs {
                sql,
                format,
                max_rows,
                timeout_s: timeout,
                memory_mb,
                symbol_path,
            };
            match (library, query) {
                (true, None) => sql::run_library(
                    data_dir,
                    catalog,
                    args(file.to_string_lossy().into_owned()),
                ),
                (true, Some(_)) => anyhow::bail!(
                    "sql --library takes one statement and no trace: etlscope sql --library \"SELECT ...\""
                ),
                (false, Some(q)) => sql::run(&[file], companions, args(q)),
                (false, None) => anyhow::bail!(
                    "give the statement after the trace: etlscope sql TRACE \"SELECT ...\" (or sql --library \"SELECT ...\")"
                ),
            }
        }
        Some(Command::Symbols { file, symbol_path }) => {
            symbols::run(&file, companions, symbol_path.as_deref())
        }
        Some(Command::Synth(s)) => synth::run(s),
        Some(Command::Mcp { mcp, traces }) => crate::mcp::stdio::run(mcp, traces, companions),
        Some(Command::Redact(a)) => redact::run(a, companions),
        Some(Command::Record(a)) if a.serve => serve::run(
            serve::ServeArgs::defaults(),
            Vec::new(),
            companions,
            false,
            Some(crate::live::Source::Record(a)),
        ),
        Some(Command::Record(a)) => record::run(a),
        Some(Command::Serve { serve, traces }) => {
            let one_each = traces.into_iter().map(|t| vec![t]).collect();
            let groups = serve::trace_groups(one_each, &serve);
            serve::run(serve, groups, companions, false, None)
        }
        Some(Command::Open {
            serve,
            files,
            replay,
        }) => {
            let replay = replay
                .as_deref()
                .map(crate::live::replay::Speed::parse)
                .transpose()?
                .map(crate::live::Source::Replay);
            let groups = serve::trace_groups(vec![files], &serve);
            serve::run(serve, groups, companions, false, replay)
        }
        // `cargo run --release` with no arguments: the demo.
        None => serve::run(
            serve::ServeArgs::defaults(),
            Vec::new(),
            companions,
            true,
            None,
        ),
    }
}
