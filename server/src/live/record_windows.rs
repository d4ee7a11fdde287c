//! `etlscope record --serve` (Windows only, never run here): each event of
//! the recording's ETW sessions, as ferrisetw hands it over, becomes an
//! `etl::Event` pushed into the live path, as a replay's events are. The
//! `.etl` is written as without `--serve`; once the recording stops, its
//! entry in the library names that file (later loads read it, with the
//! image identities added at the end).

use super::{serve_live, Feeder};
use crate::catalog::TraceEntry;
use crate::cli::record::RecordArgs;
use crate::store::{now_rfc3339, Store};
use etl::{Event, HeaderType};
use model::ingest::live::LiveBuilder;
use model::ingest::FileMeta;
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::sync::Arc;
use windows::Win32::System::Diagnostics::Etw::EVENT_RECORD;

/// EVENT_HEADER_FLAG_* (evntcons.h).
const FLAG_CLASSIC_HEADER: u16 = 0x0100;
const FLAG_32_BIT_HEADER: u16 = 0x0020;
/// What the page's banner says of a recording.
const LIVE_LABEL: &str = "Live";
/// 100-ns ticks: real-time sessions stamp events with the system time.
const FILETIME_TICKS: f64 = 1e7;

/// A recording under way: its trace id, its file, and the thread that
/// ends once the recording is written and served as a normal entry.
pub type Recording = (String, PathBuf, std::thread::JoinHandle<()>);

/// Start recording into the live view.
pub fn start(store: Arc<Store>, args: RecordArgs) -> anyhow::Result<Recording> {
    let output = std::path::absolute(&args.output)?;
    let started = now_filetime();
    // No content to hash yet: the id names this file and this start.
    let mut h = Sha256::new();
    h.update(output.to_string_lossy().as_bytes());
    h.update(started.to_le_bytes());
    let id: String = h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let entry = TraceEntry {
        id: id.clone(),
        name,
        size: 0,
        file_name: output.to_string_lossy().into_owned(),
        uploaded_at: now_rfc3339(),
        uploader: "local".into(),
        notes: String::new(),
        status: "live".into(),
        error: String::new(),
        members: Vec::new(),
        redacted_from: String::new(),
    };
    store.catalog.insert(&entry)?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let meta = FileMeta {
        logfile: etl::LogfileHeader {
            start_time: started,
            pointer_size: 8,
            number_of_processors: cpus,
            ..Default::default()
        },
        ts0: started,
        ticks_per_second: FILETIME_TICKS,
        ..FileMeta::default()
    };
    let mut builder = LiveBuilder::new(meta);
    // A recording does not wait for the page: events come when they come.
    let viewed = Arc::new(std::sync::atomic::AtomicBool::new(true));
    super::publish_empty(&store, &id, LIVE_LABEL, &mut builder, &viewed);
    let feeder = Feeder::new(builder, viewed);
    let (sid, path) = (id.clone(), output.clone());
    let thread = std::thread::spawn(move || {
        let catalog_store = store.clone();
        serve_live(store, sid, LIVE_LABEL.into(), feeder, path, move |feeder| {
            let f = feeder.clone();
            let on_event: crate::cli::record_windows::OnEvent =
                Arc::new(move |r: &ferrisetw::EventRecord| push(&f, r));
            if let Err(e) = crate::cli::record_windows::record(args, Some(on_event)) {
                eprintln!("etlscope: recording failed: {e:#}");
            }
            // The entry names the finished file at its final size, so that
            // a later load reads it (a changed size would be refused).
            let size = std::fs::metadata(&entry.file_name).map_or(0, |m| m.len());
            let done = TraceEntry { size, ..entry };
            let c = &catalog_store.catalog;
            if let Err(e) = c.delete(&done.id).and_then(|_| c.insert(&done)) {
                tracing::error!(error = %e, "cannot record the finished recording in the catalog");
            }
        });
    });
    Ok((id, output, thread))
}

fn now_filetime() -> i64 {
    let since_1970 = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    116_444_736_000_000_000 + (since_1970.as_nanos() / 100) as i64
}

/// One ETW event into the live path.
fn push(feeder: &Feeder, r: &ferrisetw::EventRecord) {
    // SAFETY: `EventRecord` is `repr(transparent)` over `EVENT_RECORD`
    // (ferrisetw's documented layout), and the reference lives only for
    // this call, during which ETW keeps the record and its buffers valid.
    let raw: &EVENT_RECORD = unsafe { &*std::ptr::from_ref(r).cast::<EVENT_RECORD>() };
    let h = &raw.EventHeader;
    let d = &h.EventDescriptor;
    let payload: &[u8] = if raw.UserData.is_null() || raw.UserDataLength == 0 {
        &[]
    } else {
        // SAFETY: ETW hands UserDataLength bytes at UserData for this call.
        unsafe {
            std::slice::from_raw_parts(raw.UserData.cast::<u8>(), raw.UserDataLength as usize)
        }
    };
    let bits32 = h.Flags & FLAG_32_BIT_HEADER != 0;
    // Classic kernel events arrive under their event class GUID, decoded
    // by class and opcode as in a file's full headers.
    let header_type = match (h.Flags & FLAG_CLASSIC_HEADER != 0, bits32) {
        (true, true) => HeaderType::Full32,
        (true, false) => HeaderType::Full64,
        (false, true) => HeaderType::EventHeader32,
        (false, false) => HeaderType::EventHeader64,
    };
    // SAFETY: ProcessorIndex is the union's whole 16-bit view.
    let cpu = unsafe { raw.BufferContext.Anonymous.ProcessorIndex };
    let e = Event {
        header_type,
        timestamp: h.TimeStamp,
        cpu,
        pid: Some(h.ProcessId),
        tid: Some(h.ThreadId),
        hook_id: None,
        provider: Some(etl::Guid::from_u128(h.ProviderId.to_u128())),
        event_id: d.Id,
        opcode: d.Opcode,
        version: d.Version as u16,
        level: d.Level,
        channel: d.Channel,
        task: d.Task,
        keyword: d.Keyword,
        flags: h.Flags,
        activity_id: Some(etl::Guid::from_u128(h.ActivityId.to_u128())),
        pointer_size: if bits32 { 4 } else { 8 },
        payload,
        // Extended items (user stacks, TraceLogging schemas) are not
        // carried over: the kernel's stack walks arrive as events.
        extended: &[],
        buffer_index: 0,
        offset_in_buffer: 0,
    };
    feeder.lock().push(&e, 0);
}
