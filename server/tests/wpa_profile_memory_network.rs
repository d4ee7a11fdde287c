//! `.wpaProfile` presets of WPA's VirtualAlloc Commit LifeTimes, Heap
//! Allocations, Hard Faults, Registry and TcpIp tables open in our tables:
//! `etlscope export --profile` writes each preset's CSV with the figures of
//! `export --group`. No profile under ../shared/wpa-files holds these
//! tables, so the profile is written here in the format of Microsoft's
//! MSO-Scripts profiles that do (src/WPAP/VirtualAlloc.wpaProfile: graph
//! e6a4a964-..., Heap.wpaProfile: 1a64d983-... (also Google's UIforETW
//! bin/HeapAnalysis.wpaProfile), MemFileAccess.wpaProfile: 7c60aeff-...,
//! Registry.wpaProfile: e97b189d-..., Network.wpaProfile: 21214383-...),
//! with their column names and GUIDs.

mod common;

use common::{export_json, temp_dir};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// (graph GUID, preset, key columns, value columns (name, GUID, mode)).
type PresetSpec = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static [(&'static str, &'static str, &'static str)],
);

const PRESETS: &[PresetSpec] = &[
    (
        "e6a4a964-3a87-46ef-9762-f9d9b9208051",
        "Commit by Process, Type",
        &[
            ("Process", "cfe19628-6612-4e45-ad6e-84b7423c8132"),
            ("Type", "f3e2404e-9274-48de-ba7a-81b10ac0d8e3"),
        ],
        &[
            ("Count", "3e80b2ba-b36a-4ff1-9c2c-d2542002a6d6", "Sum"),
            ("Size", "355d0688-9ebd-41af-b2c4-0dc0f4294eaa", "Sum"),
            (
                "Impacting Size",
                "191711d7-f84c-4936-93b7-e2793639cdd1",
                "Sum",
            ),
        ],
    ),
    (
        "1a64d983-f796-45f8-aa64-ac50b95d0e45",
        "Outstanding Allocations by Process, Type",
        &[
            ("Process", "06155709-500b-4182-8944-29665014b5c2"),
            ("Type", "fe123e27-eca6-461a-9a1b-b98056a84feb"),
        ],
        &[
            ("Count", "62f5e535-a192-475d-8d4d-a725b8a160bd", "Sum"),
            ("Size", "29a4dfc2-cd62-4de8-85c3-f580af6a47dd", "Sum"),
        ],
    ),
    (
        "7c60aeff-a47f-4ba8-942c-d2b154087ab9",
        "Hard Faults by Process, File",
        &[
            ("Process", "3fd82a5a-fcbb-501e-4d61-c07025286ad1"),
            ("File Name", "e21731d3-b7a0-5201-76f1-a11a81e785b4"),
        ],
        &[
            ("Count", "8392664b-3f80-5bd5-68e5-0d2ef7056f12", "Sum"),
            ("ByteCount", "42dcd928-7544-5f2b-169e-1cc5f6ce81dc", "Sum"),
        ],
    ),
    (
        "e97b189d-b977-4e41-9448-8c214c166f84",
        "Count by Operation, Process, Key",
        &[
            ("Operation", "da3b10c0-1765-41f3-a783-dc51125851d1"),
            ("Process", "6e161ed1-5f7b-4b73-85cc-0d65dab67d53"),
            (
                "Entire Key (Base+Remainder)",
                "0b129433-39e5-4a9e-951a-b8ef208b2cfc",
            ),
        ],
        &[("Count", "a43842b0-7cf3-4d6f-b7a2-2d6f1e00133f", "Sum")],
    ),
    (
        "21214383-88f8-4603-9eac-2a6422756b11",
        "Throughput by Process, Protocol",
        &[
            ("Process", "bfdd92db-9783-49a1-9627-3562e237ea57"),
            ("Protocol", "08b8fe6b-4261-494a-9a03-b71f0c7c954e"),
        ],
        &[
            ("Count", "7aef84b7-38e4-41ba-8bcb-033a6e048f52", "Sum"),
            ("Bytes", "ae3f2bb9-4d8e-4d72-8536-b42ecfca6b93", "Sum"),
        ],
    ),
];

/// One preset as WPA saves it: left freeze bar at 0, then the key
/// columns, the gold bar, the value columns; graph and right freeze bars
/// after them.
fn preset_xml(p: &PresetSpec) -> String {
    let (guid, name, keys, values) = p;
    let gold = keys.len() + 1;
    let mut cols = String::new();
    for (n, g) in keys.iter() {
        cols += &format!(r#"<Column Guid="{g}" Name="{n}" Width="100" IsVisible="true" />"#);
    }
    for (i, (n, g, mode)) in values.iter().enumerate() {
        let sort = if i == 0 {
            r#" SortOrder="Descending" SortPriority="0""#
        } else {
            ""
        };
        cols += &format!(
            r#"<Column Guid="{g}" Name="{n}" AggregationMode="{mode}"{sort} Width="80" IsVisible="true" />"#
        );
    }
    let end = gold + values.len() + 1;
    format!(
        r##"<Graph Guid="{guid}" LayoutStyle="All" Color="#FF0000FF" GraphHeight="125" IsMinimized="false" IsShown="true" IsExpanded="false">
<Preset Name="{name}" GraphChartType="StackedLine" BarGraphIntervalCount="50" IsThreadActivityTable="false" GraphColumnCount="{end}" KeyColumnCount="{gold}" LeftFrozenColumnCount="0" RightFrozenColumnCount="{end}" InitialFilterShouldKeep="true" InitialExpansionQuery="" InitialSelectionQuery="" InitialFilterQuery="" GraphFilterColumnGuid="00000000-0000-0000-0000-000000000000" GraphFilterTopValue="0" GraphFilterThresholdValue="0" HelperColumnGuid="00000000-0000-0000-0000-000000000000">
<MetadataEntries /><HighlightEntries /><Columns>{cols}</Columns></Preset></Graph>"##
    )
}

fn profile_xml() -> String {
    let graphs: String = PRESETS.iter().map(preset_xml).collect();
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<WpaProfileContainer xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" Version="2" xmlns="http://tempuri.org/SerializableElement.xsd">
<Content xsi:type="WpaProfile2"><Sessions /><Views>
<View Guid="1759c3d6-467e-4a14-99a6-4331add79c55" IsVisible="true" Title="Memory and Network"><Graphs>{graphs}</Graphs><SessionIndices><Index>0</Index></SessionIndices></View>
</Views><ModifiedGraphs /></Content></WpaProfileContainer>"#
    )
}

/// A CSV line's fields (quotes as etlscope writes them).
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

/// Rows of a preset's CSV: keys -> value figures.
fn csv_rows(file: &Path, keys: usize) -> (Vec<String>, BTreeMap<Vec<String>, Vec<f64>>) {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut lines = text.lines();
    let header = fields(lines.next().unwrap());
    let rows = lines
        .map(|l| {
            let f = fields(l);
            let vals = f[keys..]
                .iter()
                .map(|v| v.parse::<f64>().unwrap_or(0.0))
                .collect();
            (f[..keys].to_vec(), vals)
        })
        .collect();
    (header, rows)
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

/// `export --group` of our table by our columns, the same shape.
fn export_rows(
    trace: &str,
    table: &str,
    keys: &[&str],
    values: &[&str],
) -> BTreeMap<Vec<String>, Vec<f64>> {
    let group = keys.join(",");
    let vals = values.join(",");
    let rows = export_json(&[
        trace, "--table", table, "--group", &group, "--values", &vals,
    ]);
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                keys.iter().map(|k| text(&r[*k])).collect(),
                values
                    .iter()
                    .map(|v| r[*v].as_f64().unwrap_or(0.0))
                    .collect(),
            )
        })
        .collect()
}

