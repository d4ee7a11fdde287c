//! `etlscope record`: a kernel session with the events of WPR's CPU profile
//! plus user providers, written to an .etl as it records, then the image
//! identities xperf's merge would add (crate `pe`). Windows only: the ETW
//! calls live in `record_windows.rs`; what is decided here (flags, stacks,
//! providers, NT-to-DOS paths) is plain code, tested on every platform.

// Only `run` differs by platform; the rest is used by the Windows side and
// the tests.
#![cfg_attr(not(windows), allow(dead_code))]

use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
pub struct RecordArgs {
    /// The .etl to write (the user providers' events go to NAME.user.etl,
    /// which `etlscope open NAME.etl` reads with it).
    pub output: PathBuf,
    /// CPU sampling interval in milliseconds (0.125 to 1000).
    #[arg(long, default_value_t = 1.0)]
    pub interval_ms: f64,
    /// Stop after this many seconds (default: at Ctrl+C).
    #[arg(long)]
    pub seconds: Option<f64>,
    /// User provider to add, by name or GUID, optionally `:KEYWORDS:LEVEL`
    /// in hex / decimal (repeatable).
    #[arg(long = "provider", value_name = "NAME|GUID[:KEYWORDS[:LEVEL]]")]
    pub providers: Vec<String>,
    /// Leave out the CLR runtime and rundown providers (.NET symbols).
    #[arg(long)]
    pub no_clr: bool,
    /// A kernel event group to leave out (repeatable).
    #[arg(long = "no", value_name = "GROUP", value_parser = KERNEL_GROUPS.map(|g| g.name))]
    pub without: Vec<String>,
    /// No stack walks at all.
    #[arg(long)]
    pub no_stacks: bool,
    /// Skip reading the loaded images' PDB and version identities at the end.
    #[arg(long)]
    pub no_image_identities: bool,
    /// Watch the recording in the browser while it runs (the live view on
    /// http://127.0.0.1:8717/); once it stops the trace stays in the library.
    #[arg(long)]
    pub serve: bool,
}

/// One switchable group of kernel events.
pub struct KernelGroup {
    pub name: &'static str,
    /// EVENT_TRACE_FLAG_* bits.
    pub flags: u32,
    /// (event class GUID, opcode) of the events that get a stack walk.
    pub stacks: &'static [(u128, u8)],
}

/// PerfInfo and Thread event classes of the kernel logger.
const PERFINFO: u128 = 0xce1dbfb4_137e_4da6_87b0_3f59aa102cbc;
const THREAD: u128 = 0x3d6fa8d1_fe05_11d0_9dda_00c04fd7ba7c;

/// WPR's CPU profile, as switchable groups (flag values of evntrace.h).
pub const KERNEL_GROUPS: [KernelGroup; 8] = [
    KernelGroup {
        name: "proc-thread",
        flags: 0x0000_0001 | 0x0000_0002, // PROCESS | THREAD
        stacks: &[],
    },
    KernelGroup {
        name: "loader",
        flags: 0x0000_0004, // IMAGE_LOAD
        stacks: &[],
    },
    KernelGroup {
        name: "profile",
        flags: 0x0100_0000,        // PROFILE
        stacks: &[(PERFINFO, 46)], // SampledProfile
    },
    KernelGroup {
        name: "cswitch",
        flags: 0x0000_0010,      // CSWITCH
        stacks: &[(THREAD, 36)], // CSwitch
    },
    KernelGroup {
        name: "readythread",
        flags: 0x0000_0800,      // DISPATCHER
        stacks: &[(THREAD, 50)], // ReadyThread
    },
    KernelGroup {
        name: "disk-io",
        flags: 0x0000_0100 | 0x0000_0200 | 0x0000_0400, // DISK_IO | DISK_FILE_IO | DISK_IO_INIT
        stacks: &[],
    },
    KernelGroup {
        name: "file-io",
        flags: 0x0400_0000, // FILE_IO_INIT
        stacks: &[],
    },
    KernelGroup {
        name: "hard-faults",
        flags: 0x0000_2000, // MEMORY_HARD_FAULTS
        stacks: &[],
    },
];

