//! The parallel pass: turn one buffer's events into records.

use super::records::*;
use etl::le::{cstr_at, guid_at, ptr_at, u32_at, u64_at, utf16z_at};
use etl::{BufferData, Diagnostic, Event, Guid};

pub const KERNEL_TRACE_CONTROL: Guid = Guid::from_u128(0xb3e675d7_2554_4f18_830b_2762732560de);

pub fn collect_buffer(buf: Result<BufferData<'_>, Diagnostic>) -> Batch {
    let mut b = Batch::default();
    let buf = match buf {
        Ok(buf) => buf,
        Err(d) => {
            b.diagnostics.push(d);
            b.failed_buffers = 1;
            return b;
        }
    };
    let mut frames = Vec::new();
    for ev in buf.events() {
        match ev {
            Ok(e) => {
                b.events += 1;
                b.max_ts = b.max_ts.max(Some(e.timestamp));
                if let Err(msg) = collect_event(&e, &mut b, &mut frames) {
                    if b.diagnostics.len() < 100 {
                        b.diagnostics.push(Diagnostic {
                            offset: buf.info.offset + 0x48 + e.offset_in_buffer as u64,
                            message: msg,
                        });
                    }
                }
            }
            Err(w) => {
                b.diagnostics.push(Diagnostic {
                    offset: buf.info.offset + 0x48 + w.offset as u64,
                    message: w.message,
                });
                break;
            }
        }
    }
    b
}

fn short(what: &str) -> String {
    format!("{what} payload too short")
}

fn collect_event(e: &Event<'_>, b: &mut Batch, frames: &mut Vec<u64>) -> Result<(), String> {
    let p = e.payload;
    let ps = e.pointer_size;
    let w = ps as usize;
    if let Some(hook) = e.hook_id {
        match hook {
            0x0301..=0x0304 | 0x0327 => {
                if let Some(r) = process(e) {
                    b.processes.push(r);
                } else if e.version >= 3 {
                    return Err(short("process"));
                }
            }
            0x0501..=0x0504 => {
                let kind = lifetime(hook as u8);
                let (Some(pid), Some(tid)) = (u32_at(p, 0), u32_at(p, 4)) else {
                    return Err(short("thread"));
                };
                let name_off = 44 + 7 * (w - 4);
                let name = if p.len() > name_off + 1 && e.version >= 4 {
                    utf16z_at(p, name_off).map(|x| x.0)
                } else {
                    None
                };
                b.threads.push(ThreadRec {
                    ts: e.timestamp,
                    kind,
                    pid,
                    tid,
                    start_address: ptr_at(p, 8 + 5 * w, ps).unwrap_or(0),
                    name,
                });
            }
            0x0548 => {
                if let (Some(pid), Some(tid), Some((name, _))) =
                    (u32_at(p, 0), u32_at(p, 4), utf16z_at(p, 8))
                {
                    b.threads.push(ThreadRec {
                        ts: e.timestamp,
                        kind: Lifetime::DcStart,
                        pid,
                        tid,
                        start_address: 0,
                        name: Some(name),
                    });
                }
            }
            0x030A | 0x140A | 0x1402 | 0x1403 | 0x1404 => {
                let kind = match hook {
                    0x1402 => Lifetime::End,
                    0x1403 => Lifetime::DcStart,
                    0x1404 => Lifetime::DcEnd,
                    _ => Lifetime::Start,
                };
                let (Some(base), Some(size), Some(pid)) =
                    (ptr_at(p, 0, ps), ptr_at(p, w, ps), u32_at(p, 2 * w))
                else {
                    return Err(short("image"));
                };
                b.images.push(ImageRec {
                    ts: e.timestamp,
                    kind,
                    pid,
                    base,
                    size,
                    checksum: u32_at(p, 2 * w + 4).unwrap_or(0),
                    timestamp: u32_at(p, 2 * w + 8).unwrap_or(0),
                    path: utf16z_at(p, 44 + 3 * (w - 4))
                        .map(|x| x.0)
                        .unwrap_or_default(),
                });
            }
            0x0F2E => {
                let (Some(ip), Some(tid)) = (ptr_at(p, 0, ps), u32_at(p, w)) else {
                    return Err(short("SampledProfile"));
                };
                b.samples.push(SampleRec {
                    ts: e.timestamp,
                    tid,
                    cpu: e.cpu,
                    ip,
                });
            }
            0x0F48..=0x0F4A => {
                if let (Some(0), Some(interval)) = (u32_at(p, 0), u32_at(p, 4)) {
                    b.intervals.push(IntervalRec {
                        ts: e.timestamp,
                        interval,
                    });
                }
            }
            0x1820 => {
                let (Some(event_ts), Some(pid), Some(tid)) =
                    (u64_at(p, 0), u32_at(p, 8), u32_at(p, 12))
                else {
                    return Err(short("StackWalk"));
                };
                read_frames(p.get(16..).unwrap_or(&[]), w, frames);
                let fragment = b.fragments.intern(frames);
                b.inline_stacks.push(InlineStackRec {
                    event_ts: event_ts as i64,
                    pid,
                    tid,
                    fragment,
                });
            }
            0x1823 | 0x1824 => {
                let Some(key) = ptr_at(p, 0, ps) else {
                    return Err(short("stack key definition"));
                };
                read_frames(p.get(w..).unwrap_or(&[]), w, frames);
                let fragment = b.fragments.intern(frames);
                b.key_defs.push(StackKeyDefRec {
                    ts: e.timestamp,
                    key,
                    fragment,
                });
            }
            0x1825 | 0x1826 => {
                let (Some(event_ts), Some(pid), Some(tid), Some(key)) =
                    (u64_at(p, 0), u32_at(p, 8), u32_at(p, 12), ptr_at(p, 16, ps))
                else {
                    return Err(short("stack key reference"));
                };
                b.key_refs.push(StackKeyRefRec {
                    ts: e.timestamp,
                    event_ts: event_ts as i64,
                    pid,
                    tid,
                    key,
                    user: hook == 0x1826,
                });
            }
            _ => {}
        }
        return Ok(());
    }
    if e.provider == Some(KERNEL_TRACE_CONTROL) {
        let pid = e.pid.unwrap_or(0);
        match e.opcode {
            0 => {
                let (Some(base), Some(size)) = (ptr_at(p, 0, ps), ptr_at(p, w, ps)) else {
                    return Err(short("ImageID"));
                };
                b.image_info.push(ImageInfoRec::Id {
                    ts: e.timestamp,
                    pid: u32_at(p, 2 * w).unwrap_or(pid),
                    base,
                    size,
                    original_file_name: utf16z_at(p, 2 * w + 8).map(|x| x.0).unwrap_or_default(),
                });
            }
            36 => {
                let (Some(base), Some(guid), Some(age)) =
                    (ptr_at(p, 0, ps), guid_at(p, w + 4), u32_at(p, w + 20))
                else {
                    return Err(short("DbgID_RSDS"));
                };
                b.image_info.push(ImageInfoRec::Rsds {
                    ts: e.timestamp,
                    pid: u32_at(p, w).unwrap_or(pid),
                    base,
                    guid,
                    age,
                    pdb: cstr_at(p, w + 24).map(|x| x.0).unwrap_or_default(),
                });
            }
            64 => {
                let (Some(size), Some(timestamp)) = (u32_at(p, 0), u32_at(p, 4)) else {
                    return Err(short("FileVersion"));
                };
                let mut off = 8;
                let mut s = Vec::with_capacity(10);
                for _ in 0..10 {
                    let (v, n) = utf16z_at(p, off).unwrap_or_default();
                    off += n;
                    s.push(v);
                }
                let mut it = s.into_iter();
                let mut next = || it.next().unwrap_or_default();
                let original_file_name = next();
                let file_description = next();
                let file_version = next();
                let _bin_file_version = next();
                let _ver_language = next();
                let product_name = next();
                let company_name = next();
                let product_version = next();
                b.image_info.push(ImageInfoRec::FileVersion {
                    ts: e.timestamp,
                    size: size as u64,
                    timestamp,
                    fields: Box::new(FileVersionFields {
                        original_file_name,
                        file_description,
                        file_version,
                        product_name,
                        company_name,
                        product_version,
                    }),
                });
            }
            _ => {}
        }
    }
    Ok(())
}

