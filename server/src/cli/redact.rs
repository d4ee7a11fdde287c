//! `etlscope redact FILE... -o OUT`: a copy of a trace to share, with the
//! recorder's names, command-line arguments, chosen paths, addresses and
//! environment values replaced (crates/redact). One file in, one `.etl`
//! out; a trace of several files (a `.diagsession`, PerfView's companions)
//! becomes a zip of its redacted `.etl` files, stored uncompressed.

use ::redact::{Category, Options, Redacted};
use anyhow::{bail, Context};
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct RedactArgs {
    /// The files of the trace (several, or a container's members, are one trace).
    #[arg(required = true, num_args = 1..)]
    pub file: Vec<PathBuf>,
    /// The copy to write: an .etl (a zip of .etl files for a trace of several files).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// A category to leave as it is (repeatable): users, computer, domain,
    /// command-lines, titles, paths, network, environment.
    #[arg(long, value_name = "CATEGORY")]
    pub keep: Vec<String>,
    /// Replace the paths below this folder, component by component with
    /// extensions kept (repeatable), e.g. `C:\src`.
    #[arg(long = "path", value_name = "PREFIX")]
    pub paths: Vec<String>,
    /// What was replaced, as text or as one JSON object (counts per category, examples).
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    pub report: String,
}

pub fn run(args: RedactArgs, companions: bool) -> anyhow::Result<()> {
    let mut options = Options::all();
    for k in &args.keep {
        let c = Category::parse(k).with_context(|| {
            let names: Vec<_> = Category::ALL.iter().map(|c| c.name()).collect();
            format!("--keep {k}: not a category ({})", names.join(", "))
        })?;
        options.keep.push(c);
    }
    options.path_prefixes = args.paths.clone();
    let opened = super::files::open(&args.file, companions)?;
    let redacted = ::redact::redact(&opened.file, &options)
        .with_context(|| format!("cannot redact {}: nothing was written", opened.shown))?;
    write_output(&args.output, &redacted)?;
    let mut out = if args.report == "json" {
        let mut s = serde_json::to_string_pretty(&report_json(&args.output, &redacted, &options))?;
        s.push('\n');
        s
    } else {
        report_text(&args.output, &redacted)
    };
    if out.is_empty() {
        out.push('\n');
    }
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

/// The copy as one file: the only member's bytes, or a stored zip of them.
pub(crate) fn copy_bytes(r: Redacted) -> anyhow::Result<Vec<u8>> {
    let mut members = r.members;
    match members.len() {
        0 => bail!("the trace has no file to write"),
        1 => Ok(members.pop().map(|(_, b)| b).unwrap_or_default()),
        _ => stored_zip(&members),
    }
}

/// Write the copy next to `out` and rename it there, so a failure leaves
/// no half-written file under the name asked for.
fn write_output(out: &Path, r: &Redacted) -> anyhow::Result<()> {
    let bytes = match r.members.as_slice() {
        [(_, only)] => only.clone(),
        [] => bail!("the trace has no file to write"),
        many => stored_zip(many)?,
    };
    let mut tmp = out.as_os_str().to_owned();
    tmp.push(".partial");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, &bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, out).with_context(|| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}", out.display())
    })
}

/// The members as a zip without compression: any byte search of the copy
/// sees every byte of every member. Its comment is the mark of a redacted
/// copy (`redact::marker`), as each member's first buffer holds it.
fn stored_zip(members: &[(String, Vec<u8>)]) -> anyhow::Result<Vec<u8>> {
    let mut cur = std::io::Cursor::new(Vec::new());
    let mut z = zip::ZipWriter::new(&mut cur);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);
    let mut used = std::collections::HashSet::new();
    for (i, (name, bytes)) in members.iter().enumerate() {
        let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
        let mut entry = if base.to_ascii_lowercase().ends_with(".etl") {
            base.to_string()
        } else {
            format!("{base}.etl")
        };
        if !used.insert(entry.clone()) {
            entry = format!("{i}-{entry}");
            used.insert(entry.clone());
        }
        z.start_file(entry, opts)?;
        z.write_all(bytes)?;
    }
    z.set_comment(ZIP_COMMENT)?;
    z.finish()?;
    Ok(cur.into_inner())
}

/// The zip comment of a redacted copy of several files.
pub(crate) const ZIP_COMMENT: &str = "etlscope redacted copy, v1";

/// Whether the file at `path` is a copy `etlscope redact` wrote: an .etl
/// whose first buffers carry the mark, or the redactor's zip of them.
pub(crate) fn is_redacted_copy(path: &Path) -> std::io::Result<bool> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)?
        .take(::redact::marker::HEAD_BYTES as u64)
        .read_to_end(&mut head)?;
    if etl::container::is_zip(&head) {
        let f = std::fs::File::open(path)?;
        return Ok(zip::ZipArchive::new(f).is_ok_and(|z| z.comment() == ZIP_COMMENT.as_bytes()));
    }
    Ok(::redact::marker::is_marked(&head))
}

fn report_json(out: &Path, r: &Redacted, options: &Options) -> Value {
    let mut v = report_value(r, options);
    v["output"] = json!(out.display().to_string());
    v
}

/// What `--report json` says of a redaction (also the server's preview):
/// counts and examples per category, the members written, buffers and events.
pub(crate) fn report_value(r: &Redacted, options: &Options) -> Value {
    let mut cats = Map::new();
    for c in Category::ALL {
        let kept = !options.wants(c);
        let rep = r.report.categories.get(&c).cloned().unwrap_or_default();
        let examples: Vec<Value> = rep
            .examples
            .iter()
            .map(|(o, n)| json!({"original": o, "replacement": n}))
            .collect();
        cats.insert(
            c.name().into(),
            json!({"kept": kept, "originals": rep.originals, "replaced": rep.replaced, "examples": examples}),
        );
    }
    json!({
        "members": r.members.iter().map(|(n, b)| json!({"name": n, "bytes": b.len()})).collect::<Vec<_>>(),
        "buffers": r.report.buffers,
        "decompressed_buffers": r.report.decompressed,
        "events": r.report.events,
        "marked": r.marked,
        "categories": cats,
    })
}

fn report_text(out: &Path, r: &Redacted) -> String {
    let mut s = String::new();
    say!(
        s,
        "wrote {} ({} buffers, {} events; {} compressed buffers written decompressed)",
        out.display(),
        r.report.buffers,
        r.report.events,
        r.report.decompressed
    );
    for (c, rep) in &r.report.categories {
        let ex: Vec<String> = rep
            .examples
            .iter()
            .map(|(o, n)| format!("{o} -> {n}"))
            .collect();
        say!(
            s,
            "  {:<14} {} originals, {} places{}",
            c.name(),
            rep.originals,
            rep.replaced,
            if ex.is_empty() {
                String::new()
            } else {
                format!(" (e.g. {})", ex.join(", "))
            }
        );
    }
    s
}
