//! I/O: files that page in often: hard faults (a thread touched a page
//! that had to be read from the file on disk, and waited for it) by file.
//! Its view is the Hard Faults table grouped by File Path.

use super::{thousands, Category, Finding, FindingView};
use std::collections::BTreeMap;

/// A file is named from this many hard faults (each a synchronous read a
/// thread waited on)...
pub const MIN_FAULTS: u64 = 100;
/// ...at most this many files.
pub const TOP: usize = 3;

/// Hard faults per file path (faults on no known file are left out): the
/// count and the time threads waited, in ns.
pub(crate) fn by_file(t: &model::Trace) -> BTreeMap<&str, (u64, i64)> {
    let h = &t.hard_faults;
    let mut out: BTreeMap<&str, (u64, i64)> = BTreeMap::new();
    for (i, &p) in h.path.iter().enumerate() {
        let path = t.strings.get(p);
        if path.is_empty() {
            continue;
        }
        let e = out.entry(path).or_default();
        e.0 += 1;
        e.1 =
            e.1.saturating_add(h.duration_ns.get(i).copied().unwrap_or(0));
    }
    out
}

pub(crate) fn run(engine: &crate::Engine) -> Vec<Finding> {
    let t = engine.trace();
    let mut rows: Vec<(&str, u64, i64)> = by_file(t)
        .into_iter()
        .filter(|(_, (n, _))| *n >= MIN_FAULTS)
        .map(|(p, (n, ns))| (p, n, ns))
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    rows.into_iter()
        .take(TOP)
        .map(|(p, n, ns)| Finding {
            rule: "hard-faults",
            category: Category::Io,
            title: format!(
                "{p} hard-faulted {} times ({:.0} ms waiting for the disk)",
                thousands(n),
                ns as f64 / 1e6
            ),
            figure: n as f64,
            unit: "faults",
            view: FindingView::table("hard-faults", &["File Path"], vec![p.to_string()], "Count")
                .values(&["Count", "Size", "I/O Time"]),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn faults_by_file_skip_unnamed_files() {
        let mut t = model::Trace::default();
        let a = t.strings.intern(r"C:\a.dll");
        let none = t.strings.intern("");
        for (p, d) in [(a, 5), (a, 7), (none, 100)] {
            t.hard_faults.path.push(p);
            t.hard_faults.duration_ns.push(d);
            t.hard_faults.time.push(0);
        }
        let m = super::by_file(&t);
        assert_eq!(m.len(), 1);
        assert_eq!(m[r"C:\a.dll"], (2, 12));
    }

    #[test]
    fn files_from_100_faults_most_first() {
        let mut t = model::Trace::default();
        // 150 faults of 2 ms on a.dll, 99 on b.dll (under the threshold).
        for (name, n) in [(r"C:\a.dll", 150), (r"C:\b.dll", 99)] {
            let p = t.strings.intern(name);
            for _ in 0..n {
                t.hard_faults.path.push(p);
                t.hard_faults.duration_ns.push(2_000_000);
                t.hard_faults.time.push(0);
            }
        }
        let engine = crate::Engine::new(std::sync::Arc::new(t));
        let list = super::run(&engine);
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].figure, 150.0);
        assert_eq!(
            list[0].title,
            r"C:\a.dll hard-faulted 150 times (300 ms waiting for the disk)"
        );
        assert_eq!(list[0].view.row, [r"C:\a.dll"]);
        let link = list[0].view.link();
        assert!(link.contains("t=hard-faults"), "{link}");
        assert!(
            link.contains("g=File+Path") || link.contains("g=File%20Path"),
            "{link}"
        );
    }
}
