//! CPU: a module not from Microsoft, or without version information or
//! company name, loaded into a busy process and costing it CPU: the
//! blog's shell extension inside Explorer. Its cost is what Callers by
//! module totals: every sample of the process with the module on its stack.

use super::{thousands, Category, Finding, FindingView};
use crate::table::flat::{self, FlatRequest};
use crate::{CellValue, Column, Engine, Row, TableDef};
use rustc_hash::FxHashMap;

/// A process is busy from this share of the non-idle samples.
pub const BUSY_SHARE: f64 = 0.05;
/// A module is named from this share of its process's samples.
pub const MIN_COST: f64 = 0.01;
/// At most this many modules are listed, the costliest first: a trace of
/// hundreds of unversioned modules (our bench trace) would bury the rest.
pub const MAX_LISTED: usize = 10;

/// Whether an image's version resource marks it as suspect.
pub(crate) fn suspect(company: &str, has_version: &str) -> bool {
    company.trim().is_empty() || has_version == "false" || !company.contains("Microsoft")
}

/// (process label, image name, company, has version info) of every image.
fn images(engine: &Engine) -> Vec<[String; 4]> {
    let t = engine.trace();
    let Some(def) = TableDef::of(t, "images") else {
        return Vec::new();
    };
    let cols = ["Process", "Image Name", "Company Name", "Has Version Info"];
    let Some(keys) = cols
        .iter()
        .map(|c| def.column(c))
        .collect::<Option<Vec<_>>>()
    else {
        return Vec::new();
    };
    let req = FlatRequest {
        keys,
        ..Default::default()
    };
    let Ok(table) = flat::group(t, &def, &req) else {
        return Vec::new();
    };
    let text = |c: &CellValue| match c {
        CellValue::Text(s) => s.clone(),
        _ => String::new(),
    };
    table
        .rows
        .iter()
        .filter_map(|r| match r.keys.as_slice() {
            [p, n, c, v] => Some([text(p), text(n), text(c), text(v)]),
            _ => None,
        })
        .collect()
}

pub(crate) fn run(engine: &Engine, _procs: &(Vec<Row>, u64)) -> Vec<Finding> {
    let (rows, total) = super::cpu_share::rows(engine, Column::Process);
    let busy: FxHashMap<&str, &Row> = rows
        .iter()
        .filter(|r| r.count as f64 >= BUSY_SHARE * total as f64)
        .map(|r| (r.label.as_str(), r))
        .collect();
    if busy.is_empty() {
        return Vec::new();
    }
    let mut module_keys: FxHashMap<String, u32> = FxHashMap::default();
    for f in 0..engine.funcs().len() as u32 {
        let m = engine.module_key_of_func(f);
        module_keys
            .entry(engine.label(Column::Module, m))
            .or_insert(m);
    }
    // The suspect images of busy processes, then every module's cost in
    // each of those processes from one scan (a walk of the call tree per
    // process cost a second on a 10M-sample trace).
    let suspects: Vec<([String; 4], &Row, u32)> = images(engine)
        .into_iter()
        .filter(|[_, _, company, has_version]| suspect(company, has_version))
        .filter_map(|i| {
            let p = *busy.get(i[0].as_str())?;
            let m = *module_keys.get(&i[1])?;
            Some((i, p, m))
        })
        .collect();
    let mut processes: Vec<u32> = suspects.iter().map(|(_, p, _)| p.key).collect();
    processes.sort_unstable();
    processes.dedup();
    let Ok(by_process) = engine.inclusive_by_module_per_process(&processes) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for ([process, image, company, has_version], p, m) in suspects {
        let Some(by_module) = processes
            .binary_search(&p.key)
            .ok()
            .and_then(|g| by_process.get(g))
        else {
            continue;
        };
        let cost = by_module.get(m as usize).copied().unwrap_or(0);
        if cost == 0 || (cost as f64) < MIN_COST * p.count as f64 {
            continue;
        }
        let why = match (company.trim().is_empty(), has_version == "false") {
            (_, true) => "without version information".to_string(),
            (true, false) => "without a company name".to_string(),
            _ => format!("from {company}"),
        };
        out.push(Finding {
            rule: "third-party-module",
            category: Category::Cpu,
            title: format!(
                "{image} ({why}) is on the stack of {} of {}'s {} samples ({:.1}%)",
                thousands(cost),
                process,
                thousands(p.count),
                cost as f64 * 100.0 / p.count.max(1) as f64
            ),
            figure: cost as f64,
            unit: "samples",
            view: FindingView::butterfly(image.clone(), false).filter("Process", &process),
        });
    }
    out.sort_by(|a, b| b.figure.total_cmp(&a.figure));
    out.truncate(MAX_LISTED);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn suspect_images() {
        assert!(!super::suspect("Microsoft Corporation", "true"));
        assert!(super::suspect("Microsoft Corporation", "false"));
        assert!(super::suspect("", "true"));
        assert!(super::suspect("Acronis International GmbH", "true"));
    }
}
