//! Waits (CPU Usage (Precise)): threads that spend most of the trace
//! waiting, by the time they waited before each switch-in, and on what:
//! the thread (ReadyThread event) that readied them for most of that time;
//! the view's Ready Thread Stack column shows where it did.

use super::{thousands, Category, Finding, FindingView};
use crate::table::flat::{self, FlatRequest};
use crate::{CellValue, TableDef, ValueSpec};
use std::collections::HashMap;

/// A thread is named when its waits add up to at least this share of the trace...
pub const MIN_SHARE: f64 = 0.5;
/// ...at most this many threads.
pub const TOP: usize = 3;

pub(crate) fn qualifies(wait_ns: i64, duration_ns: i64) -> bool {
    duration_ns > 0 && wait_ns as f64 >= MIN_SHARE * duration_ns as f64
}

pub(crate) fn run(engine: &crate::Engine) -> Vec<Finding> {
    let t = engine.trace();
    let Some(def) = TableDef::of(t, "cpu-precise") else {
        return Vec::new();
    };
    let (Some(p), Some(tid), Ok(waits), Ok(count)) = (
        def.column("New Process"),
        def.column("New Thread Id"),
        ValueSpec::parse(&def, "Waits:sum"),
        ValueSpec::parse(&def, "Count"),
    ) else {
        return Vec::new();
    };
    let header = waits.header(&def);
    let req = FlatRequest {
        keys: vec![p, tid],
        values: vec![waits, count],
        ..Default::default()
    };
    let Ok(table) = flat::group(t, &def, &req) else {
        return Vec::new();
    };
    let readiers = readiers(engine);
    let duration = t.info.duration_ns;
    let mut rows: Vec<(String, String, i64, u64)> = table
        .rows
        .iter()
        .filter_map(|r| {
            let (Some(CellValue::Text(p)), Some(tid)) = (r.keys.first(), r.keys.get(1)) else {
                return None;
            };
            let tid = tid.text(crate::ColumnType::Id);
            let Some(CellValue::Number(ns)) = r.values.first() else {
                return None;
            };
            let n = super::count_of(r.values.get(1)).unwrap_or(0);
            qualifies(*ns, duration).then(|| (p.clone(), tid, *ns, n))
        })
        .collect();
    rows.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| (&a.0, &a.1).cmp(&(&b.0, &b.1))));
    rows.into_iter()
        .take(TOP)
        .map(|(p, tid, ns, n)| Finding {
            rule: "thread-waits",
            category: Category::Cpu,
            title: format!(
                "thread {tid} of {p} waited {:.3} s ({:.0}% of the trace) before {} switch-ins{}",
                ns as f64 / 1e9,
                ns as f64 * 100.0 / duration.max(1) as f64,
                thousands(n),
                match readiers.get(&(p.clone(), tid.clone())) {
                    Some((rp, rt, w)) => format!(
                        ", {:.3} s of it until thread {rt} of {rp} readied it",
                        *w as f64 / 1e9
                    ),
                    None => String::new(),
                }
            ),
            figure: ns as f64 / 1e9,
            unit: "s",
            view: FindingView::table(
                "cpu-precise",
                &["New Process", "New Thread Id"],
                vec![p, tid],
                &header,
            )
            .values(&["Waits:sum", "Count"]),
        })
        .collect()
}

/// Per waiting thread (process text, thread id text): the readying
/// thread whose readying ended most of its waits (process, thread id, ns).
/// Waits no ReadyThread event explains are left out.
type Readier = (String, String, i64);

