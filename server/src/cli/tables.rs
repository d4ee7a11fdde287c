//! Row-at-a-time views of model tables for `export`, with WPA's column names.

use super::event_tables::{CpuPrecise, DiskIo, FileIo, Generic};
use anyhow::bail;
use model::processes::OPEN;
use model::{Trace, NONE};

pub trait TableView {
    fn columns(&self) -> Vec<&'static str>;
    fn len(&self) -> usize;
    fn value(&self, row: usize, col: usize) -> String;
    /// ns since trace start, for range filters.
    fn time(&self, row: usize) -> Option<i64>;
    fn has_weight(&self) -> bool {
        false
    }
    fn weight_ns(&self, _row: usize) -> i64 {
        0
    }
}

pub fn table_by_name<'a>(trace: &'a Trace, name: &str) -> anyhow::Result<Box<dyn TableView + 'a>> {
    Ok(match name {
        "cpu-sampled" => Box::new(CpuSampled(trace)),
        "processes" => Box::new(Processes(trace)),
        "threads" => Box::new(Threads(trace)),
        "images" => Box::new(Images(trace)),
        "cpu-precise" => Box::new(CpuPrecise(trace)),
        "file-io" => Box::new(FileIo(trace)),
        "disk-io" => Box::new(DiskIo(trace)),
        "generic" => Box::new(Generic(trace)),
        _ => bail!(
            "unknown table {name:?}; tables are cpu-sampled, cpu-precise, images, processes, threads, file-io, disk-io, generic"
        ),
    })
}

fn secs(ns: i64) -> String {
    if ns == OPEN {
        String::new()
    } else {
        format!("{:.9}", ns as f64 / 1e9)
    }
}

struct CpuSampled<'a>(&'a Trace);

impl CpuSampled<'_> {
    fn leaf_module(&self, row: usize) -> u32 {
        let t = self.0;
        let st = t.samples.stack[row];
        if st == NONE {
            return NONE;
        }
        let f = t.stacks.frame[st as usize];
        t.frames.module[f as usize]
    }
}

impl TableView for CpuSampled<'_> {
    fn columns(&self) -> Vec<&'static str> {
        vec![
            "Process",
            "Process Name",
            "PID",
            "Thread ID",
            "Thread Name",
            "CPU",
            "Module",
            "Function",
            "Stack",
            "Image Path",
            "File Version",
            "Company Name",
        ]
    }
    fn len(&self) -> usize {
        self.0.samples.len()
    }
    fn time(&self, row: usize) -> Option<i64> {
        Some(self.0.samples.time[row])
    }
    fn has_weight(&self) -> bool {
        true
    }
    fn weight_ns(&self, row: usize) -> i64 {
        self.0.samples.weight_ns(row)
    }
    fn value(&self, row: usize, col: usize) -> String {
        let t = self.0;
        let th = t.samples.thread(row) as usize;
        let p = t.threads.process[th];
        let s = |id| t.strings.get(id).to_string();
        let module = self.leaf_module(row);
        let mstr = |f: &dyn Fn(usize) -> String| {
            if module == NONE {
                String::new()
            } else {
                f(module as usize)
            }
        };
        match col {
            0 => t.process_label(p),
            1 => s(t.processes.name[p as usize]),
            2 => t.processes.pid[p as usize].to_string(),
            3 => t.threads.tid[th].to_string(),
            4 => s(t.threads.name[th]),
            5 => t.samples.cpu(row).to_string(),
            6 => mstr(&|m| s(t.modules.name[m])),
            7 => {
                let st = t.samples.stack[row];
                if st == NONE {
                    String::new()
                } else {
                    t.frame_label(t.stacks.frame[st as usize])
                }
            }
            8 => {
                let frames: Vec<String> = t
                    .stacks
                    .frames_leaf_first(t.samples.stack[row])
                    .map(|f| t.frame_label(f))
                    .collect();
                frames.into_iter().rev().collect::<Vec<_>>().join(";")
            }
            9 => mstr(&|m| s(t.modules.path[m])),
            10 => mstr(&|m| s(t.modules.file_version[m])),
            11 => mstr(&|m| s(t.modules.company_name[m])),
            _ => String::new(),
        }
    }
}

