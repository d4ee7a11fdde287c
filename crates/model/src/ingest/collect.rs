//! The parallel pass: turn one buffer's events into records, using the
//! typed decoders of `etl::decode`.

use super::records::*;
use crate::io::DiskOp;
use etl::decode::{
    self, Decoded, ImageKind, MethodEventKind, ModuleEventKind, ProcessKind, ThreadKind,
};
use etl::{BufferData, Diagnostic, Event};

/// Payload bytes of one generic-events chunk before the next starts (a
/// row's offset into its chunk is a u32).
const PAYLOAD_CHUNK: usize = 1 << 30;

/// One buffer's records, in a batch of their own (the live path and the
/// reference build).
pub fn collect_buffer(buf: Result<BufferData<'_>, Diagnostic>) -> Batch {
    let mut b = Batch::default();
    collect_buffer_into(buf, &mut b, &mut Vec::new());
    b.shrink_payloads();
    b
}

/// One buffer's records appended to `b`, which holds those of the buffers
/// before it in the file: the same records as `collect_buffer` then
/// `Batch::extend`, without the buffer's own batch (its copies, and a
/// second lookup of each stack fragment). `frames` is scratch.
pub fn collect_buffer_into(
    buf: Result<BufferData<'_>, Diagnostic>,
    b: &mut Batch,
    frames: &mut Vec<u64>,
) {
    let buf = match buf {
        Ok(buf) => buf,
        Err(d) => {
            b.diagnostics.push(d);
            b.failed_buffers += 1;
            return;
        }
    };
    if b.arenas.last().is_some_and(|a| a.len() > PAYLOAD_CHUNK) {
        b.arenas.push(Vec::new());
    }
    // Each buffer's diagnostics are bounded on their own (`collect_one`).
    let earlier = std::mem::take(&mut b.diagnostics);
    let mut maybe_hex = false;
    for ev in buf.events() {
        match ev {
            Ok(e) => {
                b.registry_sources.add(&e);
                let typed = collect_one(&e, b, frames, buf.info.offset);
                maybe_hex |= !typed && etl::decode::schema::coverage::needs_registry(&e);
            }
            Err(w) => {
                // The count reads on past what this read stops at.
                maybe_hex = true;
                b.diagnostics.push(Diagnostic {
                    offset: buf.info.offset + 0x48 + w.offset as u64,
                    message: w.message,
                });
                break;
            }
        }
    }
    let own = std::mem::replace(&mut b.diagnostics, earlier);
    b.diagnostics.extend(own);
    if maybe_hex {
        b.hex_candidates.push(buf.info.index);
    }
}

/// One event into `b`'s records (`buffer_offset`: where its buffer starts
/// in the file, for diagnostics). The live path calls this per event.
/// True when a typed decoder read it (then it is not hex-only).
pub fn collect_one(
    e: &Event<'_>,
    b: &mut Batch,
    frames: &mut Vec<u64>,
    buffer_offset: u64,
) -> bool {
    b.events += 1;
    b.max_ts = b.max_ts.max(Some(e.timestamp));
    if !is_session_bookkeeping(e) {
        b.min_ts = Some(b.min_ts.map_or(e.timestamp, |m| m.min(e.timestamp)));
    }
    let collected = collect_event(e, b, frames);
    let typed = matches!(collected, Some(Ok(_)));
    let consumed = match collected {
        Some(Ok(consumed)) => consumed,
        Some(Err(err)) => {
            // Keep the count bounded: one bad provider can repeat a lot.
            if b.diagnostics.len() < 100 {
                b.diagnostics.push(Diagnostic {
                    offset: buffer_offset + 0x48 + e.offset_in_buffer as u64,
                    message: err.to_string(),
                });
            }
            false
        }
        None => false,
    };
    if !consumed {
        super::generic::collect_generic(e, b, frames);
    }
    typed
}