fn lifetime(opcode: u8) -> Lifetime {
    match opcode {
        1 => Lifetime::Start,
        2 => Lifetime::End,
        3 => Lifetime::DcStart,
        4 => Lifetime::DcEnd,
        _ => Lifetime::Defunct,
    }
}

fn read_frames(data: &[u8], width: usize, out: &mut Vec<u64>) {
    out.clear();
    let ps = width as u8;
    out.extend((0..data.len() / width).filter_map(|i| ptr_at(data, i * width, ps)));
}

/// Process start/end/rundown/defunct, versions 3 and 4 (SIDs skipped).
fn process(e: &Event<'_>) -> Option<ProcessRec> {
    let p = e.payload;
    let ps = e.pointer_size;
    let w = ps as usize;
    if e.version < 3 {
        return None;
    }
    let unique_key = ptr_at(p, 0, ps)?;
    let pid = u32_at(p, w)?;
    let parent_pid = u32_at(p, w + 4)?;
    let session = u32_at(p, w + 8)?;
    let exit_status = u32_at(p, w + 12)? as i32;
    let sid = if e.version >= 4 {
        2 * w + 20
    } else {
        2 * w + 16
    };
    let sid_len = if u32_at(p, sid)? == 0 {
        4
    } else {
        let n = *p.get(sid + 2 * w + 1)? as usize;
        2 * w + 8 + 4 * n
    };
    let (name, n) = cstr_at(p, sid + sid_len)?;
    let (command_line, _) = utf16z_at(p, sid + sid_len + n).unwrap_or_default();
    Some(ProcessRec {
        ts: e.timestamp,
        kind: lifetime(e.opcode),
        pid,
        parent_pid,
        session,
        exit_status,
        unique_key,
        name,
        command_line,
    })
}
