//! Issue 33, point 4: ids (PID, Thread ID, Exit Code, addresses) and
//! instants never add up in a group row. Over HTTP on a real trace: a group
//! of several processes (svchost.exe: 11 instances) shows no PID rather
//! than a number that reads as one (the count of distinct PIDs, 11, was
//! shown as "PID 11"); `Exit Code:sum`, `PID:sum` and `Start Time:sum` are
//! refused with a clear 400, as `export --values 'Exit Code:sum'` is;
//! Start/End Time keep WPA's Min/Max and Duration its Sum (the WPA team's
//! "Table & Graph Configurations (Part 1)": Process table "Duration [Sum],
//! Start Time [Min], and End Time [Max]"), equal to the rows' own figures.

mod common;

use common::real_traces_dir;
use serde_json::Value;
use std::process::Command;

const TRACE: &str = "perfview-net452-x64.etl";

fn table(s: &common::Server, id: &str, body: &str) -> (u16, Value) {
    s.json("POST", &format!("/api/traces/{id}/table"), body)
}

fn row<'a>(v: &'a Value, label: &str) -> &'a Value {
    v["rows"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["label"] == label))
        .unwrap_or_else(|| panic!("no row {label}: {v}"))
}

#[test]
fn ids_and_instants_never_sum_in_group_rows() {
    let Some(dir) = real_traces_dir() else { return };
    let file = dir.join(TRACE);
    let data = common::temp_dir("group-rows-ids");
    let s = common::Server::start(&data, &[file.to_str().unwrap()]);
    let (_, list) = s.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    s.wait_ready(&id, 120);

    // Sums of ids and instants are refused, with the reason.
    for spec in ["Exit Code:sum", "PID:sum", "Start Time:sum"] {
        let body =
            format!(r#"{{"table":"processes","columns":["Process Name"],"values":["{spec}"]}}"#);
        let (st, v) = table(&s, &id, &body);
        eprintln!(
            "{spec}: {st} {}",
            &v.to_string()[..v.to_string().len().min(400)]
        );
        assert_eq!(st, 400, "{spec} was answered");
        assert!(v.to_string().contains("not possible"), "{v}");
    }
    let (st, v) = table(
        &s,
        &id,
        r#"{"table":"images","columns":["Image Name"],"values":["Base Address:sum"]}"#,
    );
    assert_eq!(st, 400, "{v}");

    // Every svchost.exe instance, one row each: the figures a group row of
    // them must agree with.
    let (st, each) = table(
        &s,
        &id,
        r#"{"table":"processes","columns":["Process"],"limit":100000,
            "values":["Process Name","PID","Start Time","End Time","Duration"]}"#,
    );
    assert_eq!(st, 200, "{each}");
    let svc: Vec<&Value> = each["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["values"]["Process Name"] == "svchost.exe")
        .collect();
    assert!(svc.len() > 1, "svchost.exe has several instances");
    let duration: f64 = svc
        .iter()
        .map(|r| r["values"]["Duration"].as_f64().unwrap())
        .sum();

    let (st, v) = table(
        &s,
        &id,
        r#"{"table":"processes","columns":["Process Name"],"limit":100000,
            "values":["PID","Parent PID","Exit Code","Start Time","End Time","Duration","Count"]}"#,
    );
    assert_eq!(st, 200, "{v}");
    let g = &row(&v, "svchost.exe")["values"];
    eprintln!("svchost.exe group row: {g}");
    assert_eq!(g["Count"], svc.len() as u64);
    // Several PIDs: no single one, and no count posing as one.
    assert!(g["PID"].is_null(), "PID of {} svchost.exe: {g}", svc.len());
    // Durations add up (WPA sums Duration in the Process table).
    let got = g["Duration"].as_f64().unwrap();
    assert!((got - duration).abs() < 1e-6, "{got} vs {duration}");

    // Threads of one process: several thread ids, none shown.
    let (st, v) = table(
        &s,
        &id,
        r#"{"table":"threads","columns":["Process"],"limit":100000,
            "values":["Thread ID","Start Address","Count"]}"#,
    );
    assert_eq!(st, 200, "{v}");
    let sys = &row(&v, "System (4)")["values"];
    assert!(sys["Count"].as_u64().unwrap() > 1);
    assert!(sys["Thread ID"].is_null(), "{sys}");
    // Addresses are hex text: none is empty text.
    assert!(
        sys["Start Address"].is_null() || sys["Start Address"] == "",
        "{sys}"
    );

    // The CLI's group rows too.
    let out = Command::new(common::binary())
        .arg("export")
        .arg(&file)
        .args(["--table", "processes", "--group", "Process Name"])
        .args(["--values", "Exit Code:sum"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    eprintln!("export Exit Code:sum: {} {err}", out.status);
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(err.contains("does not add up"), "{err}");
}