/// EventTrace events (the log-file header, rundown and extension markers of
/// the session, hook group 0 or the classic EventTrace class) are stamped
/// when the session starts, which can be hours before anything happens: a
/// boot-time kernel logger writes its header at boot.
fn is_session_bookkeeping(e: &Event<'_>) -> bool {
    let classic_group = || e.provider.and_then(decode::kernel_classes::kernel_group);
    e.group() == Some(0) || (e.hook_id.is_none() && classic_group() == Some(0))
}

/// The two events of every sample (SampledProfile, StackWalk) read by their
/// own decoders, as `decode::decode` picks them (kernel header, hook 0x0F2E
/// and 0x1820), into the records `collect_event` makes of them: through
/// the enum of every kind (248 bytes, moved whole at each step) they cost
/// a fifth of the read's CPU on a sampled trace.
fn collect_sample_event(
    e: &Event<'_>,
    b: &mut Batch,
    frames: &mut Vec<u64>,
) -> Option<Result<bool, decode::DecodeError>> {
    use decode::Decode;
    if !e.header_type.is_kernel() {
        return None;
    }
    match e.hook_id? {
        0x0F2E => Some(decode::SampledProfile::decode(e).map(|s| {
            push_sample(b, e, &s);
            true
        })),
        0x1820 => Some(decode::StackWalk::decode(e).map(|s| {
            push_stack_walk(b, frames, e.timestamp, &s);
            true
        })),
        _ => None,
    }
}

/// A SampledProfile event's record.
fn push_sample(b: &mut Batch, e: &Event<'_>, s: &decode::SampledProfile) {
    b.samples.push(SampleRec {
        ts: e.timestamp,
        tid: s.tid,
        cpu: e.cpu,
        ip: s.instruction_pointer,
    });
}

/// A StackWalk event's record, its frames interned as a fragment.
fn push_stack_walk(b: &mut Batch, frames: &mut Vec<u64>, ts: i64, s: &decode::StackWalk<'_>) {
    frames.clear();
    frames.extend(s.frames.iter());
    let fragment = b.fragments.intern(frames);
    b.inline_stacks.push(InlineStackRec {
        ts,
        event_ts: s.event_timestamp,
        pid: s.pid,
        tid: s.tid,
        fragment,
    });
}

