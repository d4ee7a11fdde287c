//! What each row table shows: its key columns (text per row, or a stack),
//! row times and summed value columns, with WPA's column names (as the
//! export CLI's event views name them).

use crate::row_tables::RowTableKind;
use model::cpu_precise::{thread_state_name, wait_reason_name, UNKNOWN};
use model::processes::OPEN;
use model::{Trace, NONE};

/// A key column: display text per row, or a stack row per row (drilled
/// one frame per level).
pub(crate) enum KeySpec<'a> {
    Text(&'static str, Box<dyn Fn(usize) -> String + Sync + 'a>),
    Stack(&'static str, Vec<u32>),
}

impl KeySpec<'_> {
    pub(crate) fn name(&self) -> &'static str {
        match self {
            KeySpec::Text(n, _) | KeySpec::Stack(n, _) => n,
        }
    }
}

pub(crate) struct TableSpec<'a> {
    pub columns: Vec<KeySpec<'a>>,
    /// Row lifetimes (`OPEN` = unbounded); events have `end == start`.
    pub start: Vec<i64>,
    pub end: Vec<i64>,
    /// Events (one time each): rows report first/last times.
    pub timed: bool,
    /// The weight column (name, ns per row): its sum is `weight_ms`.
    pub weight: Option<(&'static str, Vec<i64>)>,
    /// Further summed value columns: (name, unit divisor for display, per row).
    pub values: Vec<(&'static str, f64, Vec<i64>)>,
}

fn secs(ns: i64) -> String {
    if ns == OPEN {
        String::new()
    } else {
        format!("{:.9}", ns as f64 / 1e9)
    }
}

fn get<T: Copy + Default>(v: &[T], i: usize) -> T {
    v.get(i).copied().unwrap_or_default()
}

fn text<'a>(name: &'static str, f: impl Fn(usize) -> String + Sync + 'a) -> KeySpec<'a> {
    KeySpec::Text(name, Box::new(f))
}

pub(crate) fn spec(t: &Trace, kind: RowTableKind) -> TableSpec<'_> {
    let s = move |id: model::strings::StrId| t.strings.get(id).to_string();
    let lifetime = |columns, start: &[i64], end: &[i64]| TableSpec {
        columns,
        start: start.to_vec(),
        end: end.to_vec(),
        timed: false,
        weight: None,
        values: Vec::new(),
    };
    match kind {
        RowTableKind::Processes => {
            let p = &t.processes;
            lifetime(
                vec![
                    text("Process", move |i| t.process_label(i as u32)),
                    text("Process Name", move |i| s(p.name[i])),
                    text("PID", move |i| p.pid[i].to_string()),
                    text("Parent PID", move |i| p.parent_pid[i].to_string()),
                    text("Command Line", move |i| s(p.command_line[i])),
                    text("Session", move |i| p.session[i].to_string()),
                    text("Start Time", move |i| secs(p.start[i])),
                    text("End Time", move |i| secs(p.end[i])),
                    text("Exit Status", move |i| p.exit_status[i].to_string()),
                ],
                &p.start,
                &p.end,
            )
        }
        RowTableKind::Threads => {
            let th = &t.threads;
            lifetime(
                vec![
                    text("Process", move |i| t.process_label(th.process[i])),
                    text("Thread ID", move |i| th.tid[i].to_string()),
                    text("Thread Name", move |i| s(th.name[i])),
                    text("Start Address", move |i| {
                        format!("{:#x}", th.start_address[i])
                    }),
                    text("Start Time", move |i| secs(th.start[i])),
                    text("End Time", move |i| secs(th.end[i])),
                ],
                &th.start,
                &th.end,
            )
        }
        RowTableKind::Images => images(t),
        RowTableKind::FileIo => file_io(t),
        RowTableKind::DiskIo => disk_io(t),
        RowTableKind::CpuPrecise => cpu_precise(t),
        RowTableKind::Generic => generic(t),
    }
}

fn images(t: &Trace) -> TableSpec<'_> {
    let im = &t.images;
    let m = &t.modules;
    let s = move |id: model::strings::StrId| t.strings.get(id).to_string();
    let ms = move |col: &'static str,
                   f: fn(&model::images::ModuleTable) -> &Vec<model::strings::StrId>| {
        text(col, move |i| {
            let md = im.module[i] as usize;
            f(m).get(md).map_or_else(String::new, |&x| s(x))
        })
    };
    TableSpec {
        columns: vec![
            text("Process", move |i| t.process_label(im.process[i])),
            ms("Image Name", |m| &m.name),
            ms("Image Path", |m| &m.path),
            ms("File Version", |m| &m.file_version),
            ms("Product Name", |m| &m.product_name),
            ms("Company Name", |m| &m.company_name),
            ms("Description", |m| &m.file_description),
            text("Base Address", move |i| format!("{:#x}", im.base[i])),
            text("Size", move |i| im.size[i].to_string()),
            text("Load Time", move |i| secs(im.load[i])),
            text("Unload Time", move |i| secs(im.unload[i])),
            ms("PDB Name", |m| &m.pdb_name),
        ],
        start: im.load.clone(),
        end: im.unload.clone(),
        timed: false,
        weight: None,
        values: Vec::new(),
    }
}

