//! Memory: commit that grows and is not given back: processes whose
//! VirtualAlloc commits still outstanding at the trace's end (Impacting
//! Size) add up to a threshold, with the commit stack that left most.

use super::per_process::at_least;
use super::{Category, Finding, FindingView};
use crate::table::flat::{self, FlatRequest};
use crate::{CellValue, TableDef, ValueSpec};

/// A process is named from this much commit left outstanding...
pub const MIN_BYTES: i64 = 100 << 20;
/// ...at most this many processes.
pub const TOP: usize = 3;

pub(crate) fn run(engine: &crate::Engine) -> Vec<Finding> {
    let t = engine.trace();
    at_least(t, "virtual-alloc", "Impacting Size", None, MIN_BYTES, TOP)
        .into_iter()
        .map(|(p, bytes)| {
            let leaf = top_stack_leaf(t, &p);
            Finding {
                rule: "commit-growth",
                category: Category::Memory,
                title: format!(
                    "{p} left {:.0} MB committed at the trace's end (VirtualAlloc without VirtualFree){}",
                    bytes as f64 / (1u64 << 20) as f64,
                    leaf.map_or(String::new(), |l| format!(", most from {l}"))
                ),
                figure: bytes as f64,
                unit: "bytes",
                view: FindingView::table("virtual-alloc", &["Process"], vec![p], "Impacting Size")
                    .values(&["Impacting Size"]),
            }
        })
        .collect()
}

/// The leaf frame of the commit stack that left most of `process`'s
/// outstanding commit.
fn top_stack_leaf(t: &model::Trace, process: &str) -> Option<String> {
    let def = TableDef::of(t, "virtual-alloc")?;
    let req = FlatRequest {
        keys: vec![def.column("Commit Stack")?],
        values: vec![ValueSpec::parse(&def, "Impacting Size").ok()?],
        filters: vec![(def.column("Process")?, process.to_string())],
        ..Default::default()
    };
    let table = flat::group(t, &def, &req).ok()?;
    let best = table
        .rows
        .iter()
        .filter_map(|r| match (r.keys.first(), r.values.first()) {
            (Some(CellValue::Text(s)), Some(CellValue::Number(v))) if !s.is_empty() => {
                Some((s, *v))
            }
            _ => None,
        })
        .max_by_key(|x| x.1)?;
    best.0.rsplit(';').next().map(str::to_string)
}