/// Records the event into its specialised table: `Some(Ok(true))` when one
/// took it, `Some(Ok(false))` when it is left to Generic Events.
fn collect_event(
    e: &Event<'_>,
    b: &mut Batch,
    frames: &mut Vec<u64>,
) -> Option<Result<bool, decode::DecodeError>> {
    if let Some(hot) = collect_sample_event(e, b, frames) {
        return Some(hot);
    }
    let d = match decode::decode(e)? {
        Ok(d) => d,
        Err(err) => return Some(Err(err)),
    };
    let ts = e.timestamp;
    // SysConfig events stay Generic Events too, as in WPA.
    let d = match super::sysconfig::rec_of(d) {
        Ok(r) => {
            b.sysconfig.push((ts, r));
            return Some(Ok(false));
        }
        Err(d) => d,
    };
    // Kernel-Process lifetimes wait in their own lists (see
    // ManifestLifetimes) and stay Generic Events too, as in WPA.
    if e.provider == Some(decode::KERNEL_PROCESS) {
        let m = &mut b.manifest_lifetimes;
        match d {
            Decoded::Process(p) => m.processes.push(process_rec(ts, p)),
            Decoded::Thread(t) => m.threads.push(thread_rec(ts, t)),
            Decoded::Image(i) => m.images.push(image_rec(ts, i)),
            _ => return Some(Ok(false)),
        }
        return Some(Ok(false));
    }
    match d {
        Decoded::Process(p) => b.processes.push(process_rec(ts, p)),
        Decoded::Thread(t) => b.threads.push(thread_rec(ts, t)),
        Decoded::ThreadSetName(n) => b.thread_names.push(ThreadNameRec {
            ts,
            pid: n.pid,
            tid: n.tid,
            name: n.name,
        }),
        Decoded::Image(i) => b.images.push(image_rec(ts, i)),
        Decoded::ImageId(i) => b.image_info.push(ImageInfoRec::Id {
            ts,
            pid: i.pid,
            base: i.image_base,
            size: i.image_size,
            original_file_name: i.original_file_name,
        }),
        // The IL PDB of an NGEN image is not the one its native code needs.
        Decoded::DbgId(d) if !d.il => b.image_info.push(ImageInfoRec::Rsds {
            ts,
            pid: d.pid,
            base: d.image_base,
            guid: d.guid,
            age: d.age,
            pdb: d.pdb_file_name,
        }),
        Decoded::FileVersion(f) => b.image_info.push(ImageInfoRec::FileVersion {
            ts,
            size: f.image_size as u64,
            timestamp: f.time_date_stamp,
            fields: Box::new(FileVersionFields {
                original_file_name: f.original_file_name,
                file_description: f.file_description,
                file_version: f.file_version,
                product_name: f.product_name,
                company_name: f.company_name,
                product_version: f.product_version,
            }),
        }),
        Decoded::SampledProfile(s) => push_sample(b, e, &s),
        // Source 0 is the timer: the interval of SampledProfile.
        Decoded::ProfileInterval(i) if i.source == 0 => b.intervals.push(IntervalRec {
            ts,
            interval: i.new_interval,
        }),
        Decoded::StackWalk(s) => push_stack_walk(b, frames, ts, &s),
        Decoded::StackKeyDefinition(s) => {
            frames.clear();
            frames.extend(s.frames.iter());
            let fragment = b.fragments.intern(frames);
            b.key_defs.push(StackKeyDefRec {
                ts,
                key: s.key,
                fragment,
            });
        }
        Decoded::StackKeyReference(r) => b.key_refs.push(StackKeyRefRec {
            ts,
            event_ts: r.event_timestamp,
            pid: r.pid,
            tid: r.tid,
            key: r.key,
            user: r.user,
        }),
        Decoded::ClrMethod(m)
            if matches!(
                m.kind,
                MethodEventKind::Load | MethodEventKind::DcStart | MethodEventKind::DcEnd
            ) =>
        {
            b.clr_methods.push(ClrMethodRec {
                ts,
                pid: e.pid.unwrap_or(0),
                module_id: m.module_id,
                start: m.start_address,
                size: m.size,
                namespace: m.namespace,
                name: m.name,
                signature: m.signature,
            });
            // No table of its own: also a generic row.
            return Some(Ok(false));
        }
        Decoded::ClrModule(m) if m.kind != ModuleEventKind::Unload => {
            b.clr_modules.push(ClrModuleRec {
                ts,
                pid: e.pid.unwrap_or(0),
                module_id: m.module_id,
                il_path: m.il_path,
                native_path: m.native_path,
            });
            // No table of its own: also a generic row.
            return Some(Ok(false));
        }
        Decoded::CSwitch(c) => b.cswitches.push(CSwitchRec { ts, cpu: e.cpu, c }),
        Decoded::ReadyThread(c) => b.readies.push(ReadyRec {
            ts,
            cpu: e.cpu,
            readying_tid: e.tid.unwrap_or(u32::MAX),
            c,
        }),
        Decoded::DiskIo(d) => b.disk.push(DiskRec {
            ts,
            kind: if d.write { DiskOp::Write } else { DiskOp::Read },
            header_tid: e.tid,
            issuing_tid: d.issuing_tid,
            disk: d.disk_number,
            size: d.transfer_size,
            offset: d.byte_offset,
            file_key: d.file_key,
            irp: d.irp,
            priority: d.priority(),
            response_ticks: d.high_res_response_time,
        }),
        Decoded::DiskFlush(d) => b.disk.push(DiskRec {
            ts,
            kind: DiskOp::Flush,
            header_tid: e.tid,
            issuing_tid: d.issuing_tid,
            disk: d.disk_number,
            size: 0,
            offset: 0,
            file_key: 0,
            irp: d.irp,
            priority: 0,
            response_ticks: Some(d.high_res_response_time),
        }),
        Decoded::DiskIoInit(d) => b.disk_inits.push(DiskInitRec {
            ts,
            tid: e.tid.or(d.issuing_tid).unwrap_or(u32::MAX),
            irp: d.irp,
        }),
        Decoded::HardFault(h) => b.hard_faults.push(HardFaultRec { ts, h }),
        Decoded::DpcIsr(d) => b.dpc_isr.push(DpcIsrRec { ts, cpu: e.cpu, d }),
        Decoded::PageFault(f) => b.page_faults.push(PageFaultRec {
            ts,
            tid: e.tid.unwrap_or(u32::MAX),
            f,
        }),
        Decoded::Registry(r) => b.registry.push(RegistryRec {
            ts,
            tid: e.tid.unwrap_or(u32::MAX),
            r,
        }),
        Decoded::VirtualAlloc(v) => b.virtual_allocs.push(VirtualAllocRec {
            ts,
            tid: e.tid.unwrap_or(u32::MAX),
            v,
        }),
        Decoded::Heap(h) => b.heap.push(HeapRec {
            ts,
            pid: e.pid.unwrap_or(u32::MAX),
            tid: e.tid.unwrap_or(u32::MAX),
            e: h,
        }),
        Decoded::Net(n) => {
            b.net.push(NetRec { ts, n });
            // WPA lists them in Generic Events too.
            return Some(Ok(false));
        }
        Decoded::VolumeMapping(v) => {
            b.path_maps.push(PathMapRec::Volume {
                nt: v.nt_path,
                dos: v.dos_path,
            });
            return Some(Ok(false));
        }
        Decoded::SystemPaths(p) => {
            b.path_maps
                .push(PathMapRec::WindowsDirectory(p.windows_directory));
            return Some(Ok(false));
        }
        d @ (Decoded::FileIoName(_)
        | Decoded::FileIoCreate(_)
        | Decoded::FileIoSimpleOp(_)
        | Decoded::FileIoReadWrite(_)
        | Decoded::FileIoInfo(_)
        | Decoded::FileIoDirEnum(_)
        | Decoded::FileIoOpEnd(_)
        | Decoded::FileIoPathOp(_)) => super::fileio::collect_file_event(e, d, b, frames),
        _ => return Some(Ok(false)),
    }
    Some(Ok(true))
}

