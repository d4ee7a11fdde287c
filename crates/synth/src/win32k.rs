//! Focus changes and UI delays written from a list: a test writes what it
//! chooses and computes what Window in Focus and UI Delays must show from
//! the same list. Layouts: Microsoft-Windows-Win32k's manifest (our
//! built-in schema pack, from the Windows 10 manifests TDH reconstructs):
//! FocusChange (event 2, keyword Focus: UInt32 OldThreadId, UInt32
//! NewThreadId) and MessageCheckDelay (event 38, keyword
//! UIUnresponsiveness: UInt32 Flags, DelayTimeMs, TimeSinceInputRemoveMs,
//! TimeSinceOldestInputMs). The processes and threads are in the kernel's
//! rundown, so the rows name them. The keyword bits are ours (the pack
//! keeps keyword names, not masks; nothing reads them).

use crate::kernel::{self, hooks, versions, ProcessFields, ThreadFields};
use etl::writer::{EtlWriter, EventHeaderFields, KernelHeader, Record, WriterConfig};
use etl::Guid;
use std::io::{self, Cursor};

/// Microsoft-Windows-Win32k.
pub const WIN32K: Guid = Guid::from_u128(0x8c416c79_d49b_4f01_a467_e56d3aa8234c);

/// A process and its threads in the rundown.
#[derive(Debug, Clone)]
pub struct Gui {
    pub pid: u32,
    pub exe: String,
    pub tids: Vec<u32>,
}

/// Focus to `new_tid` (0: to no thread) at `time` (100 ns ticks after `ts0`).
#[derive(Debug, Clone)]
pub struct Focus {
    pub time: i64,
    pub old_tid: u32,
    pub new_tid: u32,
}

/// Thread `tid` of `pid` checked its messages at `time`, `delay_ms` late.
#[derive(Debug, Clone)]
pub struct Delay {
    pub time: i64,
    pub pid: u32,
    pub tid: u32,
    pub delay_ms: u32,
    pub oldest_input_ms: u32,
}

#[derive(Debug, Clone, Default)]
pub struct Win32kEvents {
    pub processes: Vec<Gui>,
    pub focus: Vec<Focus>,
    pub delays: Vec<Delay>,
}

fn header(id: u16, keyword: u64, pid: u32, tid: u32) -> EventHeaderFields<'static> {
    EventHeaderFields {
        provider: WIN32K,
        id,
        version: 0,
        level: 4,
        keyword,
        pid,
        tid,
        ..EventHeaderFields::default()
    }
}

/// The trace of `m`: the rundown, then the events in time order.
pub fn write_win32k(m: &Win32kEvents) -> io::Result<Vec<u8>> {
    let config = WriterConfig {
        pointer_size: 8,
        cpus: 1,
        logger_name: "etlscope synth win32k".into(),
        log_file_name: "win32k.etl".into(),
        ..WriterConfig::default()
    };
    let ts0 = config.ts0;
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), config)?;
    for g in &m.processes {
        let f = ProcessFields {
            unique_process_key: 0xFFFF_8000_0000_0000 + u64::from(g.pid),
            pid: g.pid,
            parent_pid: 4,
            session_id: 1,
            directory_table_base: 0x1AD000,
            image_file_name: &g.exe,
            command_line: &g.exe,
        };
        let pl = kernel::process(8, &f);
        w.write(
            0,
            &Record::perfinfo(ts0 + 10, hooks::PROCESS_DC_START, versions::PROCESS, &pl),
        )?;
        for &tid in &g.tids {
            let f = ThreadFields {
                pid: g.pid,
                tid,
                stack_base: 0xFFFF_9000_0000_6000,
                stack_limit: 0xFFFF_9000_0000_0000,
                start_addr: 0x7FF6_0000_0000,
                win32_start_addr: 0x7FF6_0000_0000,
                teb_base: 0x7FFD_0000,
                base_priority: 8,
            };
            let h = KernelHeader {
                hook_id: hooks::THREAD_DC_START,
                version: versions::THREAD,
                pid: g.pid,
                tid,
            };
            w.write(0, &Record::system(ts0 + 20, h, &kernel::thread(8, &f)))?;
        }
    }
    // (time, payload, header)
    let mut events: Vec<(i64, Vec<u8>, EventHeaderFields<'static>)> = Vec::new();
    for f in &m.focus {
        let mut b = f.old_tid.to_le_bytes().to_vec();
        b.extend(f.new_tid.to_le_bytes());
        events.push((f.time, b, header(2, 0x1, 0, 0)));
    }
    for d in &m.delays {
        let mut b = 0u32.to_le_bytes().to_vec(); // Flags
        b.extend(d.delay_ms.to_le_bytes());
        b.extend(d.delay_ms.to_le_bytes()); // TimeSinceInputRemoveMs
        b.extend(d.oldest_input_ms.to_le_bytes());
        events.push((d.time, b, header(38, 0x2, d.pid, d.tid)));
    }
    events.sort_by_key(|e| e.0);
    for (time, pl, h) in &events {
        w.write(0, &Record::event(ts0 + time, *h, pl))?;
    }
    let (cursor, _) = w.finish()?;
    Ok(cursor.into_inner())
}

/// A small scenario (`etlscope synth win32k`): three GUI processes whose
/// threads take the focus in turn, `delays` UI delays among them.
pub fn demo_win32k(delays: usize) -> Win32kEvents {
    let processes = vec![
        Gui {
            pid: 1200,
            exe: "explorer.exe".into(),
            tids: vec![1204, 1208],
        },
        Gui {
            pid: 2300,
            exe: "notepad.exe".into(),
            tids: vec![2304],
        },
        Gui {
            pid: 3400,
            exe: "chrome.exe".into(),
            tids: vec![3404, 3408],
        },
    ];
    let tids: Vec<(u32, u32)> = (processes.iter())
        .flat_map(|g| g.tids.iter().map(move |&t| (g.pid, t)))
        .collect();
    let mut m = Win32kEvents {
        processes,
        ..Win32kEvents::default()
    };
    let mut old = 0;
    for k in 0..40i64 {
        let new = tids[(k as usize * 3) % tids.len()].1;
        m.focus.push(Focus {
            time: 10_000 + k * 250_000 + (k * 37 % 11) * 10_000,
            old_tid: old,
            new_tid: new,
        });
        old = new;
    }
    for k in 0..delays {
        let (pid, tid) = tids[(k * 7) % tids.len()];
        let delay_ms = 200 + (k as u32 * 137) % 2_000;
        m.delays.push(Delay {
            time: 30_000_000 + k as i64 * 40_000,
            pid,
            tid,
            delay_ms,
            oldest_input_ms: delay_ms + 15,
        });
    }
    m
}
