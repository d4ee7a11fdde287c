//! `--manifests PATH` (files or folders of `.man`/`.xml` instrumentation
//! manifests and `.pack` schema packs) and `etlscope manifests ...`: the
//! user's schemas, consulted after the trace's own (docs/schema-packs.md).

use clap::Subcommand;
use etl::decode::schema::{manifest_file, pack, packs};
use std::path::{Path, PathBuf};

/// Largest manifest or pack read (the biggest public manifests are ~2 MB).
const MAX_FILE: u64 = 64 << 20;
/// Files read from one folder, at most.
const MAX_FILES: usize = 10_000;

#[derive(Subcommand, Debug)]
pub enum ManifestsCommand {
    /// Turn manifests (`.man`/`.xml`) and packs into one schema pack; an
    /// event (id, version) of an earlier input wins over a later one.
    Pack {
        /// The pack to write.
        out: PathBuf,
        /// Manifests, packs or folders of them.
        #[arg(required = true, num_args = 1..)]
        inputs: Vec<PathBuf>,
        /// A line for the pack's notes (where its facts come from).
        #[arg(long)]
        note: Vec<String>,
    },
    /// Windows only: the registered providers' schemas, read through TDH,
    /// as a schema pack (all manifest providers, or those named).
    Export {
        out: PathBuf,
        /// Provider names or GUIDs; none: every manifest provider.
        providers: Vec<String>,
    },
}

/// A file's text: UTF-8, or UTF-16 with its byte-order mark (what
/// PowerShell's `>` writes).
fn text_of(bytes: &[u8]) -> Result<String, String> {
    let utf16 = |le: bool, b: &[u8]| {
        let units: Vec<u16> = b
            .chunks_exact(2)
            .map(|c| {
                if le {
                    u16::from_le_bytes([c[0], c[1]])
                } else {
                    u16::from_be_bytes([c[0], c[1]])
                }
            })
            .collect();
        String::from_utf16(&units).map_err(|_| "not valid UTF-16".to_string())
    };
    let utf8 = |b: &[u8]| {
        String::from_utf8(b.to_vec()).map_err(|_| "not UTF-8 or UTF-16 text".to_string())
    };
    match bytes {
        [0xFF, 0xFE, rest @ ..] => utf16(true, rest),
        [0xFE, 0xFF, rest @ ..] => utf16(false, rest),
        [0xEF, 0xBB, 0xBF, rest @ ..] => utf8(rest),
        _ => utf8(bytes),
    }
}

fn is_schema_file(p: &Path) -> bool {
    matches!(
        p.extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("man" | "xml" | "pack")
    )
}

/// The files under `paths`: files as given, folders' schema files (not
/// recursive), sorted by name.
fn expand(paths: &[PathBuf], errors: &mut Vec<String>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            match std::fs::read_dir(p) {
                Ok(rd) => {
                    let mut files: Vec<PathBuf> = rd
                        .flatten()
                        .map(|e| e.path())
                        .filter(|f| f.is_file() && is_schema_file(f))
                        .take(MAX_FILES)
                        .collect();
                    files.sort();
                    out.extend(files);
                }
                Err(e) => errors.push(format!("{}: {e}", p.display())),
            }
        } else {
            out.push(p.clone());
        }
    }
    out
}