fn profile_export(trace: &Path, profile: &Path, out: &Path) -> String {
    let o = Command::new(common::binary())
        .arg("export")
        .arg(trace)
        .arg("--profile")
        .arg(profile)
        .arg("--outdir")
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The preset's CSV (`Title_Preset.csv`) against `export --group`.
fn check(
    dir: &Path,
    trace: &Path,
    file: &str,
    table: &str,
    keys: &[&str],
    values: &[&str],
) -> usize {
    let (header, got) = csv_rows(&dir.join(file), keys.len());
    let want = export_rows(trace.to_str().unwrap(), table, keys, values);
    println!("{file}: {header:?}, {} rows", got.len());
    assert!(!want.is_empty(), "{table}: no rows to compare");
    assert_eq!(got, want, "{file}");
    got.len()
}

#[test]
fn memory_registry_presets_open_in_our_tables() {
    let dir = temp_dir("wpa-profile-memory");
    let trace = dir.join("memory.etl");
    let o = Command::new(common::binary())
        .args(["synth", "memory", "-o"])
        .arg(&trace)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let profile = dir.join("memory.wpaProfile");
    std::fs::write(&profile, profile_xml()).unwrap();
    let out = dir.join("out");
    let log = profile_export(&trace, &profile, &out);
    println!("{log}");
    check(
        &out,
        &trace,
        "VirtualAlloc_Commit_LifeTimes_Commit_by_Process,_Type.csv",
        "virtual-alloc",
        &["Process", "Type"],
        &["Count", "Size", "Impacting Size"],
    );
    check(
        &out,
        &trace,
        "Heap_Allocations_Outstanding_Allocations_by_Process,_Type.csv",
        "heap",
        &["Process", "Type"],
        &["Count", "Size"],
    );
    check(
        &out,
        &trace,
        "Registry_Count_by_Operation,_Process,_Key.csv",
        "registry",
        &["Operation", "Process", "Key Path"],
        &["Count"],
    );
}

#[test]
fn hard_fault_and_network_presets_open_in_our_tables() {
    let Some(traces) = testdata::real_traces_dir() else {
        return;
    };
    let trace = traces.join("perfview-net452-x64.etl");
    let dir = temp_dir("wpa-profile-network");
    let profile = dir.join("net.wpaProfile");
    std::fs::write(&profile, profile_xml()).unwrap();
    let out = dir.join("out");
    profile_export(&trace, &profile, &out);
    let n = check(
        &out,
        &trace,
        "Hard_Faults_Hard_Faults_by_Process,_File.csv",
        "hard-faults",
        &["Process", "File Path"],
        &["Count", "Size"],
    );
    assert!(n > 10, "{n}");
    check(
        &out,
        &trace,
        "TcpIp_Throughput_by_Process,_Protocol.csv",
        "network",
        &["Process", "Protocol"],
        &["Count", "Size"],
    );
}
