//! Issue 17: on every real trace the health findings are exactly what
//! `etlscope info --json` and `etlscope symbols` report: one finding per
//! nonzero info count, with that count, and the frames-without-symbols
//! findings are the modules the documented threshold picks from the
//! symbols table (1% of all module frames, most first, at most 5), each
//! with its frames minus named. The hard-faults findings are the files a
//! naive count over the model's hard faults picks (100 faults, top 3).

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn run_json(sub: &str, file: &Path, extra: &[&str]) -> Value {
    let out = Command::new(common::binary())
        .arg(sub)
        .arg(file)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{sub} {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn traces() -> Vec<PathBuf> {
    let Some(files) = testdata::real_trace_files() else {
        return Vec::new();
    };
    assert!(!files.is_empty(), "no traces in the real-traces folder");
    files
}

#[test]
fn health_findings_equal_info_and_symbols() {
    for file in traces() {
        let list = run_json("findings", &file, &["--format", "json"]);
        let list = list.as_array().expect("a list");
        let info = run_json("info", &file, &["--json"]);
        let name = file.display();
        for (rule, key) in [
            ("lost-events", "lost_events"),
            ("lost-buffers", "lost_buffers"),
            ("skipped-buffers", "skipped_buffers"),
            ("undecoded-events", "decoding.hex_only_events"),
        ] {
            let n = info
                .pointer(&format!("/{}", key.replace('.', "/")))
                .and_then(Value::as_u64)
                .unwrap_or_else(|| panic!("{name}: info has no {key}"));
            let found: Vec<&Value> = list.iter().filter(|f| f["rule"] == rule).collect();
            if n == 0 {
                assert!(found.is_empty(), "{name}: {rule} but info says 0");
                continue;
            }
            assert_eq!(found.len(), 1, "{name}: info says {key} {n}");
            assert_eq!(
                found[0]["figure"].as_f64(),
                Some(n as f64),
                "{name}: {rule}"
            );
            assert_eq!(found[0]["view"]["target"], key);
        }

        // The samples-without-stacks title's base is the non-idle samples
        // (issue 33: Idle is no missing stack), at most info's SampledProfile
        // count; findings_non_idle.rs checks it exactly.
        if let Some(f) = list.iter().find(|f| f["rule"] == "samples-without-stacks") {
            let n = info["kernel_hooks"]["0x0f2e"].as_u64().unwrap_or(0);
            let title = f["title"].as_str().unwrap().replace(',', "");
            let base: u64 = title
                .split(" of ")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                .and_then(|b| b.parse().ok())
                .unwrap_or(u64::MAX);
            assert!(
                base <= n && title.contains(" non-idle CPU samples"),
                "{name}: {title} vs {n} SampledProfile events"
            );
        }

        let (unnamed, all) = common::symbols_report::unnamed_frames(&file);
        let mut want: Vec<(String, u64)> = unnamed
            .into_iter()
            .filter(|&(_, n)| n > 0 && n * 100 >= all)
            .collect();
        want.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        want.truncate(5);
        let got: Vec<(String, u64)> = list
            .iter()
            .filter(|f| f["rule"] == "frames-without-symbols")
            .map(|f| {
                assert_eq!(f["view"]["kind"], "symbols");
                let n = f["figure"].as_f64().unwrap();
                (f["view"]["target"].as_str().unwrap().to_string(), n as u64)
            })
            .collect();
        assert_eq!(got, want, "{name}: frames without symbols");
        let unnamed_modules = got.len();

        // Hard faults per file, counted from the model here: every file
        // from 100 faults (at most 3, most first) has its finding.
        let etl = etl::EtlFile::open(&file).unwrap();
        let t = model::build(&etl);
        let mut per_file: std::collections::BTreeMap<&str, u64> = Default::default();
        for &p in &t.hard_faults.path {
            let path = t.strings.get(p);
            if !path.is_empty() {
                *per_file.entry(path).or_default() += 1;
            }
        }
        let most = per_file.values().max().copied().unwrap_or(0);
        let mut want_faults: Vec<(String, u64)> = per_file
            .into_iter()
            .filter(|&(_, n)| n >= 100)
            .map(|(p, n)| (p.to_string(), n))
            .collect();
        want_faults.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        want_faults.truncate(3);
        let got_faults: Vec<(String, u64)> = list
            .iter()
            .filter(|f| f["rule"] == "hard-faults")
            .map(|f| {
                let n = f["figure"].as_f64().unwrap() as u64;
                (f["view"]["row"][0].as_str().unwrap().to_string(), n)
            })
            .collect();
        assert_eq!(got_faults, want_faults, "{name}: hard faults");
        eprintln!(
            "{name}: {} hard faults, at most {most} on one file",
            t.hard_faults.len()
        );
        eprintln!(
            "{name}: {} health findings, {} modules without symbols",
            list.iter().filter(|f| f["category"] == "health").count(),
            unnamed_modules
        );
    }
}

#[test]
fn symbols_text_parses() {
    let text = "module                           pdb (name GUIDAGE)  named/frames  status\n\
                ntdll.dll                        ntdll.pdb ABC1          3/10  not found\n\
                ntdll.dll                        -                       0/2  no identity\n\
                a.dll                            -                       0/0  not needed\n\
                3 modules, 0 PDBs loaded, 3 of 12 module frames named\n";
    let (unnamed, all) = common::symbols_report::parse(text);
    assert_eq!(all, 12);
    assert_eq!(unnamed["ntdll.dll"], 9);
    assert_eq!(unnamed["a.dll"], 0);
}
