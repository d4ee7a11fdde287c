//! One trace's summary, made from its loaded model with the same engine
//! the UI's tables use: CPU by process, module and function from the
//! sampled table's scans and the butterfly's inclusive totals; images,
//! I/O and processes by SQL over the trace (crates/sql, the tables'
//! column declarations); the findings the Findings panel lists.

use super::schema::{self, Table, MAX_FUNCTION_ROWS, TOP_PROCESSES};
use crate::catalog::{Summary, TraceEntry};
use query::{Column, ColumnFilter, Engine, Filters, SortBy, TableRequest};
use rusqlite::types::Value;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn int(v: impl TryInto<i64>) -> Value {
    v.try_into().map_or(Value::Null, Value::Integer)
}

fn text(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}

fn table(name: &str) -> anyhow::Result<&'static Table> {
    schema::table(name).ok_or_else(|| anyhow::anyhow!("no library table {name}"))
}

/// The summary of `engine`'s trace, catalogued as `entry`.
pub fn summarize(engine: &Engine, entry: &TraceEntry) -> anyhow::Result<Summary> {
    let t = engine.trace();
    let id = || text(entry.id.as_str());
    let mut s = Summary {
        trace: entry.id.clone(),
        tables: Vec::new(),
    };
    s.tables.push((
        table("library_traces")?,
        vec![vec![
            id(),
            text(entry.name.as_str()),
            text(t.system_config.general.computer_name.as_str()),
            text(t.info.os_version.as_str()),
            int(t.info.cpus),
            text(t.info.start_time.as_str()),
            int(t.info.duration_ns),
            int(t.samples.len()),
            text(entry.notes.as_str()),
            text(entry.uploader.as_str()),
            text(entry.uploaded_at.as_str()),
            int(schema::SUMMARY_VERSION),
        ]],
    ));
    let processes = engine.table(&TableRequest {
        columns: vec![Column::Process],
        filters: Filters::default(),
        path: Vec::new(),
        sort: SortBy::default(),
        limit: 0,
    })?;
    let name_of = |p: u32| -> (Value, Value) {
        match t.processes.pid.get(p as usize) {
            Some(&pid) => (
                text(t.strings.get(t.processes.name[p as usize]).to_string()),
                int(pid),
            ),
            None => (text("Unknown"), Value::Null),
        }
    };
    let mut by_process = Vec::new();
    for r in &processes.rows {
        let (name, pid) = name_of(r.key);
        by_process.push(vec![
            id(),
            text(r.label.as_str()),
            name,
            pid,
            int(r.count),
            int(r.weight_ns),
        ]);
    }
    s.tables.push((table("library_cpu_processes")?, by_process));
    let mut busiest: Vec<&query::Row> = processes.rows.iter().collect();
    busiest.sort_by(|a, b| b.count.cmp(&a.count).then(a.key.cmp(&b.key)));
    busiest.truncate(TOP_PROCESSES);
    let mut modules = Vec::new();
    let mut functions: Vec<(i64, Vec<Value>)> = Vec::new();
    for p in busiest {
        let (name, _) = name_of(p.key);
        let filters = Filters {
            columns: vec![ColumnFilter {
                column: Column::Process,
                values: vec![p.key],
                exclude: false,
            }],
            ..Filters::default()
        };
        let row = |label: String, own: (u64, i64), all: (u64, i64)| {
            vec![
                id(),
                text(p.label.as_str()),
                name.clone(),
                text(label),
                int(own.0),
                int(own.1),
                int(all.0),
                int(all.1),
            ]
        };
        let own = exclusive(engine, Column::Module, &filters)?;
        let all = engine.inclusive_cells_by_module(&filters)?;
        for key in keys(&own, &all) {
            let o = own.get(&key).copied().unwrap_or_default();
            let a = all
                .get(key as usize)
                .map_or((0, 0), |c| (c.count, c.weight_ns));
            modules.push(row(engine.label(Column::Module, key), o, a));
        }
        let own = exclusive(engine, Column::Function, &filters)?;
        let all = engine.inclusive_cells_by_function(&filters)?;
        for key in keys(&own, &all) {
            let o = own.get(&key).copied().unwrap_or_default();
            let a = all
                .get(key as usize)
                .map_or((0, 0), |c| (c.count, c.weight_ns));
            let mut r = row(engine.label(Column::Function, key), o, a);
            // module before function, as declared
            r.insert(
                3,
                text(engine.label(Column::Module, engine.module_key_of_func(key))),
            );
            functions.push((a.1.max(o.1), r));
        }
    }
    s.tables.push((table("library_cpu_modules")?, modules));
    functions.sort_by(|a, b| b.0.cmp(&a.0));
    functions.truncate(MAX_FUNCTION_ROWS);
    s.tables.push((
        table("library_cpu_functions")?,
        functions.into_iter().map(|(_, r)| r).collect(),
    ));
    let trace = engine.trace_arc();
    s.tables
        .push((table("library_images")?, images(&trace, &id)?));
    for (name, sql) in IO_LISTS {
        let rows = run_sql(&trace, sql)?
            .into_iter()
            .map(|mut r| {
                let name = r.first().map(process_name).unwrap_or(Value::Null);
                r.insert(1, name);
                std::iter::once(id()).chain(r).collect()
            })
            .collect();
        s.tables.push((table(name)?, rows));
    }
    let rows = run_sql(&trace, PROCESSES)?
        .into_iter()
        .map(|r| std::iter::once(id()).chain(r).collect())
        .collect();
    s.tables.push((table("library_processes")?, rows));
    let findings = query::findings::run(engine)
        .into_iter()
        .map(|f| {
            vec![
                id(),
                text(f.rule),
                text(f.category.name()),
                text(f.title.as_str()),
                Value::Real(f.figure),
                text(f.unit),
                text(f.view.link()),
            ]
        })
        .collect();
    s.tables.push((table("library_findings")?, findings));
    Ok(s)
}

