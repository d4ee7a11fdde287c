//! The ETW side of `etlscope record` (Windows only; it cannot run on the
//! Linux machines this project is built and tested on).

use super::record::{dos_path, interval_100ns, kernel_plan, user_providers, RecordArgs};
use anyhow::{bail, Context};
use ferrisetw::provider::kernel_providers::KernelProvider;
use ferrisetw::provider::Provider;
use ferrisetw::trace::{DumpFileLoggingMode, DumpFileParams, LoggingMode, TraceProperties};
use ferrisetw::{KernelTrace, UserTrace, GUID};
use std::path::{Path, PathBuf};
use std::time::Duration;
use windows::core::PCWSTR;
use windows::Win32::Foundation::{
    ERROR_ACCESS_DENIED, ERROR_CALL_NOT_IMPLEMENTED, ERROR_SUCCESS, WIN32_ERROR,
};
use windows::Win32::Storage::FileSystem::QueryDosDeviceW;
use windows::Win32::System::Diagnostics::Etw::{
    ControlTraceW, TraceSampledProfileIntervalInfo, TraceSetInformation, TraceStackTracingInfo,
    CLASSIC_EVENT_ID, CONTROLTRACE_HANDLE, EVENT_TRACE_CONTROL_QUERY, EVENT_TRACE_PROPERTIES,
    TRACE_PROFILE_INTERVAL,
};

const KERNEL_SESSION: &str = "etlscope-record-kernel";
const USER_SESSION: &str = "etlscope-record-user";
/// EVENT_TRACE_FLAG_* bits are the kernel logger's; its GUID is SystemTraceControlGuid.
const SYSTEM_TRACE_CONTROL: u128 = 0x9e814aad_3204_11d2_9a82_006008a86939;

fn wide(s: &str) -> Vec<u16> {
    s.encode_utf16().chain([0]).collect()
}

/// A Win32 error code with the hint that fits it.
fn why(e: WIN32_ERROR) -> String {
    match e {
        ERROR_ACCESS_DENIED => "access denied (run as administrator)".into(),
        // What Wine answers: it has no ETW controller.
        ERROR_CALL_NOT_IMPLEMENTED => "not implemented by this system (Wine?)".into(),
        e => format!("error {}", e.0),
    }
}

fn guid(v: u128) -> GUID {
    GUID::from_u128(v)
}

/// Every event as it arrives (`record --serve`), on ETW's processing threads.
pub type OnEvent = std::sync::Arc<dyn Fn(&ferrisetw::EventRecord) + Send + Sync>;

pub fn run(args: RecordArgs) -> anyhow::Result<()> {
    record(args, None)
}