/// The kernel flags and stack-walked events the arguments ask for.
pub fn kernel_plan(args: &RecordArgs) -> (u32, Vec<(u128, u8)>) {
    let on = KERNEL_GROUPS
        .iter()
        .filter(|g| !args.without.iter().any(|w| w == g.name));
    let mut flags = 0;
    let mut stacks = Vec::new();
    for g in on {
        flags |= g.flags;
        if !args.no_stacks {
            stacks.extend_from_slice(g.stacks);
        }
    }
    (flags, stacks)
}

/// A user provider to enable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserProvider {
    /// A GUID in registry form, or a registered provider name.
    pub id: String,
    pub keywords: u64,
    pub level: u8,
}

/// Microsoft-Windows-DotNETRuntime: Loader | Jit | NGen | Stack keywords, so
/// JIT-compiled frames get names.
const CLR_RUNTIME: (&str, u64) = ("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", 0x4000_0098);
/// Microsoft-Windows-DotNETRuntimeRundown: Loader | Jit | NGen rundown and
/// end enumeration: the methods compiled before the session began.
const CLR_RUNDOWN: (&str, u64) = ("a669021c-c450-4609-a035-5af59af4df18", 0x0000_0138);

fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// `NAME[:KEYWORDS[:LEVEL]]`; keywords default to all, level to verbose (5).
pub fn parse_provider(spec: &str) -> anyhow::Result<UserProvider> {
    let mut parts = spec.split(':');
    let id = parts.next().unwrap_or_default().trim().to_string();
    if id.is_empty() {
        anyhow::bail!("empty provider in {spec:?}");
    }
    let keywords = match parts.next() {
        Some(k) => number(k).ok_or_else(|| anyhow::anyhow!("bad keywords {k:?} in {spec:?}"))?,
        None => u64::MAX,
    };
    let level = match parts.next() {
        Some(l) => number(l)
            .and_then(|v| u8::try_from(v).ok())
            .ok_or_else(|| anyhow::anyhow!("bad level {l:?} in {spec:?}"))?,
        None => 5,
    };
    if parts.next().is_some() {
        anyhow::bail!("provider {spec:?} has more than NAME:KEYWORDS:LEVEL");
    }
    Ok(UserProvider {
        id,
        keywords,
        level,
    })
}

/// The user providers: CLR ones unless `--no-clr`, then `--provider`s.
pub fn user_providers(args: &RecordArgs) -> anyhow::Result<Vec<UserProvider>> {
    let mut out = Vec::new();
    if !args.no_clr {
        for (id, keywords) in [CLR_RUNTIME, CLR_RUNDOWN] {
            out.push(UserProvider {
                id: id.to_string(),
                keywords,
                level: 5,
            });
        }
    }
    for p in &args.providers {
        out.push(parse_provider(p)?);
    }
    Ok(out)
}

/// The sampling interval in 100-ns units, as TRACE_PROFILE_INTERVAL wants.
pub fn interval_100ns(ms: f64) -> anyhow::Result<u32> {
    if !(0.125..=1000.0).contains(&ms) {
        anyhow::bail!("--interval-ms {ms} is outside 0.125..=1000");
    }
    Ok((ms * 10_000.0).round() as u32)
}

/// The DOS path of an image path as the kernel records it, given the
/// drive devices (`("C:", r"\Device\HarddiskVolume3")`) and %SystemRoot%.
pub fn dos_path(nt: &str, drives: &[(String, String)], system_root: &str) -> Option<String> {
    let lower = nt.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix(r"\systemroot\") {
        let tail = nt.get(nt.len() - rest.len()..)?;
        return Some(format!("{}\\{tail}", system_root.trim_end_matches('\\')));
    }
    if let Some(rest) = nt.strip_prefix(r"\??\") {
        return Some(rest.to_string());
    }
    for (drive, device) in drives {
        let dev = device.to_ascii_lowercase();
        if lower.starts_with(&dev) && lower.as_bytes().get(dev.len()) == Some(&b'\\') {
            return Some(format!("{drive}{}", nt.get(dev.len()..)?));
        }
    }
    // Already a DOS path (as some rundowns write).
    (nt.as_bytes().get(1) == Some(&b':')).then(|| nt.to_string())
}

