//! `etlscope findings FILE [--format text|json]`: what in the trace deserves
//! a look (query::findings), each with its figure, the UI link and the
//! `etlscope export` arguments that print the same figure. The HTTP API's
//! `/api/traces/{id}/findings` gives the same list (`crate::findings_json`).

use crate::findings_json::findings_json;
use anyhow::Context;
use etl::EtlFile;
use query::findings::{self, ViewKind};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

pub fn run(path: &Path, json: bool, symbol_path: Option<&str>) -> anyhow::Result<()> {
    let file = EtlFile::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut trace = super::progress::build_model(&file);
    super::symbols::name_frames(&mut trace, &[path.to_path_buf()], symbol_path);
    let engine = query::Engine::new(Arc::new(trace));
    let list = findings::run(&engine);
    let mut out = String::new();
    if json {
        out = serde_json::to_string_pretty(&findings_json(&list))?;
        out.push('\n');
    } else {
        for f in &list {
            say!(out, "[{}] {}", f.category.name(), f.title);
            if f.view.kind == ViewKind::Info {
                say!(out, "    etlscope info: {}", f.view.target);
            } else if f.view.kind == ViewKind::Symbols {
                say!(out, "    etlscope symbols: module {}", f.view.target);
            } else if f.view.kind == ViewKind::Model {
                say!(out, "    no view shows the {} table yet", f.view.table);
            } else {
                say!(out, "    link: ?{}", f.view.link());
                say!(
                    out,
                    "    etlscope export {} {}",
                    shell_word(&path.display().to_string()),
                    f.view
                        .export_args()
                        .iter()
                        .map(|a| shell_word(a))
                        .collect::<Vec<_>>()
                        .join(" ")
                );
            }
        }
        if list.is_empty() {
            say!(out, "no findings");
        }
    }
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    match w.write_all(out.as_bytes()).and_then(|()| w.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

/// `s` quoted for a POSIX shell when it needs it.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=,".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
