//! Trace health: what the recorder lost, what the decoder could not read,
//! samples without stacks, images without their KernelTraceControl
//! identity (PDB GUID) and frames without symbols, by module. The counts
//! are `etlscope info --json`'s (`TraceInfo` holds the same), the tables'
//! and `etlscope symbols`' (`unnamed_frames`).

use super::{thousands, Category, Finding, FindingView};
use crate::table::flat::{self, FlatRequest};
use crate::{CellValue, Engine, Filters, TableDef, TableRequest};

/// A module is named when its frames without symbols are at least this
/// share of all frames inside modules...
pub const MIN_UNNAMED_SHARE: f64 = 0.01;
/// ...at most this many (most unnamed frames first).
pub const TOP_UNNAMED: usize = 5;

fn info(rule: &'static str, key: &str, n: u64, what: &str) -> Option<Finding> {
    (n > 0).then(|| Finding {
        rule,
        category: Category::Health,
        title: format!("{} {what}", thousands(n)),
        figure: n as f64,
        unit: "count",
        view: FindingView::info(key),
    })
}

pub(crate) fn run(engine: &Engine) -> Vec<Finding> {
    let t = engine.trace();
    let i = &t.info;
    let mut out: Vec<Finding> = [
        info(
            "lost-events",
            "lost_events",
            i.lost_events,
            "events lost by the recorder",
        ),
        // As `etlscope info` counts them: the header's lost buffers and
        // every buffer flagged EVENTS_LOST.
        info(
            "lost-buffers",
            "lost_buffers",
            i.lost_buffers + i.buffers_with_lost_events.len() as u64,
            "buffers lost by the recorder or flagged as having lost events",
        ),
        info(
            "skipped-buffers",
            "skipped_buffers",
            i.skipped_buffers.into(),
            "buffers that could not be read",
        ),
        info(
            "undecoded-events",
            "decoding.hex_only_events",
            i.hex_only_events,
            "events nothing decodes (shown as hex)",
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    out.extend(stackless(engine));
    out.extend(images_without_identity(engine));
    out.extend(unnamed_frames(engine));
    out
}

/// Non-idle samples whose stack is one frame: the instruction pointer
/// alone (what the flame graph's "hide samples without stacks" drops).
/// That is not the trace header's "with stacks" (a stack walk event
/// matched the sample): a walk can hold one frame, so the sentence names
/// what it counts. Idle's samples (PID 0) are left out: an idle CPU's
/// one-frame walk is no missing stack.
fn stackless(engine: &Engine) -> Option<Finding> {
    let count = |min_stack_depth: u16| {
        let req = TableRequest {
            filters: Filters {
                min_stack_depth,
                ..super::non_idle(engine)
            },
            ..Default::default()
        };
        engine.table(&req).map(|r| r.total.count).ok()
    };
    let (all, deep) = (count(0)?, count(2)?);
    let n = all.saturating_sub(deep);
    (n > 0).then(|| Finding {
        rule: "samples-without-stacks",
        category: Category::Health,
        title: format!(
            "{} of {} non-idle CPU samples have a one-frame stack (the instruction pointer alone: no stack walk, or a walk of one frame)",
            thousands(n),
            thousands(all)
        ),
        figure: n as f64,
        unit: "samples",
        view: super::without_idle(
            engine,
            FindingView::table("cpu-sampled", &["Stack"], Vec::new(), "Count"),
        ),
    })
}

/// Images whose PDB GUID is missing: no DbgID_RSDS event for them.
fn images_without_identity(engine: &Engine) -> Option<Finding> {
    let t = engine.trace();
    let def = TableDef::of(t, "images")?;
    let req = FlatRequest {
        keys: vec![def.column("PDB GUID")?],
        values: vec![crate::ValueSpec::parse(&def, "Count").ok()?],
        ..Default::default()
    };
    let table = flat::group(t, &def, &req).ok()?;
    let (all, missing) = table.rows.iter().fold((0, 0), |(all, missing), r| {
        let n = super::count_of(r.values.first()).unwrap_or(0);
        let empty = matches!(r.keys.first(), Some(CellValue::Text(s)) if s.is_empty());
        (all + n, missing + if empty { n } else { 0 })
    });
    (missing > 0).then(|| Finding {
        rule: "images-without-identity",
        category: Category::Health,
        title: format!(
            "{} of {} image loads have no PDB identity (KernelTraceControl DbgID_RSDS)",
            thousands(missing),
            thousands(all)
        ),
        figure: missing as f64,
        unit: "images",
        view: FindingView::table("images", &["PDB GUID"], vec![String::new()], "Count")
            .values(&["Count"]),
    })
}

/// Frames inside a module that no PDB named, by module name: what
/// `etlscope symbols` prints as frames minus named (one frame per
/// distinct module + RVA, from every stack and sample).
pub(crate) fn unnamed_by_module(t: &model::Trace) -> (Vec<(String, u64)>, u64) {
    // Per module row first (a frame table holds millions of rows), then
    // by name: rows of one name are one module.
    let mut by_row = vec![0u64; t.modules.name.len()];
    let mut all = 0u64;
    for (row, &m) in t.frames.module.iter().enumerate() {
        let Some(n) = by_row.get_mut(m as usize) else {
            continue; // NONE or out of range: a raw address, not a module frame
        };
        all += 1;
        if t.frames
            .func
            .get(row)
            .copied()
            .unwrap_or(model::images::NONE)
            == model::images::NONE
        {
            *n += 1;
        }
    }
    let mut by_name: std::collections::BTreeMap<&str, u64> = Default::default();
    for (&name, &n) in t.modules.name.iter().zip(&by_row) {
        if n > 0 {
            *by_name.entry(t.strings.get(name)).or_default() += n;
        }
    }
    let rows = by_name
        .into_iter()
        .map(|(m, n)| (m.to_string(), n))
        .collect();
    (rows, all)
}

/// The modules `unnamed_frames` names: from `MIN_UNNAMED_SHARE` of all
/// module frames, most first, at most `TOP_UNNAMED`.
pub(crate) fn top_unnamed(mut rows: Vec<(String, u64)>, all: u64) -> Vec<(String, u64)> {
    rows.retain(|(_, n)| *n > 0 && *n as f64 >= MIN_UNNAMED_SHARE * all as f64);
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    rows.truncate(TOP_UNNAMED);
    rows
}

fn unnamed_frames(engine: &Engine) -> Vec<Finding> {
    let (rows, all) = unnamed_by_module(engine.trace());
    top_unnamed(rows, all)
        .into_iter()
        .map(|(m, n)| Finding {
            rule: "frames-without-symbols",
            category: Category::Health,
            title: format!(
                "{} distinct frames in {m} have no symbols (etlscope symbols: frames not named)",
                thousands(n)
            ),
            figure: n as f64,
            unit: "frames",
            view: FindingView::symbols(&m),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn info_findings_only_for_nonzero_counts() {
        assert!(super::info("lost-events", "lost_events", 0, "x").is_none());
        let f = super::info("lost-events", "lost_events", 1200, "events lost");
        let f = f.expect("a finding");
        assert_eq!(f.title, "1,200 events lost");
        assert_eq!(f.view.target, "lost_events");
        assert_eq!(f.view.link(), "");
    }

    #[test]
    fn unnamed_modules_from_one_percent_most_first() {
        let rows = vec![
            ("a.dll".to_string(), 5),
            ("b.dll".to_string(), 50),
            ("c.dll".to_string(), 0),
            ("d.dll".to_string(), 10),
        ];
        // 1% of 1,000 frames is 10: a.dll (5) and c.dll (0) stay out.
        let top = super::top_unnamed(rows, 1000);
        assert_eq!(top, [("b.dll".to_string(), 50), ("d.dll".to_string(), 10)]);
    }

    #[test]
    fn unnamed_frames_count_module_frames_without_a_function() {
        let mut t = model::Trace::default();
        let a = t.strings.intern("a.dll");
        let b = t.strings.intern("b.dll");
        t.modules.name.extend([a, b]);
        let f0 = t.frames.intern_module_frame(0, 0x10);
        t.frames.intern_module_frame(0, 0x20);
        t.frames.intern_module_frame(1, 0x10);
        t.frames.intern_raw_frame(0, 0x7fff_0000);
        t.apply_names([(f0, "A")]);
        let (rows, all) = super::unnamed_by_module(&t);
        assert_eq!(all, 3, "the raw address is no module frame");
        assert_eq!(rows, [("a.dll".to_string(), 1), ("b.dll".to_string(), 1)]);
    }
}