fn file_io(t: &Trace) -> TableSpec<'_> {
    let f = &t.file_io;
    TableSpec {
        columns: vec![
            text("Process", move |i| t.process_text(get(&f.process, i))),
            text("Thread", move |i| t.tid_text(get(&f.thread, i))),
            text("Type", move |i| {
                f.op.get(i).map_or("", |o| o.name()).to_string()
            }),
            text("File Path", move |i| {
                f.path
                    .get(i)
                    .map_or_else(String::new, |&p| t.strings.get(p).to_string())
            }),
            text("Provider", move |i| {
                if get(&f.from_kernel_file_provider, i) {
                    "Microsoft-Windows-Kernel-File"
                } else {
                    "FileIo"
                }
                .to_string()
            }),
            KeySpec::Stack("Stack", f.stack.clone()),
        ],
        start: f.time.clone(),
        end: f.time.clone(),
        timed: true,
        weight: Some(("Duration (ms)", f.duration_ns.clone())),
        values: vec![(
            "Size",
            1.0,
            f.size
                .iter()
                .map(|&x| x.min(i64::MAX as u64) as i64)
                .collect(),
        )],
    }
}

fn disk_io(t: &Trace) -> TableSpec<'_> {
    let d = &t.disk_io;
    TableSpec {
        columns: vec![
            text("Process", move |i| t.process_text(get(&d.process, i))),
            text("Thread", move |i| t.tid_text(get(&d.thread, i))),
            text("IO Type", move |i| {
                d.op.get(i).map_or("", |o| o.name()).to_string()
            }),
            text("Disk", move |i| get(&d.disk, i).to_string()),
            text("Path Name", move |i| {
                d.path
                    .get(i)
                    .map_or_else(String::new, |&p| t.strings.get(p).to_string())
            }),
            text("Priority", move |i| get(&d.priority, i).to_string()),
            KeySpec::Stack("Stack", d.stack.clone()),
        ],
        start: d.time.clone(),
        end: d.time.clone(),
        timed: true,
        weight: Some(("Disk Service Time (ms)", d.duration_ns.clone())),
        values: vec![("Size", 1.0, d.size.iter().map(|&x| i64::from(x)).collect())],
    }
}

fn cpu_precise(t: &Trace) -> TableSpec<'_> {
    let c = &t.cswitches;
    let r = &t.ready_threads;
    let readying = move |i: usize| match get(&c.ready_event, i) {
        NONE => NONE,
        e => r.readying_thread.get(e as usize).copied().unwrap_or(NONE),
    };
    let known = |v: &[i64]| {
        v.iter()
            .map(|&x| if x == UNKNOWN { 0 } else { x })
            .collect()
    };
    let ready_stack = c
        .ready_event
        .iter()
        .map(|&e| r.stack.get(e as usize).copied().unwrap_or(NONE))
        .collect();
    TableSpec {
        columns: vec![
            text("New Process", move |i| {
                t.process_text(t.thread_process(get(&c.new_thread, i)))
            }),
            text("New Thread Id", move |i| t.tid_text(get(&c.new_thread, i))),
            text("New Thread Priority", move |i| {
                get(&c.new_priority, i).to_string()
            }),
            text("CPU", move |i| get(&c.cpu, i).to_string()),
            text("Old Process", move |i| {
                t.process_text(t.thread_process(get(&c.old_thread, i)))
            }),
            text("Old Thread Id", move |i| t.tid_text(get(&c.old_thread, i))),
            text("Old Wait Reason", move |i| {
                wait_reason_name(get(&c.old_wait_reason, i)).to_string()
            }),
            text("Old State", move |i| {
                thread_state_name(get(&c.old_state, i)).to_string()
            }),
            text("Readying Process", move |i| {
                t.process_text(t.thread_process(readying(i)))
            }),
            text("Readying Thread Id", move |i| t.tid_text(readying(i))),
            KeySpec::Stack("New Thread Stack", c.stack.clone()),
            KeySpec::Stack("Ready Thread Stack", ready_stack),
        ],
        start: c.time.clone(),
        end: c.time.clone(),
        timed: true,
        weight: Some(("CPU Usage (ms)", c.run_ns.clone())),
        values: vec![
            ("Waits (ms)", 1e6, known(&c.wait_ns)),
            ("Ready (ms)", 1e6, known(&c.ready_ns)),
        ],
    }
}

fn generic(t: &Trace) -> TableSpec<'_> {
    let g = &t.generic;
    TableSpec {
        columns: vec![
            text("Provider", move |i| t.generic_provider_text(i)),
            text("Task", move |i| t.generic_task_text(i)),
            text("Opcode", move |i| t.generic_opcode_text(i)),
            text("Id", move |i| t.generic_id_text(i)),
            text("Level", move |i| t.generic_level_text(i)),
            text("Keyword", move |i| t.generic_keyword_text(i)),
            text("Process", move |i| t.generic_process_text(i)),
            text("Thread", move |i| t.generic_thread_text(i)),
            text("CPU", move |i| get(&g.cpu, i).to_string()),
            text("Event Name", move |i| {
                g.name
                    .get(i)
                    .map_or_else(String::new, |&n| t.strings.get(n).to_string())
            }),
            // The payload as WPA's Field columns show it, in one column
            // (`name=value; ...`), as `etlscope export` prints it.
            text("Fields", move |i| fields_text(t, i)),
            KeySpec::Stack("Stack", g.stack.clone()),
        ],
        start: g.time.clone(),
        end: g.time.clone(),
        timed: true,
        weight: None,
        values: Vec::new(),
    }
}

/// Longest Fields text kept per event: enough to read, bounded so that a
/// table of millions of events with large payloads stays small.
const FIELDS_MAX_CHARS: usize = 256;

fn fields_text(t: &Trace, row: usize) -> String {
    let mut s = t.generic_fields_text(row);
    if s.len() > FIELDS_MAX_CHARS {
        let cut = (0..=FIELDS_MAX_CHARS)
            .rev()
            .find(|&i| s.is_char_boundary(i))
            .unwrap_or(0);
        s.truncate(cut);
        s.push('…');
    }
    s
}