/// `run`, also handing each event to `on_event` while it records.
pub fn record(args: RecordArgs, on_event: Option<OnEvent>) -> anyhow::Result<()> {
    let (flags, stacks) = kernel_plan(&args);
    let providers = user_providers(&args)?;
    let interval = interval_100ns(args.interval_ms)?;
    // ETW resolves the log file in its own context: give it a full path.
    let output = std::path::absolute(&args.output)?;
    // Not `NAME.kernel*.etl`: a leftover would be read as a companion of NAME.etl.
    let kernel_tmp = with_suffix(&output, "unmerged.etl");
    let user_out = with_suffix(&output, "user.etl");

    set_profile_interval(interval)?;
    // Per-CPU buffers (ferrisetw's default turns them off) keep sampling
    // at 1 ms on many CPUs cheap; 1 MB buffers as WPR's CPU profile uses.
    let props = TraceProperties {
        buffer_size: 1024,
        log_file_mode: LoggingMode::EVENT_TRACE_REAL_TIME_MODE,
        ..TraceProperties::default()
    };
    let dump = |path: &Path| DumpFileParams {
        file_path: path.to_path_buf(),
        file_logging_mode: DumpFileLoggingMode::EVENT_TRACE_FILE_MODE_SEQUENTIAL,
        max_size: None,
    };
    let kernel_provider = KernelProvider::new(guid(SYSTEM_TRACE_CONTROL), flags);
    let kernel = KernelTrace::new()
        .named(KERNEL_SESSION.into())
        .set_trace_properties(props)
        .set_etl_dump_file(dump(&kernel_tmp))
        .enable(with_callback(Provider::kernel(&kernel_provider), &on_event).build())
        .start_and_process()
        .map_err(|e| {
            anyhow::anyhow!("starting the kernel session (run as administrator): {e:?}")
        })?;
    if !stacks.is_empty() {
        set_stack_tracing(KERNEL_SESSION, &stacks)?;
    }
    let user = if providers.is_empty() {
        None
    } else {
        let mut b = UserTrace::new()
            .named(USER_SESSION.into())
            .set_trace_properties(props)
            .set_etl_dump_file(dump(&user_out));
        for p in &providers {
            // etl::Guid prints in registry form: its hex digits are the u128.
            let as_u128 = etl::Guid::parse(&p.id)
                .and_then(|g| u128::from_str_radix(&g.to_string().replace('-', ""), 16).ok());
            let builder = match as_u128 {
                Some(g) => Provider::by_guid(guid(g)),
                None => Provider::by_name(&p.id)
                    .map_err(|e| anyhow::anyhow!("provider {:?}: {e:?}", p.id))?,
            };
            let builder = with_callback(builder.any(p.keywords).level(p.level), &on_event);
            b = b.enable(builder.build());
        }
        Some(
            b.start_and_process()
                .map_err(|e| anyhow::anyhow!("starting the user session: {e:?}"))?,
        )
    };

    eprintln!(
        "recording to {} (Ctrl+C to stop{})",
        output.display(),
        args.seconds
            .map_or(String::new(), |s| format!(", or after {s} s"))
    );
    wait(args.seconds)?;
    if let Some(u) = user {
        u.stop()
            .map_err(|e| anyhow::anyhow!("stopping the user session: {e:?}"))?;
    }
    kernel
        .stop()
        .map_err(|e| anyhow::anyhow!("stopping the kernel session: {e:?}"))?;

    if args.no_image_identities {
        std::fs::rename(&kernel_tmp, &output)?;
    } else {
        merge(&kernel_tmp, &output)?;
        let _ = std::fs::remove_file(&kernel_tmp);
    }
    eprintln!("wrote {}", output.display());
    if !providers.is_empty() {
        // `etlscope open NAME.etl` reads NAME.user.etl with it (companions.rs).
        eprintln!("wrote {} (user providers)", user_out.display());
    }
    Ok(())
}

fn with_callback(
    b: ferrisetw::provider::ProviderBuilder,
    on_event: &Option<OnEvent>,
) -> ferrisetw::provider::ProviderBuilder {
    match on_event {
        Some(f) => {
            let f = f.clone();
            b.add_callback(
                move |r: &ferrisetw::EventRecord, _: &ferrisetw::schema_locator::SchemaLocator| {
                    f(r)
                },
            )
        }
        None => b,
    }
}

fn with_suffix(p: &Path, suffix: &str) -> PathBuf {
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("trace");
    p.with_file_name(format!("{stem}.{suffix}"))
}

/// Ctrl+C, or the time limit.
fn wait(seconds: Option<f64>) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let limit = async {
            match seconds {
                Some(s) => tokio::time::sleep(Duration::from_secs_f64(s.max(0.0))).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            r = tokio::signal::ctrl_c() => r.map_err(anyhow::Error::from),
            _ = limit => Ok(()),
        }
    })
}

/// TraceSampledProfileIntervalInfo: a machine-wide setting, no session needed.
fn set_profile_interval(interval_100ns: u32) -> anyhow::Result<()> {
    let info = TRACE_PROFILE_INTERVAL {
        Source: 0, // the timer
        Interval: interval_100ns,
    };
    // SAFETY: `info` outlives the call; the length is its size.
    let r = unsafe {
        TraceSetInformation(
            CONTROLTRACE_HANDLE { Value: 0 },
            TraceSampledProfileIntervalInfo,
            std::ptr::from_ref(&info).cast(),
            std::mem::size_of::<TRACE_PROFILE_INTERVAL>() as u32,
        )
    };
    if r != ERROR_SUCCESS {
        bail!("setting the sampling interval failed: {}", why(r));
    }
    Ok(())
}

