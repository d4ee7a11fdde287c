//! `etlscope export TRACE --profile FILE.wpaProfile --outdir DIR` on WPA
//! users' own profiles (../shared/wpa-files, `ETLSCOPE_WPA_FILES`): one CSV
//! per preset named and laid out as wpaexporter writes them, whose value
//! columns are the ones each file declares and whose figures are the
//! declared aggregations of `export --rows`. What a preset declares is read
//! here with a few lines of roxmltree, not by the parser under test.

mod common;

use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const DEMO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../traces/explorer-overlay.etl"
);

/// WPA tables etlscope has, by graph GUID: (wpaexporter's title, ours).
const TABLES: &[(&str, &str, &str)] = &[
    (
        "b855361e-7be0-4bc8-a754-3e8507715ca5",
        "CPU Usage (Sampled)",
        "cpu-sampled",
    ),
    (
        "c58f5fea-0319-4046-932d-e695ebe20b47",
        "CPU Usage (Precise)",
        "cpu-precise",
    ),
    (
        "12c5387c-58ca-45d4-a5c6-450475c30e06",
        "Disk Usage",
        "disk-io",
    ),
];

/// Value columns these files declare that etlscope's tables do not have.
const NOT_OURS: &[&str] = &["Last Switch-Out Time", "Complete Time"];

struct Declared {
    graph: String,
    name: String,
    /// Visible key columns (left of the gold bar).
    keys: Vec<String>,
    /// Visible value columns and their AggregationMode ("None" if absent).
    values: Vec<(String, String)>,
}

/// Each View's Graph/Preset: the gold bar at KeyColumnCount in the list of
/// columns and bars (LeftFrozen, RightFrozen, Graph counts are bars too).
fn declared(xml: &str) -> Vec<Declared> {
    let doc = roxmltree::Document::parse(xml).expect("the profile is XML");
    let named = |n: &roxmltree::Node, t: &str| n.is_element() && n.tag_name().name() == t;
    let mut out = Vec::new();
    for view in doc.descendants().filter(|n| named(n, "View")) {
        for graph in view.descendants().filter(|n| named(n, "Graph")) {
            for p in graph.children().filter(|n| named(n, "Preset")) {
                let num = |a: &str| p.attribute(a).map(|v| v.parse::<usize>().unwrap());
                let gold = num("KeyColumnCount").unwrap_or(0);
                let mut bars: HashSet<usize> = HashSet::from([gold]);
                for a in [
                    "LeftFrozenColumnCount",
                    "RightFrozenColumnCount",
                    "GraphColumnCount",
                ] {
                    bars.extend(num(a));
                }
                let cols: Vec<roxmltree::Node> =
                    p.descendants().filter(|n| named(n, "Column")).collect();
                let keys_n = (0..gold).filter(|i| !bars.contains(i)).count();
                let visible = |c: &roxmltree::Node| c.attribute("IsVisible") == Some("true");
                let name = |c: &roxmltree::Node| c.attribute("Name").unwrap_or("").to_string();
                out.push(Declared {
                    graph: graph.attribute("Guid").unwrap_or("").to_lowercase(),
                    name: p.attribute("Name").unwrap_or("").to_string(),
                    keys: cols[..keys_n]
                        .iter()
                        .filter(|c| visible(c))
                        .map(name)
                        .collect(),
                    values: cols[keys_n..]
                        .iter()
                        .filter(|c| visible(c))
                        .map(|c| {
                            (
                                name(c),
                                c.attribute("AggregationMode").unwrap_or("None").to_string(),
                            )
                        })
                        .collect(),
                });
            }
        }
    }
    out
}

/// A CSV line's fields (quotes as wpaexporter and etlscope write them).
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// A header without wpaexporter's unit suffix.
fn bare(h: &str) -> &str {
    [" (ms)", " (s)", " (µs)"]
        .iter()
        .find_map(|u| h.strip_suffix(u))
        .unwrap_or(h)
}

