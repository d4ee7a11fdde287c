//! Well-known provider GUIDs and their names, for the providers seen in the
//! real traces (names from PerfView's parsers and the recorder's own log of
//! enabled providers in `perfview-net452-x64.etl`).

use crate::Guid;

pub const KERNEL_TRACE_CONTROL: Guid = Guid::from_u128(0xb3e675d7_2554_4f18_830b_2762732560de);
pub const KERNEL_TRACE_CONTROL_METADATA: Guid =
    Guid::from_u128(0xbbccf6c1_6cd1_48c4_80ff_839482e37671);
/// Kernel "SysConfig" rundown (volume mapping, system paths), classic header.
pub const SYSCONFIG: Guid = Guid::from_u128(0x9b79ee91_b5fd_41c0_a243_4248e266e9d0);
pub const WINSAT: Guid = Guid::from_u128(0xed54dff8_c409_4cf6_bf83_05e1e61a09c4);
pub const KERNEL_FILE: Guid = Guid::from_u128(0xedd08927_9cc4_4e65_b970_c2560fb5c289);
pub const KERNEL_PROCESS: Guid = Guid::from_u128(0x22fb2cd6_0e7b_422b_a0c7_2fad1fd0e716);
pub const KERNEL_EVENT_TRACING: Guid = Guid::from_u128(0xb675ec37_bdb6_4648_bc92_f3fdc74d3ca2);
pub const DNS_CLIENT: Guid = Guid::from_u128(0x1c95126e_7eea_49a9_a3fe_a378b03ddb4d);
pub const CLR_RUNTIME: Guid = Guid::from_u128(0xe13c0d23_ccbc_4e12_931b_d9cc2eee27e4);
pub const CLR_RUNDOWN: Guid = Guid::from_u128(0xa669021c_c450_4609_a035_5af59af4df18);
pub const CLR_PRIVATE: Guid = Guid::from_u128(0x763fd754_7086_4dfe_95eb_c01a46faf4ca);
pub const TPL_EVENT_SOURCE: Guid = Guid::from_u128(0x2e5dba47_a3d2_4d16_8ee0_6671ffdcd7b5);
pub const FRAMEWORK_EVENT_SOURCE: Guid = Guid::from_u128(0x8e9f5090_2d75_4d03_8a81_e5afbf85daf1);
pub const PERFVIEW: Guid = Guid::from_u128(0xa8a71ac1_040f_54a2_07ca_00a89b5ab761);
/// The kernel logger's own provider (classic kernel events with a GUID header).
pub const SYSTEM_TRACE: Guid = Guid::from_u128(0x9e814aad_3204_11d2_9a82_006008a86939);
pub const RT_LOST_EVENT: Guid = Guid::from_u128(0x6a399ae0_4bc6_4de9_870b_3657f8947e7e);

const KNOWN: &[(Guid, &str)] = &[
    (KERNEL_TRACE_CONTROL, "KernelTraceControl"),
    (KERNEL_TRACE_CONTROL_METADATA, "KernelTraceControl-MetaData"),
    (SYSCONFIG, "Windows Kernel/SysConfig"),
    (WINSAT, "WinSat"),
    (KERNEL_FILE, "Microsoft-Windows-Kernel-File"),
    (KERNEL_PROCESS, "Microsoft-Windows-Kernel-Process"),
    (
        KERNEL_EVENT_TRACING,
        "Microsoft-Windows-Kernel-EventTracing",
    ),
    (DNS_CLIENT, "Microsoft-Windows-DNS-Client"),
    (CLR_RUNTIME, "Microsoft-Windows-DotNETRuntime"),
    (CLR_RUNDOWN, "Microsoft-Windows-DotNETRuntimeRundown"),
    (CLR_PRIVATE, "Microsoft-Windows-DotNETRuntimePrivate"),
    (TPL_EVENT_SOURCE, "System.Threading.Tasks.TplEventSource"),
    (
        FRAMEWORK_EVENT_SOURCE,
        "System.Diagnostics.Eventing.FrameworkEventSource",
    ),
    (PERFVIEW, "PerfView"),
    (SYSTEM_TRACE, "Windows Kernel"),
    (RT_LOST_EVENT, "RT Lost Event"),
];

/// The name of a well-known provider. TraceLogging events name their
/// provider themselves: see `tracelogging::provider_name`.
pub fn provider_name(guid: Guid) -> Option<&'static str> {
    KNOWN.iter().find(|(g, _)| *g == guid).map(|(_, n)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_known_providers() {
        let g = Guid::parse("edd08927-9cc4-4e65-b970-c2560fb5c289").unwrap();
        assert_eq!(provider_name(g), Some("Microsoft-Windows-Kernel-File"));
        assert_eq!(provider_name(Guid::default()), None);
    }
}