/// One manifest or pack file as a pack, with its warnings; an error names
/// the file and line.
pub fn read_one(path: &Path) -> Result<(pack::Pack, Vec<String>), String> {
    let shown = path.display().to_string();
    let len = std::fs::metadata(path)
        .map_err(|e| format!("{shown}: {e}"))?
        .len();
    if len > MAX_FILE {
        return Err(format!("{shown}: {len} bytes, more than {MAX_FILE}"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
    from_bytes(&bytes, &shown)
}

/// As [`read_one`], from the bytes of a file named `shown`.
pub fn from_bytes(bytes: &[u8], shown: &str) -> Result<(pack::Pack, Vec<String>), String> {
    let text = text_of(bytes).map_err(|e| format!("{shown}: {e}"))?;
    if text.starts_with(pack::MAGIC) {
        return pack::parse(&text)
            .map(|p| (p, Vec::new()))
            .map_err(|e| format!("{shown}:{}: {}", e.line, e.message));
    }
    manifest_file::convert(&text, shown)
        .map(|c| (c.pack, c.warnings))
        .map_err(|e| format!("{shown}:{}: {}", e.line, e.message))
}

/// Read every file under `paths`: the packs that read, and one line per
/// file that did not (a bad file costs only itself) or per warning.
pub fn read_all(paths: &[PathBuf]) -> (Vec<pack::Pack>, Vec<String>) {
    let mut errors = Vec::new();
    let mut packs = Vec::new();
    for f in expand(paths, &mut errors) {
        match read_one(&f) {
            Ok((p, warnings)) => {
                packs.push(p);
                errors.extend(warnings.into_iter().map(|w| format!("warning: {w}")));
            }
            Err(e) => errors.push(e),
        }
    }
    (packs, errors)
}

/// `--manifests`: read them and make them the user's packs for every trace
/// this run reads; problems go to stderr.
pub fn install(paths: &[PathBuf]) {
    if paths.is_empty() {
        return;
    }
    let (packs, errors) = read_all(paths);
    for e in errors {
        eprintln!("etlscope: --manifests {e}");
    }
    packs::set_user_packs(packs);
}

pub fn run(cmd: ManifestsCommand) -> anyhow::Result<()> {
    match cmd {
        ManifestsCommand::Pack { out, inputs, note } => {
            let (packs, errors) = read_all(&inputs);
            for e in &errors {
                eprintln!("etlscope: {e}");
            }
            let mut all = pack::Pack {
                notes: note,
                providers: Vec::new(),
            };
            for p in &packs {
                all.merge(p);
            }
            let text = pack::write(&all);
            std::fs::write(&out, &text)?;
            let events: usize = all.providers.iter().map(|p| p.events.len()).sum();
            eprintln!(
                "etlscope: wrote {} ({} providers, {events} events, {} bytes)",
                out.display(),
                all.providers.len(),
                text.len()
            );
            if errors.iter().any(|e| !e.starts_with("warning:")) {
                anyhow::bail!("some inputs did not read (above)");
            }
            Ok(())
        }
        ManifestsCommand::Export { out, providers } => export(&out, &providers),
    }
}

#[cfg(windows)]
fn export(out: &Path, providers: &[String]) -> anyhow::Result<()> {
    let pack = super::manifests_windows::export(providers)?;
    std::fs::write(out, pack::write(&pack))?;
    eprintln!(
        "etlscope: wrote {} ({} providers)",
        out.display(),
        pack.providers.len()
    );
    Ok(())
}

#[cfg(not(windows))]
fn export(_out: &Path, _providers: &[String]) -> anyhow::Result<()> {
    anyhow::bail!(
        "manifests export reads the providers registered on a Windows machine (TDH); \
         run it there, or give manifests with --manifests"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_and_bom_text() {
        let mut b = vec![0xFF, 0xFE];
        for u in "<a/>".encode_utf16() {
            b.extend(u.to_le_bytes());
        }
        assert_eq!(text_of(&b).as_deref(), Ok("<a/>"));
        assert_eq!(text_of(b"\xEF\xBB\xBFx").as_deref(), Ok("x"));
        assert!(text_of(&[0xC3]).is_err());
        let e = from_bytes(b"<a>\n<b>\n</a>", "m.man").unwrap_err();
        assert!(e.starts_with("m.man:3: "), "{e}");
        let e = from_bytes(b"etlscope-pack\t1\nbogus", "p.pack").unwrap_err();
        assert_eq!(e, "p.pack:2: unknown record \"bogus\"");
    }
}
