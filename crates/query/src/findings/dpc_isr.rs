//! CPU: DPCs and ISRs that ran over 1 ms (Microsoft's driver guidance
//! keeps a DPC under 100 µs and an ISR under 25 µs; past 1 ms audio and
//! input stutter), and the drivers whose DPCs and ISRs took most CPU. Their
//! view is the DPC/ISR table by Module: the longest run (Inclusive
//! Duration max), or the CPU time (Exclusive Duration, which counts an ISR
//! that interrupted a DPC once).

use super::{Category, Finding, FindingView};
use crate::table::flat::{self, FlatRequest};
use crate::{CellValue, TableDef, ValueSpec};

/// A run is long from this duration.
pub const LONG_NS: i64 = 1_000_000;
/// A driver is named from this much DPC/ISR time...
pub const BUSY_NS: i64 = 10_000_000;
/// ...at most this many modules per rule.
pub const TOP: usize = 3;

/// (module, value) of the DPC/ISR table by Module, largest first, for
/// value `spec` (a `COL[:AGG]`), with the value's header.
fn by_module(t: &model::Trace, spec: &str) -> Option<(Vec<(String, i64)>, String)> {
    let def = TableDef::of(t, "dpc-isr")?;
    let module = def.column("Module")?;
    let value = ValueSpec::parse(&def, spec).ok()?;
    let header = value.header(&def);
    let req = FlatRequest {
        keys: vec![module],
        values: vec![value],
        ..Default::default()
    };
    let table = flat::group(t, &def, &req).ok()?;
    let mut rows: Vec<(String, i64)> = (table.rows.iter())
        .filter_map(|r| match (r.keys.first(), r.values.first()) {
            (Some(CellValue::Text(m)), Some(CellValue::Number(ns))) => Some((m.clone(), *ns)),
            _ => None,
        })
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Some((rows, header))
}

fn named(m: &str) -> &str {
    if m.is_empty() {
        "(no module)"
    } else {
        m
    }
}

/// Runs over `LONG_NS` per module name.
fn long_runs(t: &model::Trace, module: &str) -> usize {
    let d = &t.dpc_isr;
    (0..d.len())
        .filter(|&i| d.inclusive_ns.get(i).is_some_and(|&ns| ns >= LONG_NS))
        .filter(|&i| {
            let f = d.frame.get(i).copied().unwrap_or(model::NONE) as usize;
            let m = t.frames.module.get(f).copied().unwrap_or(model::NONE) as usize;
            let name = t.modules.name.get(m).map_or("", |&s| t.strings.get(s));
            name == module
        })
        .count()
}

pub(crate) fn long(engine: &crate::Engine) -> Vec<Finding> {
    let t = engine.trace();
    if t.dpc_isr.is_empty() {
        return Vec::new();
    }
    let Some((rows, header)) = by_module(t, "Inclusive Duration:max") else {
        return Vec::new();
    };
    (rows.into_iter())
        .filter(|(_, ns)| *ns >= LONG_NS)
        .take(TOP)
        .map(|(m, ns)| Finding {
            rule: "long-dpc-isr",
            category: Category::Cpu,
            title: format!(
                "{}'s DPCs and ISRs ran up to {:.2} ms ({} over 1 ms)",
                named(&m),
                ns as f64 / 1e6,
                long_runs(t, &m)
            ),
            figure: ns as f64 / 1e9,
            unit: "s",
            view: FindingView::table("dpc-isr", &["Module"], vec![m], &header)
                .values(&["Inclusive Duration:max"]),
        })
        .collect()
}

pub(crate) fn drivers(engine: &crate::Engine) -> Vec<Finding> {
    let t = engine.trace();
    if t.dpc_isr.is_empty() {
        return Vec::new();
    }
    let Some((rows, header)) = by_module(t, "Exclusive Duration") else {
        return Vec::new();
    };
    (rows.into_iter())
        .filter(|(_, ns)| *ns >= BUSY_NS)
        .take(TOP)
        .map(|(m, ns)| Finding {
            rule: "dpc-isr-drivers",
            category: Category::Cpu,
            title: format!(
                "{} spent {:.1} ms of CPU in DPCs and ISRs",
                named(&m),
                ns as f64 / 1e6
            ),
            figure: ns as f64 / 1e9,
            unit: "s",
            view: FindingView::table("dpc-isr", &["Module"], vec![m], &header)
                .values(&["Exclusive Duration"]),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn thresholds() {
        assert_eq!(super::LONG_NS, 1_000_000);
        assert_eq!(super::BUSY_NS, 10 * super::LONG_NS);
    }
}