fn readiers(engine: &crate::Engine) -> HashMap<(String, String), Readier> {
    let t = engine.trace();
    let mut out: HashMap<(String, String), Readier> = HashMap::new();
    let Some(def) = TableDef::of(t, "cpu-precise") else {
        return out;
    };
    let keys = [
        "New Process",
        "New Thread Id",
        "Readying Process",
        "Readying Thread Id",
    ];
    let (Some(keys), Ok(waits)) = (
        keys.iter()
            .map(|k| def.column(k))
            .collect::<Option<Vec<_>>>(),
        ValueSpec::parse(&def, "Waits:sum"),
    ) else {
        return out;
    };
    let req = FlatRequest {
        keys,
        values: vec![waits],
        ..Default::default()
    };
    let Ok(table) = flat::group(t, &def, &req) else {
        return out;
    };
    for r in &table.rows {
        let text = |i: usize| {
            r.keys
                .get(i)
                .map(|c| c.text(crate::ColumnType::Id))
                .unwrap_or_default()
        };
        let Some(CellValue::Number(ns)) = r.values.first() else {
            continue;
        };
        let (rp, rt) = (text(2), text(3));
        if rp.is_empty() || rt.is_empty() || *ns <= 0 {
            continue;
        }
        let e = out
            .entry((text(0), text(1)))
            .or_insert((rp.clone(), rt.clone(), *ns));
        if *ns > e.2 || (*ns == e.2 && (&rp, &rt) < (&e.0, &e.1)) {
            *e = (rp, rt, *ns);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn half_the_trace_or_more() {
        assert!(super::qualifies(5, 10));
        assert!(!super::qualifies(4, 10));
        assert!(!super::qualifies(4, 0));
    }

    /// a.exe's thread 11 waits 4 s (readied by b.exe's 21), 2 s (readied by
    /// b.exe's 22) and 0.5 s (no ReadyThread) of a 10 s trace: 6.5 s, 65%,
    /// mostly until 21 readied it. b.exe's 21 waits 1 s: under half.
    #[test]
    fn waiting_thread_and_its_main_readier() {
        use model::NONE;
        let s = 1_000_000_000;
        let mut t = model::Trace::default();
        t.info.duration_ns = 10 * s;
        let (a, b) = (t.strings.intern("a.exe"), t.strings.intern("b.exe"));
        let (pa, pb) = (t.processes.push(10, a, 0), t.processes.push(20, b, 0));
        let ta = t.threads.push(11, pa, 0);
        let tb = t.threads.push(21, pb, 0);
        let tc = t.threads.push(22, pb, 0);
        for readier in [tb, tc] {
            let r = &mut t.ready_threads;
            r.time.push(0);
            r.cpu.push(0);
            r.thread.push(ta);
            r.readying_thread.push(readier);
            r.adjust_reason.push(0);
            r.adjust_increment.push(0);
            r.flags.push(0);
            r.stack.push(NONE);
        }
        // (new thread, old thread, wait, ReadyThread row)
        let rows = [
            (ta, tb, 4 * s, 0),
            (tb, ta, s, NONE),
            (ta, tb, 2 * s, 1),
            (ta, tc, s / 2, NONE),
        ];
        for (i, (new, old, wait, ready)) in rows.into_iter().enumerate() {
            let c = &mut t.cswitches;
            c.time.push(i as i64 * s);
            c.cpu.push(0);
            c.new_thread.push(new);
            c.old_thread.push(old);
            c.old_wait_reason.push(0);
            c.old_state.push(5);
            c.new_priority.push(8);
            c.old_priority.push(8);
            c.new_wait_time_raw.push(0);
            c.wait_ns.push(wait);
            c.ready_ns.push(0);
            c.ready_event.push(ready);
            c.run_ns.push(1000);
            c.stack.push(NONE);
        }
        let engine = crate::Engine::new(std::sync::Arc::new(t));
        let list = super::run(&engine);
        assert_eq!(list.len(), 1, "{list:?}");
        assert_eq!(list[0].figure, 6.5);
        assert_eq!(
            list[0].title,
            "thread 11 of a.exe (10) waited 6.500 s (65% of the trace) before 3 switch-ins, \
             4.000 s of it until thread 21 of b.exe (20) readied it"
        );
    }
}