struct Processes<'a>(&'a Trace);

impl TableView for Processes<'_> {
    fn columns(&self) -> Vec<&'static str> {
        vec![
            "Process",
            "Process Name",
            "PID",
            "Parent PID",
            "Session",
            "Command Line",
            "Start (s)",
            "End (s)",
            "Exit Status",
        ]
    }
    fn len(&self) -> usize {
        self.0.processes.len()
    }
    fn time(&self, _row: usize) -> Option<i64> {
        None
    }
    fn value(&self, row: usize, col: usize) -> String {
        let t = self.0;
        let p = &t.processes;
        match col {
            0 => t.process_label(row as u32),
            1 => t.strings.get(p.name[row]).to_string(),
            2 => p.pid[row].to_string(),
            3 => p.parent_pid[row].to_string(),
            4 => p.session[row].to_string(),
            5 => t.strings.get(p.command_line[row]).to_string(),
            6 => secs(p.start[row]),
            7 => secs(p.end[row]),
            8 => p.exit_status[row].to_string(),
            _ => String::new(),
        }
    }
}

struct Threads<'a>(&'a Trace);

impl TableView for Threads<'_> {
    fn columns(&self) -> Vec<&'static str> {
        vec![
            "Process",
            "Thread ID",
            "Thread Name",
            "Start (s)",
            "End (s)",
            "Start Address",
        ]
    }
    fn len(&self) -> usize {
        self.0.threads.len()
    }
    fn time(&self, _row: usize) -> Option<i64> {
        None
    }
    fn value(&self, row: usize, col: usize) -> String {
        let t = self.0;
        let th = &t.threads;
        match col {
            0 => t.process_label(th.process[row]),
            1 => th.tid[row].to_string(),
            2 => t.strings.get(th.name[row]).to_string(),
            3 => secs(th.start[row]),
            4 => secs(th.end[row]),
            5 => format!("{:#x}", th.start_address[row]),
            _ => String::new(),
        }
    }
}

struct Images<'a>(&'a Trace);

impl TableView for Images<'_> {
    fn columns(&self) -> Vec<&'static str> {
        vec![
            "Process",
            "Image Name",
            "Image Path",
            "File Version",
            "Product Name",
            "Company Name",
            "Description",
            "Base",
            "Size",
            "Load (s)",
            "Unload (s)",
            "PDB Name",
            "PDB GUID",
            "PDB Age",
            "Has Version Info",
        ]
    }
    fn len(&self) -> usize {
        self.0.images.len()
    }
    fn time(&self, _row: usize) -> Option<i64> {
        None
    }
    fn value(&self, row: usize, col: usize) -> String {
        let t = self.0;
        let im = &t.images;
        let m = im.module[row] as usize;
        let md = &t.modules;
        let s = |id| t.strings.get(id).to_string();
        match col {
            0 => t.process_label(im.process[row]),
            1 => s(md.name[m]),
            2 => s(md.path[m]),
            3 => s(md.file_version[m]),
            4 => s(md.product_name[m]),
            5 => s(md.company_name[m]),
            6 => s(md.file_description[m]),
            7 => format!("{:#x}", im.base[row]),
            8 => format!("{:#x}", im.size[row]),
            9 => secs(im.load[row]),
            10 => secs(im.unload[row]),
            11 => s(md.pdb_name[m]),
            12 => md.pdb_guid[m].map(|g| g.to_string()).unwrap_or_default(),
            13 => md.pdb_age[m].to_string(),
            14 => md.has_version_info[m].to_string(),
            _ => String::new(),
        }
    }
}