/// Samples whose leaf is in each key of `column`, (count, weight), by key.
fn exclusive(
    engine: &Engine,
    column: Column,
    filters: &Filters,
) -> anyhow::Result<HashMap<u32, (u64, i64)>> {
    let r = engine.table(&TableRequest {
        columns: vec![column],
        filters: filters.clone(),
        path: Vec::new(),
        sort: SortBy::default(),
        limit: 0,
    })?;
    Ok(r.rows
        .iter()
        .map(|r| (r.key, (r.count, r.weight_ns)))
        .collect())
}

/// Keys with exclusive or inclusive samples, in key order.
fn keys(own: &HashMap<u32, (u64, i64)>, all: &[query::Cell]) -> Vec<u32> {
    let mut k: Vec<u32> = own.keys().copied().collect();
    k.extend(
        all.iter()
            .enumerate()
            .filter(|(_, c)| c.count > 0)
            .map(|(i, _)| i as u32),
    );
    k.sort_unstable();
    k.dedup();
    k
}

/// File and disk I/O by process and path, each one SQL query over the
/// trace (process, path, count, size, time), capped as `schema` documents.
const IO_LISTS: [(&str, &str); 2] = [
    (
        "library_file_io",
        "SELECT process, file_path, count(*), sum(size), sum(duration)
         FROM file_io GROUP BY process, file_path ORDER BY sum(duration) DESC, 1, 2 LIMIT 2000",
    ),
    (
        "library_disk_io",
        "SELECT process, path_name, count(*), sum(size), sum(disk_service_time)
         FROM disk_io GROUP BY process, path_name ORDER BY sum(disk_service_time) DESC, 1, 2 LIMIT 2000",
    ),
];

const PROCESSES: &str = "SELECT process, process_name, pid, parent_pid, command_line, start_time, end_time, duration, exit_code
    FROM processes ORDER BY start_time, pid LIMIT 5000";

/// `name` of a Process cell `name (pid)`.
fn process_name(v: &Value) -> Value {
    match v {
        Value::Text(p) => text(match p.rfind(" (") {
            Some(i) if p.ends_with(')') => &p[..i],
            _ => p.as_str(),
        }),
        other => other.clone(),
    }
}

/// One row per image path and File Version: how many processes loaded it
/// and their names.
fn images(trace: &Arc<model::Trace>, id: &dyn Fn() -> Value) -> anyhow::Result<Vec<Vec<Value>>> {
    let rows = run_sql(
        trace,
        "SELECT DISTINCT image_path, file_version, image_name, company_name, process FROM images
         ORDER BY image_path, file_version",
    )?;
    // (path, version) -> (name, company, processes, their names)
    type Image = (Value, Value, usize, std::collections::BTreeSet<String>);
    let mut by: std::collections::BTreeMap<(String, String), Image> = Default::default();
    let s = |v: Option<&Value>| match v {
        Some(Value::Text(t)) => t.clone(),
        _ => String::new(),
    };
    for r in &rows {
        let e = by.entry((s(r.first()), s(r.get(1)))).or_insert_with(|| {
            (
                r.get(2).cloned().unwrap_or(Value::Null),
                r.get(3).cloned().unwrap_or(Value::Null),
                0,
                Default::default(),
            )
        });
        e.2 += 1;
        if let Value::Text(n) = process_name(r.get(4).unwrap_or(&Value::Null)) {
            e.3.insert(n);
        }
    }
    Ok(by
        .into_iter()
        .take(schema::MAX_LIST_ROWS)
        .map(|((path, version), (name, company, n, names))| {
            vec![
                id(),
                name,
                text(path),
                text(version),
                company,
                int(n),
                text(names.into_iter().collect::<Vec<_>>().join(", ")),
            ]
        })
        .collect())
}

fn run_sql(trace: &Arc<model::Trace>, sql: &str) -> anyhow::Result<Vec<Vec<Value>>> {
    let limits = ::sql::Limits {
        // The queries' own LIMITs cap the rows kept.
        max_rows: 10_000_000,
        timeout: std::time::Duration::from_secs(600),
        memory_bytes: 1 << 30,
    };
    let a = ::sql::query(trace, sql, &limits, &Arc::new(AtomicBool::new(false)))
        .map_err(|e| anyhow::anyhow!("summary query failed: {e}"))?;
    Ok(a.rows)
}
