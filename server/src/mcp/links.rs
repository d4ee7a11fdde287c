//! Links to the UI's view of what a tool answered, in the UI's own URL
//! state (frontend/url-state.js, format v2; the comparison page's
//! frontend/compare-url.js): open one and the page shows the same rows.

use super::args::{FilterArg, RangeArg, SortArg};

/// A view's query parameters, in the order the UI writes them.
#[derive(Default)]
pub struct Link {
    pairs: Vec<(&'static str, String)>,
}

impl Link {
    /// A table view of `table` grouped by `groups`.
    pub fn table(table: &str, groups: &[String]) -> Link {
        let mut l = Link::default();
        l.push("v", "2");
        l.push("view", "table");
        l.push("t", table);
        l.push("g", &groups.join(","));
        l
    }

    /// The flame graph of CPU Usage (Sampled).
    pub fn flame() -> Link {
        let mut l = Link::default();
        l.push("v", "2");
        l.push("view", "flame");
        l.push("t", "cpu-sampled");
        l
    }

    /// Callers and callees of a function or module, listed by function or module.
    pub fn butterfly(kind: &str, target: &str, by: &str) -> Link {
        let mut l = Link::default();
        l.push("v", "2");
        l.push("view", "butterfly");
        l.push("t", "cpu-sampled");
        l.push("bk", kind);
        l.push("bt", target);
        l.push("bb", by);
        l
    }

    pub fn push(&mut self, k: &'static str, v: &str) {
        self.pairs.push((k, v.to_string()));
    }

    /// Value columns right of the gold bar (none: the table's defaults).
    pub fn values(mut self, values: &[String]) -> Link {
        if !values.is_empty() {
            self.push("c", &values.join(","));
        }
        self
    }

    /// The sort as the UI names it (a column header), when it names one.
    pub fn sort(mut self, table: &str, s: &Option<SortArg>) -> Link {
        let Some(s) = s else { return self };
        let header = match s.by.as_str() {
            "count" => "Count",
            "weight" if table == "cpu-sampled" => "Weight (ms)",
            "percent" => "% Weight",
            "first" => "First (s)",
            "last" => "Last (s)",
            "weight" | "label" => return self,
            other => other,
        };
        self.push("s", header);
        if !s.descending {
            self.push("asc", "1");
        }
        self
    }

    pub fn filters(mut self, filters: &[FilterArg]) -> Link {
        for f in filters {
            let column = if f.contains {
                format!("{} contains", f.column)
            } else {
                f.column.clone()
            };
            for v in &f.values {
                self.push(if f.exclude { "x" } else { "f" }, &format!("{column}={v}"));
            }
        }
        self
    }

    pub fn range(mut self, r: &Option<RangeArg>) -> Link {
        if let Some(r) = r {
            self.push("r", &format!("{}-{}", seconds(r.start_s), seconds(r.end_s)));
        }
        self
    }

    /// Rows expanded down to `path`, and the row at its end selected.
    pub fn open(mut self, path: &[String]) -> Link {
        if !path.is_empty() {
            let p = path_text(path);
            self.push("o", &p);
            self.push("sel", &p);
        }
        self
    }

    /// A caller (`c`) or callee (`e`) tree row expanded, from the target outwards.
    pub fn open_tree(mut self, side: &str, path: &[String]) -> Link {
        if !path.is_empty() {
            let mut all = vec![side.to_string()];
            all.extend(path.iter().cloned());
            self.push("bo", &path_text(&all));
        }
        self
    }

    /// `BASE/t/ID?...`.
    pub fn to(&self, base: &str, trace: &str) -> String {
        format!("{base}/t/{trace}?{}", self.query())
    }

    fn query(&self) -> String {
        self.pairs
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// The comparison page of two traces (frontend/compare-url.js).
pub fn compare(base_url: &str, ids: (&str, &str), c: &CompareView) -> String {
    let mut l = Link::default();
    l.push("t", c.table);
    l.push("g", &c.keys.join(","));
    if let Some(v) = c.values {
        l.push("v", &v.join(","));
    }
    for (k, r) in [("rb", c.base_range), ("rn", c.new_range)] {
        if let Some(r) = r {
            l.push(k, &format!("{}-{}", seconds(r.start_s), seconds(r.end_s)));
        }
    }
    l.push("n", c.normalize);
    format!("{base_url}/compare/{}/{}?{}", ids.0, ids.1, l.query())
}

pub struct CompareView<'a> {
    pub table: &'a str,
    pub keys: &'a [String],
    pub values: Option<&'a [String]>,
    pub base_range: Option<&'a RangeArg>,
    pub new_range: Option<&'a RangeArg>,
    pub normalize: &'a str,
}

/// Seconds as the UI writes them: at most 6 decimals, no trailing zeros.
fn seconds(s: f64) -> String {
    let t = format!("{s:.6}");
    let t = t.trim_end_matches('0').trim_end_matches('.');
    t.to_string()
}

/// A tree path as the UI writes it: labels joined by `/`, each with `%` and
/// `/` escaped, an empty label as `~`.
fn path_text(path: &[String]) -> String {
    path.iter()
        .map(|s| {
            if s.is_empty() {
                "~".to_string()
            } else {
                s.replace('%', "%25")
                    .replace('/', "%2F")
                    .replace('~', "%7E")
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Percent-encoding of everything but unreserved characters.
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~!".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_link_as_the_ui_writes_it() {
        let range = Some(RangeArg {
            start_s: 7.0,
            end_s: 23.5,
        });
        let l = Link::table("file-io", &["Type".into(), "File Path".into()])
            .range(&range)
            .open(&["Create".into(), "a/b%".into(), String::new()]);
        assert_eq!(
            l.to("http://h", "x"),
            "http://h/t/x?v=2&view=table&t=file-io&g=Type%2CFile%20Path&r=7-23.5&o=Create%2Fa%252Fb%2525%2F~&sel=Create%2Fa%252Fb%2525%2F~"
        );
    }
}