fn profile_export(trace: &Path, profile: &Path, dir: &Path) -> (bool, String) {
    let out = Command::new(common::binary())
        .arg("export")
        .arg(trace)
        .arg("--profile")
        .arg(profile)
        .arg("--outdir")
        .arg(dir)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn file_name(title: &str, preset: &str) -> String {
    format!("{title}_{preset}.csv").replace([' ', '/'], "_")
}

fn public_profiles() -> Option<Vec<PathBuf>> {
    let dir = testdata::wpa_files_dir()?;
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wpaProfile"))
        .collect();
    v.sort();
    assert!(v.len() >= 4, "too few profiles in {}", dir.display());
    Some(v)
}

/// Header unit -> the factor from `--rows`' seconds (1 for a column without one).
fn unit_scale(h: &str) -> f64 {
    if h.ends_with(" (ms)") {
        1e3
    } else if h.ends_with(" (µs)") {
        1e6
    } else {
        1.0
    }
}

/// The figure of `rows` for WPA's value column `wpa` aggregated by `mode`,
/// in the unit of the header (`scale` from `--rows`' seconds; `None`: not
/// checked here).
fn expected(rows: &[&Value], wpa: &str, mode: &str, scale: f64) -> Option<f64> {
    let of = |col: &str, scale: f64| {
        let xs: Vec<f64> = rows
            .iter()
            .filter_map(|r| r[col].as_f64())
            .map(|x| x * scale)
            .collect();
        match mode {
            "Sum" => Some(xs.iter().sum()),
            "Max" => xs.iter().copied().reduce(f64::max),
            "Min" => xs.iter().copied().reduce(f64::min),
            "Count" => Some(xs.len() as f64),
            _ => None,
        }
    };
    match wpa {
        "Count" => Some(rows.len() as f64),
        "Weight" | "Weight (in view)" => of("Weight", scale),
        "IO Time" | "Disk Service Time" => of("Disk Service Time", scale),
        "Size" => of("Size", 1.0),
        // CPU Usage (Precise): each row is one switch-in; times in seconds.
        "CPU Usage (in view)" => of("CPU Usage", scale),
        "Waits" | "Ready" | "Switch-In Time" => of(wpa, scale),
        // WPA's Count: Waits is 1 for each switch-in that ended a wait, summed.
        "Count: Waits" => Some(rows.iter().filter(|r| !r["Waits"].is_null()).count() as f64),
        _ => None,
    }
}

/// The `--rows` column of a key column.
fn row_column(wpa: &str) -> &str {
    match wpa {
        "Path Tree" => "Path Name",
        "IO Init Stack" => "Stack",
        w => w,
    }
}

fn key_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.replace(';', "/"),
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

#[test]
fn public_profiles_export_the_value_columns_they_declare_with_their_aggregations() {
    let Some(profiles) = public_profiles() else {
        return;
    };
    let Some(traces) = testdata::real_traces_dir() else {
        return;
    };
    // A real trace with CPU samples and disk I/O (no context switches: the
    // CPU Usage (Precise) presets get their figures from the test below).
    let trace = traces.join("perfview-net452-x64.etl");
    let checked_figures = check_profiles_on(&trace, &profiles);
    assert!(
        checked_figures > 1000,
        "only {checked_figures} figures checked"
    );
}

/// No public trace has context switches, so `etlscope synth switches`
/// writes one (2,000 switches of two processes, with stacks and waits) and
/// the CPU Usage (Precise) presets of the public profiles are checked on it:
/// their headers and every figure, against `export --rows` of what it wrote.
#[test]
fn precise_presets_export_their_figures_on_a_written_switches_trace() {
    let Some(profiles) = public_profiles() else {
        return;
    };
    let dir = common::temp_dir("wpa-profile-switches");
    let trace = dir.join("switches.etl");
    let out = Command::new(common::binary())
        .args(["synth", "switches", "--switches", "2000", "-o"])
        .arg(&trace)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let precise: Vec<PathBuf> = profiles
        .into_iter()
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|x| x.contains(PRECISE_GUID)))
        .collect();
    assert!(
        precise.len() >= 2,
        "profiles with a Precise preset: {precise:?}"
    );
    let checked_figures = check_profiles_on(&trace, &precise);
    // Count, CPU Usage (in view), Waits, Ready, Count: Waits, Switch-In Time.
    assert!(
        checked_figures > 100,
        "only {checked_figures} figures checked"
    );
}