#[cfg(not(windows))]
pub fn run(_args: RecordArgs) -> anyhow::Result<()> {
    anyhow::bail!(
        "recording needs Windows: `etlscope record` starts an ETW kernel session, \
         which only Windows has (record there, then open the .etl anywhere)"
    )
}

#[cfg(windows)]
pub fn run(args: RecordArgs) -> anyhow::Result<()> {
    super::record_windows::run(args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        a: RecordArgs,
    }

    fn args(v: &[&str]) -> RecordArgs {
        let mut all = vec!["etlscope", "out.etl"];
        all.extend_from_slice(v);
        Cli::parse_from(all).a
    }

    #[test]
    fn default_plan_is_wprs_cpu_profile() {
        let (flags, stacks) = kernel_plan(&args(&[]));
        // evntrace.h: PROCESS 0x1, THREAD 0x2, IMAGE_LOAD 0x4, CSWITCH 0x10,
        // DISK_IO 0x100, DISK_FILE_IO 0x200, DISK_IO_INIT 0x400,
        // DISPATCHER 0x800, MEMORY_HARD_FAULTS 0x2000, PROFILE 0x01000000,
        // FILE_IO_INIT 0x04000000.
        assert_eq!(flags, 0x0500_2F17);
        assert_eq!(stacks, vec![(PERFINFO, 46), (THREAD, 36), (THREAD, 50)]);
        let p = user_providers(&args(&[])).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(interval_100ns(args(&[]).interval_ms).unwrap(), 10_000);
    }

    #[test]
    fn groups_and_stacks_switch_off() {
        let (flags, stacks) = kernel_plan(&args(&["--no", "profile", "--no", "disk-io"]));
        assert_eq!(flags, 0x0500_2F17 & !0x0100_0000 & !0x700);
        assert_eq!(stacks, vec![(THREAD, 36), (THREAD, 50)]);
        let (_, stacks) = kernel_plan(&args(&["--no-stacks"]));
        assert!(stacks.is_empty());
    }

    #[test]
    fn providers_parse() {
        let p = parse_provider("Microsoft-Windows-Kernel-Power:0x10:4").unwrap();
        assert_eq!(
            (p.id.as_str(), p.keywords, p.level),
            ("Microsoft-Windows-Kernel-Power", 16, 4)
        );
        let p = parse_provider("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4").unwrap();
        assert_eq!((p.keywords, p.level), (u64::MAX, 5));
        assert!(parse_provider("x:zz").is_err());
        assert!(parse_provider("x:1:300").is_err());
        let a = args(&["--no-clr", "--provider", "A:0x1"]);
        assert_eq!(user_providers(&a).unwrap().len(), 1);
        assert!(interval_100ns(0.1).is_err());
        assert_eq!(interval_100ns(0.125).unwrap(), 1250);
    }

    #[test]
    fn nt_paths_map_to_dos() {
        let drives = vec![
            ("C:".to_string(), r"\Device\HarddiskVolume3".to_string()),
            ("D:".to_string(), r"\Device\HarddiskVolume30".to_string()),
        ];
        let m = |p| dos_path(p, &drives, r"C:\Windows");
        assert_eq!(
            m(r"\Device\HarddiskVolume3\Windows\System32\ntdll.dll").as_deref(),
            Some(r"C:\Windows\System32\ntdll.dll")
        );
        assert_eq!(
            m(r"\Device\HarddiskVolume30\x.dll").as_deref(),
            Some(r"D:\x.dll")
        );
        assert_eq!(
            m(r"\SystemRoot\system32\ntoskrnl.exe").as_deref(),
            Some(r"C:\Windows\system32\ntoskrnl.exe")
        );
        assert_eq!(m(r"\??\C:\a.sys").as_deref(), Some(r"C:\a.sys"));
        assert_eq!(m(r"\Device\Mup\server\x.dll"), None);
    }
}