fn process_rec(ts: i64, p: decode::Process) -> ProcessRec {
    ProcessRec {
        ts,
        kind: match p.kind {
            ProcessKind::Start => Lifetime::Start,
            ProcessKind::End => Lifetime::End,
            ProcessKind::DcStart => Lifetime::DcStart,
            ProcessKind::DcEnd => Lifetime::DcEnd,
            ProcessKind::Defunct => Lifetime::Defunct,
        },
        pid: p.pid,
        parent_pid: p.parent_pid,
        session: p.session_id,
        exit_status: p.exit_status,
        unique_key: p.unique_process_key,
        name: p.image_file_name,
        command_line: p.command_line,
    }
}

fn thread_rec(ts: i64, t: decode::Thread) -> ThreadRec {
    ThreadRec {
        ts,
        kind: match t.kind {
            ThreadKind::Start => Lifetime::Start,
            ThreadKind::End => Lifetime::End,
            ThreadKind::DcStart => Lifetime::DcStart,
            ThreadKind::DcEnd => Lifetime::DcEnd,
        },
        pid: t.pid,
        tid: t.tid,
        start_address: t.win32_start_address,
        name: t.name,
    }
}

fn image_rec(ts: i64, i: decode::Image) -> ImageRec {
    ImageRec {
        ts,
        kind: match i.kind {
            ImageKind::Load => Lifetime::Start,
            ImageKind::Unload => Lifetime::End,
            ImageKind::DcStart => Lifetime::DcStart,
            ImageKind::DcEnd => Lifetime::DcEnd,
        },
        pid: i.pid,
        base: i.image_base,
        size: i.image_size,
        checksum: i.checksum,
        timestamp: i.time_date_stamp,
        path: i.file_name,
    }
}