const PRECISE_GUID: &str = "c58f5fea-0319-4046-932d-e695ebe20b47";

/// Exports `trace` with each profile and checks every written preset: its
/// value columns are the declared ones and each figure is the declared
/// aggregation of `export --rows`. Returns the number of figures checked.
fn check_profiles_on(trace: &Path, profiles: &[PathBuf]) -> usize {
    let mut rows_of: HashMap<&str, Value> = HashMap::new();
    let mut checked_figures = 0;
    for profile in profiles {
        let dir = common::temp_dir("wpa-profile-export");
        let (ok, stderr) = profile_export(trace, profile, &dir);
        assert!(ok, "{}: {stderr}", profile.display());
        let xml = std::fs::read_to_string(profile).unwrap();
        for d in declared(&xml) {
            let Some(&(_, title, table)) = TABLES.iter().find(|t| t.0 == d.graph) else {
                // One stderr line says the preset was skipped.
                assert!(
                    stderr
                        .lines()
                        .any(|l| l.contains(&format!("\"{}\": skipped", d.name))),
                    "{}: no skip line for {:?} in {stderr}",
                    profile.display(),
                    d.name
                );
                continue;
            };
            let path = dir.join(file_name(title, &d.name));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}; stderr: {stderr}", path.display()));
            let mut lines = text.lines();
            let header = fields(lines.next().unwrap_or(""));
            let want: Vec<&str> = d
                .values
                .iter()
                .map(|(n, _)| n.as_str())
                .filter(|n| !NOT_OURS.contains(n))
                .collect();
            assert!(header.len() >= want.len(), "{}: {header:?}", path.display());
            let nkeys = header.len() - want.len();
            let got: Vec<&str> = header[nkeys..].iter().map(|h| bare(h)).collect();
            assert_eq!(got, want, "{}: value columns", path.display());
            // Keys: those declared that etlscope has, in order.
            let keys: Vec<&str> = header[..nkeys].iter().map(String::as_str).collect();
            let mut declared_keys = d.keys.iter();
            for k in &keys {
                assert!(
                    declared_keys.any(|x| x == k),
                    "{}: key {k} not declared (in order) in {:?}",
                    path.display(),
                    d.keys
                );
            }
            // Figures: the declared aggregation over `export --rows`.
            let body: Vec<Vec<String>> = lines.map(fields).collect();
            if body.is_empty() || keys.is_empty() {
                continue;
            }
            let all = rows_of.entry(table).or_insert_with(|| {
                common::export_json(&[trace.to_str().unwrap(), "--table", table, "--rows"])
            });
            let all = all.as_array().unwrap();
            let mut groups: HashMap<Vec<String>, Vec<&Value>> = HashMap::new();
            for r in all {
                let k = keys.iter().map(|k| key_text(&r[row_column(k)])).collect();
                groups.entry(k).or_default().push(r);
            }
            assert_eq!(
                body.len(),
                groups.len(),
                "{}: one line per group",
                path.display()
            );
            for line in &body {
                let g = groups.get(&line[..nkeys]).unwrap_or_else(|| {
                    panic!("{}: no rows for {:?}", path.display(), &line[..nkeys])
                });
                let units = header[nkeys..].iter().map(|h| unit_scale(h));
                for (((wpa, mode), cell), scale) in d.values.iter().zip(&line[nkeys..]).zip(units) {
                    let Some(want) = expected(g, wpa, mode, scale) else {
                        continue;
                    };
                    let got: f64 = cell.parse().unwrap_or_else(|_| panic!("{wpa}: {cell:?}"));
                    assert!(
                        (got - want).abs() <= 1e-3 + want.abs() * 1e-9,
                        "{} {:?} {wpa} ({mode}): file {got}, rows {want}",
                        path.display(),
                        &line[..nkeys]
                    );
                    checked_figures += 1;
                }
            }
        }
    }
    eprintln!(
        "{}: {checked_figures} figures checked against export --rows",
        trace.display()
    );
    checked_figures
}

