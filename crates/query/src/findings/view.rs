//! The view a finding points at: the UI link (frontend/README.md, "The
//! link format") and the `etlscope export` command that prints its figure.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    /// A table grouped by `group`; the figure is column `column` of the row
    /// whose keys are `row`.
    Table,
    /// Callers/callees by module of `target` (a module name, or a
    /// `module!function` with `function_target`); the figure is its
    /// inclusive count of samples.
    Butterfly,
    /// A figure of `etlscope info --json`, key `target` (`a.b` for a
    /// nested key): no view shows it.
    Info,
    /// Module `target`'s frames without symbols as `etlscope symbols`
    /// prints them (frames minus named, summed over modules of that name).
    Symbols,
    /// A count of the model's `table` (no query table shows it yet): the
    /// events whose `group` columns are `row`.
    Model,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FindingView {
    pub kind: ViewKind,
    pub table: &'static str,
    pub group: Vec<String>,
    /// Value columns (`COL[:AGG]`) of the export; empty: the table's defaults.
    pub values: Vec<String>,
    pub filters: Vec<(String, String)>,
    /// Rows left out (a column's text), e.g. Idle's samples.
    pub excludes: Vec<(String, String)>,
    pub range: Option<(f64, f64)>,
    /// Key texts of the row holding the figure (one per `group` column).
    pub row: Vec<String>,
    /// Header of the value column holding the figure.
    pub column: String,
    pub target: String,
    pub function_target: bool,
}

impl FindingView {
    pub fn table(table: &'static str, group: &[&str], row: Vec<String>, column: &str) -> Self {
        FindingView {
            kind: ViewKind::Table,
            table,
            group: group.iter().map(|s| s.to_string()).collect(),
            values: Vec::new(),
            filters: Vec::new(),
            excludes: Vec::new(),
            range: None,
            row,
            column: column.to_string(),
            target: String::new(),
            function_target: false,
        }
    }

    pub fn butterfly(target: String, function_target: bool) -> Self {
        FindingView {
            kind: ViewKind::Butterfly,
            table: "cpu-sampled",
            group: Vec::new(),
            values: Vec::new(),
            filters: Vec::new(),
            excludes: Vec::new(),
            range: None,
            row: Vec::new(),
            column: "Count".into(),
            target,
            function_target,
        }
    }

    pub fn info(key: &str) -> Self {
        FindingView {
            kind: ViewKind::Info,
            target: key.to_string(),
            column: String::new(),
            ..FindingView::butterfly(String::new(), false)
        }
    }

    pub fn symbols(module: &str) -> Self {
        FindingView {
            kind: ViewKind::Symbols,
            ..FindingView::info(module)
        }
    }

    pub fn model(table: &'static str, group: &[&str], row: Vec<String>) -> Self {
        FindingView {
            kind: ViewKind::Model,
            ..FindingView::table(table, group, row, "Count")
        }
    }

    pub fn filter(mut self, column: &str, value: &str) -> Self {
        self.filters.push((column.to_string(), value.to_string()));
        self
    }

    pub fn values(mut self, values: &[&str]) -> Self {
        self.values = values.iter().map(|s| s.to_string()).collect();
        self
    }

    /// The UI's query string (without `?`), every value percent-encoded.
    pub fn link(&self) -> String {
        if matches!(
            self.kind,
            ViewKind::Info | ViewKind::Symbols | ViewKind::Model
        ) {
            return String::new();
        }
        let mut q: Vec<(&str, String)> = vec![("v", "2".into())];
        match self.kind {
            ViewKind::Table => {
                q.push(("view", "table".into()));
                q.push(("t", self.table.into()));
                q.push(("g", self.group.join(",")));
                if !self.values.is_empty() {
                    let cols: Vec<&str> = self
                        .values
                        .iter()
                        .map(|v| v.split(':').next().unwrap_or(v))
                        .collect();
                    q.push(("c", cols.join(",")));
                }
            }
            ViewKind::Info | ViewKind::Symbols | ViewKind::Model => {}
            ViewKind::Butterfly => {
                q.push(("view", "butterfly".into()));
                q.push(("t", self.table.into()));
                let kind = if self.function_target {
                    "function"
                } else {
                    "module"
                };
                q.push(("bk", kind.into()));
                q.push(("bt", self.target.clone()));
                q.push(("bb", "module".into()));
            }
        }
        for (c, v) in &self.filters {
            q.push(("f", format!("{c}={v}")));
        }
        for (c, v) in &self.excludes {
            q.push(("x", format!("{c}={v}")));
        }
        if let Some((a, b)) = self.range {
            q.push(("r", format!("{a}-{b}")));
        }
        if self.kind == ViewKind::Table && !self.row.is_empty() {
            let path: Vec<String> = self.row.iter().map(|s| path_segment(s)).collect();
            q.push(("sel", path.join("/")));
        }
        q.iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// `etlscope export` arguments (after the file) that print the figure:
    /// a table view's row, or for a butterfly the samples grouped by stack.
    pub fn export_args(&self) -> Vec<String> {
        if matches!(
            self.kind,
            ViewKind::Info | ViewKind::Symbols | ViewKind::Model
        ) {
            return Vec::new();
        }
        let mut a = vec!["--table".to_string(), self.table.to_string()];
        let group = match self.kind {
            ViewKind::Table => self.group.join(","),
            ViewKind::Butterfly | ViewKind::Info | ViewKind::Symbols | ViewKind::Model => {
                "Stack".into()
            }
        };
        a.extend(["--group".into(), group]);
        if !self.values.is_empty() {
            a.extend(["--values".into(), self.values.join(",")]);
        }
        for (c, v) in &self.filters {
            a.extend(["--filter".into(), format!("{c}={v}")]);
        }
        for (c, v) in &self.excludes {
            a.extend(["--filter".into(), format!("{c}!={v}")]);
        }
        if let Some((s, e)) = self.range {
            a.extend(["--range".into(), format!("{s}-{e}")]);
        }
        a
    }
}

/// A path segment of the link format: `/` as `%2F`, empty as `~`.
fn path_segment(s: &str) -> String {
    if s.is_empty() {
        "~".into()
    } else {
        s.replace('%', "%25").replace('/', "%2F")
    }
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
    fn table_link_and_export_args() {
        let v = FindingView::table(
            "file-io",
            &["File Path"],
            vec![r"C:\a/b.dll".into()],
            "Count",
        )
        .filter("Type", "Create");
        assert_eq!(
            v.link(),
            "v=2&view=table&t=file-io&g=File%20Path&f=Type%3DCreate&sel=C%3A%5Ca%252Fb.dll"
        );
        assert_eq!(
            v.export_args(),
            [
                "--table",
                "file-io",
                "--group",
                "File Path",
                "--filter",
                "Type=Create"
            ]
        );
    }

    #[test]
    fn butterfly_link() {
        let v = FindingView::butterfly("x.dll".into(), false).filter("Process Name", "e.exe");
        assert_eq!(
            v.link(),
            "v=2&view=butterfly&t=cpu-sampled&bk=module&bt=x.dll&bb=module&f=Process%20Name%3De.exe"
        );
        assert_eq!(v.export_args()[3], "Stack");
    }
}
