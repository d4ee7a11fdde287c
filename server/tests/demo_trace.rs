//! The committed demo trace (traces/explorer-overlay.etl) is exactly what
//! `etlscope synth explorer-overlay` writes, and `etlscope export` (the
//! model and the export tables, not the generator's bookkeeping) finds the
//! figures of the investigation it models, within 1%. The expected figures
//! are those of issue 8 (the published investigation), not our output.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn demo() -> PathBuf {
    repo().join("traces/explorer-overlay.etl")
}

fn etlscope(args: &[&str]) -> String {
    let out = Command::new(common::binary()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "etlscope {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `etlscope export DEMO ARGS --format json` as rows.
fn export(args: &[&str]) -> Vec<serde_json::Map<String, Value>> {
    let demo = demo();
    let mut all = vec!["export", demo.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let v: Value = serde_json::from_str(&etlscope(&all)).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_object().unwrap().clone())
        .collect()
}

fn count(r: &serde_json::Map<String, Value>) -> u64 {
    r["Count"].as_u64().unwrap()
}

/// The demo's figures are exact by construction: the writer puts so many
/// samples of each kind of work in the 7-23 s window at 1 ms each
/// (crates/synth/src/explorer.rs, WINDOW_WORK) and so many file creates.
/// Counts must match exactly, times and shares to rounding.
fn assert_exact(what: &str, got: f64, want: f64) {
    println!("{what}: {got} (by construction: {want})");
    assert!(
        (got - want).abs() <= want.abs() * 1e-9,
        "{what}: got {got}, want exactly {want}"
    );
}

#[test]
fn committed_demo_trace_is_regenerated_byte_for_byte() {
    let out = std::env::temp_dir().join(format!("demo-regen-{}.etl", std::process::id()));
    etlscope(&["synth", "explorer-overlay", "-o", out.to_str().unwrap()]);
    let fresh = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let committed = std::fs::read(demo()).unwrap();
    assert_eq!(fresh.len(), committed.len(), "sizes differ");
    assert!(
        fresh == committed,
        "the regenerated trace differs from traces/explorer-overlay.etl"
    );
}

#[test]
fn committed_fixed_trace_is_regenerated_byte_for_byte() {
    let out = std::env::temp_dir().join(format!("fixed-regen-{}.etl", std::process::id()));
    etlscope(&[
        "synth",
        "explorer-overlay",
        "--without-shell-extension",
        "-o",
        out.to_str().unwrap(),
    ]);
    let fresh = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let committed = std::fs::read(repo().join("traces/explorer-fixed.etl")).unwrap();
    assert!(
        fresh == committed,
        "the regenerated trace differs from traces/explorer-fixed.etl"
    );
}

#[test]
fn explorer_samples_between_7_and_23_seconds() {
    let rows = export(&[
        "--table",
        "cpu-sampled",
        "--group",
        "Process Name",
        "--range",
        "7-23",
    ]);
    let explorer = rows
        .iter()
        .find(|r| r["Process Name"] == "explorer.exe")
        .unwrap();
    // OverlaySnapshot + OverlayProcessNext + OverlayExtension +
    // OverlayShellOnly + ExtensionElsewhere + ExplorerOther.
    assert_exact(
        "explorer samples in 7-23 s",
        count(explorer) as f64,
        (3_100 + 6_600 + 9_700 + 791 + 6_600 + 15_509) as f64,
    );
    // 1 kHz: about 44 CPU seconds over 16 s, i.e. more than two of the 4 CPUs.
    let ms = explorer["Weight"].as_f64().unwrap() * 1e3;
    assert!(ms > 40_000.0 && ms < 45_000.0, "explorer weight {ms} ms");
    for p in ["System", "dwm.exe", "msedge.exe", "Idle"] {
        assert!(rows.iter().any(|r| r["Process Name"] == p), "{p} missing");
    }
}

/// A function of a fixture PDB: (image, name) -> RVA range, read from
/// traces/symbols-src/functions.tsv, which build.sh derives from
/// `llvm-pdbutil dump` of the built PDBs (not from the generator).
fn pdb_function(image: &str, name: &str) -> (u64, u64) {
    let tsv = std::fs::read_to_string(repo().join("traces/symbols-src/functions.tsv")).unwrap();
    tsv.lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|c| c[0] == image && c[4] == name)
        .map(|c| {
            let rva = u64::from_str_radix(c[5], 16).unwrap();
            (rva, rva + c[6].parse::<u64>().unwrap())
        })
        .unwrap_or_else(|| panic!("{image}!{name} not in functions.tsv"))
}

/// Does a frame label name `image!function`? Before symbols are loaded a
/// frame shows as `image!0xRVA` (the model's label for an unnamed frame),
/// so it matches when the RVA falls inside the function's PDB range; once
/// the symbols crate names frames, the label is `image!function` itself.
fn frame_is(label: &str, image: &str, function: &str) -> bool {
    let Some((module, rest)) = label.split_once('!') else {
        return false;
    };
    if !module.eq_ignore_ascii_case(image) {
        return false;
    }
    if rest == function {
        return true;
    }
    let (lo, hi) = pdb_function(image, function);
    rest.strip_prefix("0x")
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .is_some_and(|rva| (lo..hi).contains(&rva))
}

/// explorer's stacks in 7-23 s: (frames root first, samples, weight ms).
fn explorer_stacks() -> Vec<(Vec<String>, u64, f64)> {
    export(&[
        "--table",
        "cpu-sampled",
        "--group",
        "Stack",
        "--range",
        "7-23",
        "--filter",
        "Process Name=explorer.exe",
    ])
    .iter()
    .map(|r| {
        let frames = r["Stack"]
            .as_str()
            .unwrap()
            .split(';')
            .map(String::from)
            .collect();
        // Weight is in seconds (export's base unit).
        (frames, count(r), r["Weight"].as_f64().unwrap() * 1e3)
    })
    .collect()
}

const EXT: &str = "tishell64_26_0_39450.dll";

#[test]
fn overlay_subtree_and_the_shell_extension() {
    let stacks = explorer_stacks();
    let under = |image: &str, f: &str| -> Vec<&(Vec<String>, u64, f64)> {
        stacks
            .iter()
            .filter(|(s, _, _)| s.iter().any(|l| frame_is(l, image, f)))
            .collect()
    };
    let overlay = under("windows.storage.dll", "CFSFolder::_GetOverlayInfo");
    let n: u64 = overlay.iter().map(|s| s.1).sum();
    assert_exact(
        "samples under CFSFolder::_GetOverlayInfo",
        n as f64,
        20_191.0,
    );
    let with_ext: u64 = overlay
        .iter()
        .filter(|(s, _, _)| s.iter().any(|l| l.starts_with(&format!("{EXT}!"))))
        .map(|s| s.1)
        .sum();
    println!("  of which with {EXT}: {with_ext}");
    assert!(
        with_ext * 10 > n * 9,
        "most overlay samples are in the extension"
    );
    // The extension has no PDB: its frames stay image!0xRVA.
    assert!(stacks
        .iter()
        .flat_map(|s| &s.0)
        .filter(|l| l.starts_with(&format!("{EXT}!")))
        .all(|l| l.starts_with(&format!("{EXT}!0x"))));
    let ms = |v: &[&(Vec<String>, u64, f64)]| v.iter().map(|s| s.2).sum::<f64>() / 1000.0;
    let snapshot = under("kernel32.dll", "CreateToolhelp32Snapshot");
    assert_exact("CreateToolhelp32Snapshot (s)", ms(&snapshot), 3.1);
    let next = under("kernel32.dll", "Process32NextW");
    assert_exact("Process32NextW (s)", ms(&next), 6.6);
    // Mostly section mapping and page faults below Process32NextW.
    let kernel: f64 = next
        .iter()
        .filter(|(s, _, _)| s.iter().any(|l| l.starts_with("ntoskrnl.exe!")))
        .map(|s| s.2)
        .sum::<f64>()
        / 1000.0;
    assert!(
        kernel > ms(&next) / 2.0,
        "kernel time below Process32NextW: {kernel} s"
    );
    let ext: Vec<_> = stacks
        .iter()
        .filter(|(s, _, _)| s.iter().any(|l| l.starts_with(&format!("{EXT}!"))))
        .collect();
    // 3,100 + 6,600 + 9,700 + 6,600 samples of 1 ms.
    assert_exact("inclusive time of the shell extension (s)", ms(&ext), 26.0);
}

#[test]
fn eleven_images_of_explorer_lack_version_information() {
    let rows = export(&[
        "--table",
        "images",
        "--group",
        "Process,Image Path,Has Version Info",
    ]);
    let explorer: Vec<_> = rows
        .iter()
        .filter(|r| r["Process"].as_str().unwrap().starts_with("explorer.exe ("))
        .collect();
    assert_eq!(explorer.len(), 370, "images of explorer.exe");
    let paths: Vec<&str> = explorer
        .iter()
        .filter(|r| r["Has Version Info"] == "false")
        .map(|r| r["Image Path"].as_str().unwrap())
        .collect();
    println!("unversioned images of explorer.exe: {paths:#?}");
    assert_eq!(paths.len(), 11);
    let acronis: Vec<_> = paths
        .iter()
        .filter(|p| p.starts_with(r"C:\Program Files\Common Files\Acronis\TrueImageHome\"))
        .collect();
    // The one third-party DLL among them is the shell extension (issue 17: "the unversioned shell extension").
    assert_eq!(
        acronis,
        [&r"C:\Program Files\Common Files\Acronis\TrueImageHome\tishell64_26_0_39450.dll"]
    );
    let microsoft = paths
        .iter()
        .filter(|p| p.starts_with(r"C:\Windows\System32\"))
        .count();
    assert_eq!(microsoft, 10);
    // Every other image carries KernelTraceControl version data and a PDB id.
    let all = export(&["--table", "images", "--filter", "Has Version Info=true"]);
    let versioned: Vec<_> = all
        .iter()
        .filter(|r| r["Process"].as_str().unwrap().starts_with("explorer.exe ("))
        .collect();
    assert_eq!(versioned.len(), 359);
    for r in versioned {
        for c in [
            "File Version",
            "Product Name",
            "Company Name",
            "Description",
            "PDB GUID",
        ] {
            assert!(!r[c].as_str().unwrap().is_empty(), "{c} empty: {r:?}");
        }
    }
}

/// Every PDB identity the trace names for our fixture modules has its PDB in
/// traces/symbols in symbol-store layout (name.pdb/GUIDage/name.pdb).
#[test]
fn fixture_pdbs_are_in_the_symbol_store_beside_the_trace() {
    let rows = export(&["--table", "images", "--group", "PDB Name,PDB GUID,PDB Age"]);
    let store = repo().join("traces/symbols");
    let mut found = 0;
    for r in &rows {
        let name = r["PDB Name"].as_str().unwrap();
        let guid = r["PDB GUID"]
            .as_str()
            .unwrap()
            .replace('-', "")
            .to_uppercase();
        let age = r["PDB Age"].as_u64().unwrap();
        let p = store.join(name).join(format!("{guid}{age:X}")).join(name);
        if Path::new(&p).is_file() {
            found += 1;
        }
    }
    assert_eq!(found, 9, "PDBs of ntdll, kernel32, KernelBase, windows.storage, shell32, SHCore, user32, explorer, ntoskrnl");
}

/// File I/O: explorer's create calls, with the open path of each (FileIo
/// Create v3) and the stack attached by (timestamp, thread).
#[test]
fn explorer_opens_ti_managers_proxy_4663_times() {
    let rows = export(&[
        "--table",
        "file-io",
        "--group",
        "Process,Type,File Path",
        "--filter",
        "Type=Create",
    ]);
    let explorer: Vec<_> = rows
        .iter()
        .filter(|r| r["Process"].as_str().unwrap().starts_with("explorer.exe ("))
        .collect();
    let total: u64 = explorer.iter().map(|r| count(r)).sum();
    let proxy: u64 = explorer
        .iter()
        .filter(|r| {
            r["File Path"] == r"C:\Program Files (x86)\Acronis\TrueImageHome\ti_managers_proxy.dll"
        })
        .map(|r| count(r))
        .sum();
    assert_exact("opens of ti_managers_proxy.dll", proxy as f64, 4_663.0);
    let share = 100.0 * proxy as f64 / total as f64;
    // 4,663 of explorer's 5,902 creates (PROXY_OPENS + OTHER_EXPLORER_OPENS).
    assert_exact(
        "share of explorer's creates (%)",
        share,
        100.0 * 4_663.0 / (4_663 + 1_239) as f64,
    );
    // The opens carry their stacks: the extension calling CreateFileW.
    let stacks = export(&[
        "--table",
        "file-io",
        "--group",
        "Stack",
        "--filter",
        r"File Path=C:\Program Files (x86)\Acronis\TrueImageHome\ti_managers_proxy.dll",
    ]);
    let with_ext: u64 = stacks
        .iter()
        .filter(|r| r["Stack"].as_str().unwrap().contains(&format!("{EXT}!")))
        .map(count)
        .sum();
    assert_eq!(with_ext, proxy, "every open has the extension on its stack");
}

/// With traces/symbols on the symbol path, the symbols crate names the
/// Microsoft frames from our fixture PDBs (by the PDB identity in the
/// trace's DbgID_RSDS events); tishell64, which has no PDB, stays unnamed.
/// The subtree is then counted by name, through the model's stacks.
#[test]
fn symbolized_overlay_subtree_by_name() {
    let file = etl::EtlFile::open(&demo()).unwrap();
    let mut trace = model::build(&file);
    let path = symbols::SymbolPath::parse(repo().join("traces/symbols").to_str().unwrap());
    let s = symbols::Symbolizer::new(symbols::SymbolizerConfig::new(path)).symbolize(
        &trace.modules,
        &trace.frames,
        &trace.strings,
        &symbols::Progress::default(),
    );
    trace.apply_names(s.frames.iter().map(|(row, f)| (*row, f.name.as_str())));
    let explorer = (0..trace.processes.len())
        .find(|&p| trace.strings.get(trace.processes.name[p]) == "explorer.exe")
        .unwrap() as u32;
    let (lo, hi) = (7_000_000_000i64, 23_000_000_000i64);
    let mut overlay = 0u64;
    let mut named = std::collections::BTreeSet::new();
    for row in 0..trace.samples.len() {
        let t = trace.samples.time[row];
        let th = trace.samples.thread(row) as usize;
        if t < lo || t >= hi || trace.threads.process[th] != explorer {
            continue;
        }
        let labels: Vec<String> = trace
            .stacks
            .frames_leaf_first(trace.samples.stack[row])
            .map(|f| trace.frame_label(f))
            .collect();
        if labels
            .iter()
            .any(|l| l == "windows.storage.dll!CFSFolder::_GetOverlayInfo")
        {
            overlay += 1;
        }
        for l in labels {
            if l.starts_with("kernel32.dll!") || l.starts_with(&format!("{EXT}!")) {
                named.insert(l);
            }
        }
    }
    assert_exact(
        "samples under the named _GetOverlayInfo",
        overlay as f64,
        20_191.0,
    );
    assert!(named.contains("kernel32.dll!CreateToolhelp32Snapshot"));
    assert!(named.contains("kernel32.dll!Process32NextW"));
    assert!(named
        .iter()
        .filter(|l| l.starts_with(&format!("{EXT}!")))
        .all(|l| l.starts_with(&format!("{EXT}!0x"))));
}