#[test]
fn profile_files_are_named_and_laid_out_as_wpaexporter_writes_them() {
    let Some(dir) = testdata::wpa_files_dir() else {
        return;
    };
    let out = common::temp_dir("wpa-profile-layout");
    for f in [
        "uiforetw-ExportCPUUsageSampled.wpaProfile",
        "uiforetw-CPUUsageByProcess.wpaProfile",
        "office-DiskIO.wpaProfile",
    ] {
        let (ok, stderr) = profile_export(Path::new(DEMO), &dir.join(f), &out);
        assert!(ok, "{f}: {stderr}");
        if f.starts_with("office") {
            // The minifilter graph is not a table of ours: skipped, said once.
            let skips: Vec<&str> = stderr.lines().filter(|l| l.contains("skipped")).collect();
            assert_eq!(skips.len(), 1, "{stderr}");
            assert!(skips[0].contains("Mini-Filter"), "{stderr}");
        }
    }
    let read =
        |n: &str| std::fs::read_to_string(out.join(n)).unwrap_or_else(|e| panic!("{n}: {e}"));
    // What UIforETW's xperf_to_collapsedstacks.py reads: every sample as
    // process, thread id and a '/'-separated stack.
    let sampled = read("CPU_Usage_(Sampled)_Randomascii_Export.csv");
    let mut lines = sampled.lines();
    assert_eq!(lines.next(), Some("Process,Thread ID,Stack"));
    let samples = common::export_json(&[DEMO, "--table", "cpu-sampled", "--rows"]);
    assert_eq!(lines.clone().count(), samples.as_array().unwrap().len());
    assert!(lines.any(|l| fields(l)[2].contains(".dll!") && fields(l)[2].contains('/')));
    // What UIforETW's IdentifyChromeProcesses.py and CPUByCommandLine.py read.
    let precise = read("CPU_Usage_(Precise)_Randomascii_CPU_Usage_by_Process.csv");
    assert_eq!(
        precise.lines().next(),
        Some("New Process,Count,CPU Usage (in view) (ms)")
    );
    for n in [
        "Disk_Usage_Timelines.csv",
        "Disk_Usage_Path___Size.csv",
        "Disk_Usage_Path___Time.csv",
    ] {
        let h = fields(read(n).lines().next().unwrap_or(""));
        assert!(h.iter().any(|x| x == "IO Time (ms)"), "{n}: {h:?}");
        assert!(h.iter().any(|x| x == "Count"), "{n}: {h:?}");
    }
    let h = read("Disk_Usage_Path___Size.csv");
    assert!(
        h.starts_with("Process,Path Tree,IO Type,IO Init Stack,Count,IO Time (ms),Size"),
        "{h}"
    );
}

#[test]
fn a_bad_profile_is_refused_naming_its_file_and_line() {
    let dir = common::temp_dir("wpa-profile-bad");
    let bad = dir.join("bad.wpaProfile");
    std::fs::write(
        &bad,
        "<?xml version=\"1.0\"?>\n<WpaProfileContainer>\n<Content><Views><View Title=\"A\"><Graphs>\n\
         <Graph Guid=\"b855361e-7be0-4bc8-a754-3e8507715ca5\">\n<Preset Name=\"x\" KeyColumnCount=\"many\" />\n\
         </Graph></Graphs></View></Views></Content></WpaProfileContainer>\n",
    )
    .unwrap();
    let (ok, stderr) = profile_export(Path::new(DEMO), &bad, &dir.join("out"));
    assert!(!ok);
    assert!(
        stderr.contains(&format!("{}:5:", bad.display())),
        "{stderr}"
    );
    assert!(stderr.contains("KeyColumnCount"), "{stderr}");
    let dtd = dir.join("dtd.wpaProfile");
    std::fs::write(
        &dtd,
        "<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY a \"aaaa\">]>\n<WpaProfileContainer/>",
    )
    .unwrap();
    let (ok, stderr) = profile_export(Path::new(DEMO), &dtd, &dir.join("out"));
    assert!(!ok && stderr.contains("dtd.wpaProfile:"), "{stderr}");
}