/// TraceStackTracingInfo needs the session's control handle, which
/// ferrisetw keeps to itself: query the session by name for it.
fn set_stack_tracing(session: &str, events: &[(u128, u8)]) -> anyhow::Result<()> {
    // EVENT_TRACE_PROPERTIES followed by room for the two names ETW fills in.
    let size = std::mem::size_of::<EVENT_TRACE_PROPERTIES>() + 2 * 1024 * 2;
    let mut buf = vec![0u64; size.div_ceil(8)];
    let props = buf.as_mut_ptr().cast::<EVENT_TRACE_PROPERTIES>();
    let name = wide(session);
    // SAFETY: `buf` is zeroed, 8-aligned and `size` bytes long; the
    // properties header sits at its start as ControlTraceW expects.
    let handle = unsafe {
        (*props).Wnode.BufferSize = size as u32;
        (*props).LoggerNameOffset = std::mem::size_of::<EVENT_TRACE_PROPERTIES>() as u32;
        let r = ControlTraceW(
            CONTROLTRACE_HANDLE { Value: 0 },
            PCWSTR(name.as_ptr()),
            props,
            EVENT_TRACE_CONTROL_QUERY,
        );
        if r != ERROR_SUCCESS {
            bail!("querying session {session} failed: {}", why(r));
        }
        (*props).Wnode.Anonymous1.HistoricalContext
    };
    let ids: Vec<CLASSIC_EVENT_ID> = events
        .iter()
        .map(|&(g, opcode)| CLASSIC_EVENT_ID {
            EventGuid: guid(g),
            Type: opcode,
            Reserved: [0; 7],
        })
        .collect();
    // SAFETY: `ids` outlives the call; the length is its size in bytes.
    let r = unsafe {
        TraceSetInformation(
            CONTROLTRACE_HANDLE { Value: handle },
            TraceStackTracingInfo,
            ids.as_ptr().cast(),
            std::mem::size_of_val(ids.as_slice()) as u32,
        )
    };
    if r != ERROR_SUCCESS {
        bail!("enabling stack walks failed: {}", why(r));
    }
    Ok(())
}

/// Drive letter -> NT device (`C:` -> `\Device\HarddiskVolume3`).
fn drives() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for letter in b'A'..=b'Z' {
        let drive = format!("{}:", letter as char);
        let name = wide(&drive);
        let mut target = vec![0u16; 1024];
        // SAFETY: `name` is NUL-terminated; `target` is a valid buffer.
        let n = unsafe { QueryDosDeviceW(PCWSTR(name.as_ptr()), Some(&mut target)) } as usize;
        if n == 0 {
            continue;
        }
        let first = target.get(..n).unwrap_or(&[]);
        let end = first.iter().position(|&u| u == 0).unwrap_or(first.len());
        out.push((drive, String::from_utf16_lossy(&first[..end])));
    }
    out
}

/// Add the image identity events (PDB, file version) to the kernel trace.
fn merge(input: &Path, output: &Path) -> anyhow::Result<()> {
    let trace =
        etl::EtlFile::open(input).with_context(|| format!("reading {}", input.display()))?;
    let drives = drives();
    let system_root = std::env::var("SystemRoot").unwrap_or_else(|_| r"C:\Windows".into());
    let out = std::io::BufWriter::new(std::fs::File::create(output)?);
    let (_, summary) = pe::merge_identities(&trace, out, |nt| {
        let path = dos_path(nt, &drives, &system_root)?;
        std::fs::read(path).ok()
    })?;
    eprintln!(
        "image identities: {} of {} image events; {} files not readable",
        summary.identified,
        summary.image_events,
        summary.unreadable.len()
    );
    Ok(())
}
