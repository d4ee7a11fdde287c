//! Managed frames of perfview-net452-x64.etl's samples as the independent
//! reference names them: printed by
//!     python3 tests/reference/managed_frames.py ../shared/traces/perfview-net452-x64.etl
//! (stdlib Python decoding the CLR method and module events itself, on top of
//! model_reference.py's lifetimes, images and stack join) and copied
//! literally; `reference_script.rs` checks they still are its output.

#![allow(dead_code)]

/// Module events (ModuleLoad / ModuleDCEnd) naming a file, by (process, ModuleID).
pub const CLR_MODULES: u64 = 29;
/// Method events with code (size > 0).
pub const CLR_METHODS_WITH_CODE: u64 = 16992;
/// Frames over all samples that lie in a CLR method's code.
pub const MANAGED_FRAMES_OVER_ALL_SAMPLES: u64 = 30033;
/// Of those, frames whose label carries a module (`module!...`).
pub const MANAGED_FRAMES_WITH_MODULE_OVER_ALL_SAMPLES: u64 = 30033;
/// Distinct managed frames (process, address) in the samples' stacks.
pub const DISTINCT_MANAGED_FRAMES: u64 = 1070;
pub const DISTINCT_MANAGED_FRAMES_WITH_MODULE: u64 = 1070;
/// Addresses two methods of different names cover (none: lookups are unambiguous).
pub const AMBIGUOUS_ADDRESSES: u64 = 0;
pub const DISTINCT_LABELS: u64 = 438;
/// The most frequent labels over all samples' frames, with their counts.
pub const TOP_LABELS: &[(&str, u64)] = &[
    ("Test.x64.exe!Test.Program::Main", 4935),
    ("mscorlib.dll!System.DateTime::get_Now", 4707),
    (
        "mscorlib.dll!System.TimeZoneInfo::GetDateTimeNowUtcOffsetFromUtc",
        4486,
    ),
    (
        "mscorlib.dll!System.TimeZoneInfo::GetIsDaylightSavingsFromUtc",
        3987,
    ),
    (
        "mscorlib.dll!System.TimeZoneInfo::TransitionTimeToDateTime",
        1959,
    ),
    ("mscorlib.dll!System.DateTime::GetDatePart", 1866),
    ("mscorlib.dll!System.TimeZoneInfo::CheckIsDst", 1005),
    ("mscorlib.dll!System.DateTime::.ctor", 578),
    ("mscorlib.dll!System.DateTime::get_DayOfWeek", 473),
    ("mscorlib.dll!System.DateTime::DateToTicks", 401),
    ("mscorlib.dll!System.DateTime::op_Subtraction", 197),
    ("mscorlib.dll!System.Threading.ExecutionContext::Run", 191),
];
/// Sum mod 2^64 of count * FNV-1a-64(label) over every label.
pub const LABEL_DIGEST: u64 = 0x70f49a4f2a37f082;
/// Managed frames over all samples per module name (`""`: no module).
pub const FRAMES_PER_MODULE: &[(&str, u64)] = &[
    ("Microsoft.Diagnostics.Tracing.TraceEvent.dll", 86),
    ("OSExtensions.dll", 10),
    ("PerfView.exe", 519),
    ("PresentationCore.dll", 847),
    ("PresentationFramework.dll", 696),
    ("System.dll", 1),
    ("Test.x64.exe", 4935),
    ("WindowsBase.dll", 1488),
    ("mscorlib.dll", 21451),
];
