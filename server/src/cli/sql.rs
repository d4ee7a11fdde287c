//! `etlscope sql TRACE "SELECT ..." [--format csv|tsv|json] [--max-rows N] [--timeout S] [--memory-mb M]`:
//! one SQL query over a trace (crates/sql; docs/guide/sql.md lists the
//! tables). Frames are named from PDBs first, as `export` names them.
//! `etlscope sql --library "SELECT ..."`: one query over the library's
//! trace summaries in the catalog (docs/guide/sql.md, "Library").

use anyhow::bail;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

pub struct SqlArgs {
    pub sql: String,
    pub format: String,
    pub max_rows: usize,
    pub timeout_s: f64,
    pub memory_mb: u64,
    pub symbol_path: Option<String>,
}

/// The limits the flags ask for, refused when they make no sense.
pub fn limits(max_rows: usize, timeout_s: f64, memory_mb: u64) -> anyhow::Result<::sql::Limits> {
    if !(timeout_s > 0.0 && timeout_s <= 86_400.0) {
        bail!("--timeout {timeout_s}: a number of seconds above 0, at most a day");
    }
    if memory_mb == 0 {
        bail!("--memory-mb 0: give the MiB a query may use");
    }
    Ok(::sql::Limits {
        max_rows,
        timeout: Duration::from_secs_f64(timeout_s),
        memory_bytes: memory_mb.saturating_mul(1 << 20),
    })
}

pub fn run(paths: &[PathBuf], companions: bool, args: SqlArgs) -> anyhow::Result<()> {
    let limits = limits(args.max_rows, args.timeout_s, args.memory_mb)?;
    let opened = super::files::open(paths, companions)?;
    let mut trace = super::progress::build_model(&opened.file);
    drop(opened.file);
    super::symbols::name_frames(&mut trace, &opened.files, args.symbol_path.as_deref());
    super::export::warn_if_incomplete(&trace);
    let trace = Arc::new(trace);
    let answer = match ::sql::query(
        &trace,
        &args.sql,
        &limits,
        &Arc::new(AtomicBool::new(false)),
    ) {
        Ok(a) => a,
        Err(e) => bail!("SQL error: {e}"),
    };
    print(&answer, &args.format)
}

/// `sql --library`: the statement over the library's trace summaries in
/// the catalog of `data_dir` (default: the server's) or `catalog`.
pub fn run_library(
    data_dir: Option<PathBuf>,
    catalog: Option<String>,
    args: SqlArgs,
) -> anyhow::Result<()> {
    let limits = limits(args.max_rows, args.timeout_s, args.memory_mb)?;
    let cat: Box<dyn crate::catalog::Catalog> = match catalog {
        Some(url) => crate::catalog::open_url(&url)?,
        None => {
            let dir = data_dir.unwrap_or_else(super::serve::default_data_dir);
            let file = dir.join("catalog.sqlite");
            if !file.is_file() {
                bail!(
                    "no library at {}: give the server's --data-dir (or --catalog URL)",
                    dir.display()
                );
            }
            Box::new(crate::catalog::SqliteCatalog::open(&file)?)
        }
    };
    let answer = match cat.library_query(&args.sql, &limits, &Arc::new(AtomicBool::new(false))) {
        Ok(a) => a,
        Err(e) => bail!("SQL error: {e}"),
    };
    print(&answer, &args.format)
}

fn print(answer: &::sql::Answer, format: &str) -> anyhow::Result<()> {
    if answer.truncated {
        eprintln!(
            "warning: the answer was cut at {} rows (--max-rows) or at the memory limit (--memory-mb)",
            answer.rows.len()
        );
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match format {
        "json" => serde_json::to_writer_pretty(&mut out, &::sql::output::json(answer))
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out)),
        "tsv" => ::sql::output::separated(&mut out, answer, '\t'),
        _ => ::sql::output::separated(&mut out, answer, ','),
    }
    .and_then(|()| out.flush());
    match written {
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}
