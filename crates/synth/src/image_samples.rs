//! One process that loaded one image with a recorded PDB identity, sampled
//! at given stacks inside it: the trace symbol tests name frames in.
//! Rundown (process, thread, image DCStart + DbgID_RSDS with the image
//! event's timestamp, as xperf writes them) on CPU 0, then each stack as a
//! SampledProfile followed by its StackWalk.

use crate::kernel::{self, hooks, versions, ImageFields, ProcessFields, ThreadFields};
use etl::writer::{ClassicHeader, EtlWriter, KernelHeader, Record, WriterConfig};
use std::io::{self, Cursor};

/// The image and what the trace records about its PDB.
#[derive(Debug, Clone)]
pub struct ImageWithPdb {
    /// Full path as the kernel records it, e.g. `C:\fixture\fixture.dll`.
    pub path: String,
    pub base: u64,
    pub size: u64,
    pub pdb_guid: etl::Guid,
    pub pdb_age: u32,
    /// PDB path as the linker recorded it.
    pub pdb_path: String,
}

pub const PID: u32 = 4242;
pub const TID: u32 = 4343;
pub const PROCESS_NAME: &str = "fixture_host.exe";

/// A 64-bit trace: `stacks` are RVAs into the image, leaf first; each
/// becomes one sample 1 ms after the previous one.
pub fn write_image_samples(image: &ImageWithPdb, stacks: &[Vec<u32>]) -> io::Result<Vec<u8>> {
    const P: u8 = 8;
    let config = WriterConfig {
        pointer_size: P,
        cpus: 1,
        logger_name: "etlscope synth image samples".into(),
        log_file_name: "image-samples.etl".into(),
        ..WriterConfig::default()
    };
    let ts0 = config.ts0;
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), config)?;
    let pl = kernel::process(
        P,
        &ProcessFields {
            unique_process_key: 0xFFFF_8000_1234_0000,
            pid: PID,
            parent_pid: 4,
            session_id: 1,
            directory_table_base: 0x1AD000,
            image_file_name: PROCESS_NAME,
            command_line: PROCESS_NAME,
        },
    );
    let rec = Record::perfinfo(ts0 + 10, hooks::PROCESS_DC_START, versions::PROCESS, &pl);
    w.write(0, &rec)?;
    let pl = kernel::thread(
        P,
        &ThreadFields {
            pid: PID,
            tid: TID,
            stack_base: 0xFFFF_9000_0000_6000,
            stack_limit: 0xFFFF_9000_0000_0000,
            start_addr: image.base,
            win32_start_addr: image.base,
            teb_base: 0x7FFD_0000,
            base_priority: 8,
        },
    );
    let h = KernelHeader {
        hook_id: hooks::THREAD_DC_START,
        version: versions::THREAD,
        pid: PID,
        tid: TID,
    };
    w.write(0, &Record::system(ts0 + 20, h, &pl))?;
    let image_ts = ts0 + 30;
    let pl = kernel::image(
        P,
        &ImageFields {
            base: image.base,
            size: image.size,
            pid: PID,
            checksum: 0,
            time_date_stamp: 0,
            file_name: &image.path,
        },
    );
    let rec = Record::perfinfo(image_ts, hooks::IMAGE_DC_START, versions::IMAGE, &pl);
    w.write(0, &rec)?;
    let pl = kernel::dbgid_rsds(
        P,
        image.base,
        PID,
        image.pdb_guid,
        image.pdb_age,
        &image.pdb_path,
    );
    let h = ClassicHeader {
        guid: etl::decode::KERNEL_TRACE_CONTROL,
        opcode: 36,
        version: 2,
        pid: PID,
        tid: TID,
        ..ClassicHeader::default()
    };
    w.write(0, &Record::full(image_ts, h, &pl))?;
    for (i, stack) in stacks.iter().enumerate() {
        let ts = ts0 + 10_000 * (i as i64 + 1);
        let frames: Vec<u64> = stack.iter().map(|&r| image.base + u64::from(r)).collect();
        let ip = frames.first().copied().unwrap_or(0);
        let pl = kernel::sampled_profile(P, ip, TID, 0);
        let rec = Record::perfinfo(ts, hooks::SAMPLED_PROFILE, versions::SAMPLED_PROFILE, &pl);
        w.write(0, &rec)?;
        let pl = kernel::stack_walk(P, ts, PID, TID, &frames);
        let rec = Record::perfinfo(ts + 2, hooks::STACK_WALK, versions::STACK_WALK, &pl);
        w.write(0, &rec)?;
    }
    let (cursor, _) = w.finish()?;
    Ok(cursor.into_inner())
}
