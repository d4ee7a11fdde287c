//! Export views of the event tables: CPU Usage (Precise), File I/O, Disk I/O
//! and Generic Events, with WPA's column names.

use super::tables::TableView;
use model::cpu_precise::{thread_state_name, wait_reason_name, UNKNOWN};
use model::{Trace, NONE};

/// Root-first `;`-joined frames, empty when there is no stack.
fn stack(t: &Trace, st: u32) -> String {
    if st == NONE {
        return String::new();
    }
    let frames: Vec<String> = t
        .stacks
        .frames_leaf_first(st)
        .map(|f| t.frame_label(f))
        .collect();
    frames.into_iter().rev().collect::<Vec<_>>().join(";")
}

fn us(ns: i64) -> String {
    if ns == UNKNOWN {
        String::new()
    } else {
        format!("{:.3}", ns as f64 / 1e3)
    }
}

fn secs(ns: i64) -> String {
    format!("{:.9}", ns as f64 / 1e9)
}

pub struct CpuPrecise<'a>(pub &'a Trace);

impl TableView for CpuPrecise<'_> {
    fn columns(&self) -> Vec<&'static str> {
        vec![
            "Switch-In Time (s)",
            "CPU",
            "New Process",
            "New Thread Id",
            "New Thread Priority",
            "Old Process",
            "Old Thread Id",
            "Old Thread Priority",
            "Old Wait Reason",
            "Old State",
            "Waits (µs)",
            "Ready (µs)",
            "New Thread Wait Time (raw)",
            "Readying Process",
            "Readying Thread Id",
            "New Thread Stack",
            "Ready Thread Stack",
            "CPU Usage (ms)",
        ]
    }
    fn len(&self) -> usize {
        self.0.cswitches.len()
    }
    fn time(&self, row: usize) -> Option<i64> {
        Some(self.0.cswitches.time[row])
    }
    fn has_weight(&self) -> bool {
        true
    }
    fn weight_ns(&self, row: usize) -> i64 {
        self.0.cswitches.run_ns[row]
    }
    fn value(&self, row: usize, col: usize) -> String {
        let t = self.0;
        let c = &t.cswitches;
        let ready = c.ready_event[row];
        let readying = if ready == NONE {
            NONE
        } else {
            t.ready_threads.readying_thread[ready as usize]
        };
        match col {
            0 => secs(c.time[row]),
            1 => c.cpu[row].to_string(),
            2 => t.process_text(t.thread_process(c.new_thread[row])),
            3 => t.tid_text(c.new_thread[row]),
            4 => c.new_priority[row].to_string(),
            5 => t.process_text(t.thread_process(c.old_thread[row])),
            6 => t.tid_text(c.old_thread[row]),
            7 => c.old_priority[row].to_string(),
            8 => wait_reason_name(c.old_wait_reason[row]).to_string(),
            9 => thread_state_name(c.old_state[row]).to_string(),
            10 => us(c.wait_ns[row]),
            11 => us(c.ready_ns[row]),
            12 => c.new_wait_time_raw[row].to_string(),
            13 => t.process_text(t.thread_process(readying)),
            14 => t.tid_text(readying),
            15 => stack(t, c.stack[row]),
            16 => {
                if ready == NONE {
                    String::new()
                } else {
                    stack(t, t.ready_threads.stack[ready as usize])
                }
            }
            17 => format!("{:.6}", c.run_ns[row] as f64 / 1e6),
            _ => String::new(),
        }
    }
}

pub struct FileIo<'a>(pub &'a Trace);

impl TableView for FileIo<'_> {
    fn columns(&self) -> Vec<&'static str> {
        vec![
            "Start Time (s)",
            "Process",
            "Thread",
            "Type",
            "File Path",
            "Size",
            "Offset",
            "Duration (µs)",
            "Provider",
            "Stack",
        ]
    }
    fn len(&self) -> usize {
        self.0.file_io.len()
    }
    fn time(&self, row: usize) -> Option<i64> {
        Some(self.0.file_io.time[row])
    }
    fn value(&self, row: usize, col: usize) -> String {
        let t = self.0;
        let f = &t.file_io;
        match col {
            0 => secs(f.time[row]),
            1 => t.process_text(f.process[row]),
            2 => t.tid_text(f.thread[row]),
            3 => f.op[row].name().to_string(),
            4 => t.strings.get(f.path[row]).to_string(),
            5 => f.size[row].to_string(),
            6 => f.offset[row].to_string(),
            7 => us(f.duration_ns[row]),
            8 => if f.from_kernel_file_provider[row] {
                "Microsoft-Windows-Kernel-File"
            } else {
                "FileIo"
            }
            .to_string(),
            9 => stack(t, f.stack[row]),
            _ => String::new(),
        }
    }
}

pub struct DiskIo<'a>(pub &'a Trace);

impl TableView for DiskIo<'_> {
    fn columns(&self) -> Vec<&'static str> {
        vec![
            "Init Time (s)",
            "Process",
            "Thread",
            "IO Type",
            "Disk",
            "Path Name",
            "Size",
            "Offset",
            "Priority",
            "Disk Service Time (µs)",
            "Stack",
        ]
    }
    fn len(&self) -> usize {
        self.0.disk_io.len()
    }
    fn time(&self, row: usize) -> Option<i64> {
        Some(self.0.disk_io.time[row])
    }
    fn value(&self, row: usize, col: usize) -> String {
        let t = self.0;
        let d = &t.disk_io;
        match col {
            0 => secs(d.time[row]),
            1 => t.process_text(d.process[row]),
            2 => t.tid_text(d.thread[row]),
            3 => d.op[row].name().to_string(),
            4 => d.disk[row].to_string(),
            5 => t.strings.get(d.path[row]).to_string(),
            6 => d.size[row].to_string(),
            7 => d.offset[row].to_string(),
            8 => d.priority[row].to_string(),
            9 => us(d.duration_ns[row]),
            10 => stack(t, d.stack[row]),
            _ => String::new(),
        }
    }
}

pub struct Generic<'a>(pub &'a Trace);

impl TableView for Generic<'_> {
    fn columns(&self) -> Vec<&'static str> {
        vec![
            "Time (s)",
            "Provider",
            "Task",
            "Opcode",
            "Id",
            "Level",
            "Keyword",
            "Process",
            "Thread",
            "CPU",
            "Event Name",
            "Fields",
            "Stack",
        ]
    }
    fn len(&self) -> usize {
        self.0.generic.len()
    }
    fn time(&self, row: usize) -> Option<i64> {
        Some(self.0.generic.time[row])
    }
    fn value(&self, row: usize, col: usize) -> String {
        let t = self.0;
        let g = &t.generic;
        match col {
            0 => secs(g.time[row]),
            1 => t.generic_provider_text(row),
            2 => t.generic_task_text(row),
            3 => t.generic_opcode_text(row),
            4 => t.generic_id_text(row),
            5 => t.generic_level_text(row),
            6 => t.generic_keyword_text(row),
            7 => t.generic_process_text(row),
            8 => t.generic_thread_text(row),
            9 => g.cpu[row].to_string(),
            10 => t.strings.get(g.name[row]).to_string(),
            11 => t.generic_fields_text(row),
            12 => stack(t, g.stack[row]),
            _ => String::new(),
        }
    }
}
