//! The `tables` section of `etlscope info`: which of the memory, registry,
//! network, DPC/ISR, power tables the trace can fill, from the census's event counts
//! (kernel hook ids, and classic kernel-class events mapped to them), and
//! for each it cannot, what the recording lacked.

use etl::census::Census;
use etl::decode::{kernel_classes, tcpip};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// (table, which hook ids fill it, what to record when none do).
type Rule = (&'static str, fn(u16) -> bool, &'static str);

const RULES: &[Rule] = &[
    (
        "hard-faults",
        |h| h == 0x0220,
        "no HardFault events (0x0220): the kernel session's HARD_FAULTS flag was off",
    ),
    (
        "network",
        etl::decode::tcpip::is_net_hook,
        "no TcpIp/UdpIp events (groups 0x06, 0x08) nor Microsoft-Windows-Kernel-Network ones: the kernel session's NETWORKTRACE flag was off",
    ),
    (
        "page-faults",
        |h| (0x020A..=0x020F).contains(&h),
        "no soft page fault events (0x020A-0x020F): the kernel session's ALL_FAULTS (MEMORY_PAGE_FAULTS) flag was off",
    ),
    (
        "registry",
        |h| matches!(h, 0x090A..=0x0915 | 0x091A | 0x091B),
        "no registry operations (0x090A-0x091B): the kernel session's REGISTRY flag was off",
    ),
    (
        "virtual-alloc",
        |h| h == 0x0262 || h == 0x0263,
        "no VirtualAlloc/VirtualFree events (0x0262, 0x0263): the kernel session's VIRT_ALLOC flag was off",
    ),
    (
        "heap",
        etl::decode::heap::is_heap_hook,
        "no heap Alloc/ReAlloc/Free/Destroy events (0x1021-0x1024): no heap-tracing session ran for a traced process",
    ),
    (
        "marks",
        |h| h == 0x0F22 || h == 0x0F24,
        "no Mark events (0x0F22, 0x0F24): nobody ran `xperf -m` or `wpr -marker` while recording",
    ),
    (
        "dpc-isr",
        etl::decode::dpc_isr::is_dpc_isr_hook,
        "no DPC/ISR events (0x0F32, 0x0F42-0x0F45): the kernel session's DPC and INTERRUPT flags were off",
    ),
    (
        "cpu-idle-states",
        |h| h == 0x0524,
        "no context switches (0x0524), whose PreviousCState names the idle periods' C-state: the kernel session's CSWITCH flag was off",
    ),
];

/// Events per hook id: system-header events, classic events of a kernel
/// event class and Microsoft-Windows-Kernel-Network events by the hook id
/// they would have (they fill the same tables).
fn hook_counts(c: &Census) -> BTreeMap<u16, u64> {
    let mut out = c.kernel_hooks.clone();
    for (&(g, id), &n) in &c.provider_ids {
        let hook = if g == tcpip::KERNEL_NETWORK {
            tcpip::kernel_network_hook(id)
        } else {
            u8::try_from(id)
                .ok()
                .and_then(|op| kernel_classes::hook_of(g, op))
        };
        if let Some(h) = hook {
            *out.entry(h).or_default() += n;
        }
    }
    out
}

/// `{table: {"events": n, "why_not": null | text}}`.
pub fn tables_json(c: &Census) -> Value {
    let hooks = hook_counts(c);
    let mut out = Map::new();
    for &(table, takes, why) in RULES {
        let n: u64 = hooks
            .iter()
            .filter(|(&h, _)| takes(h))
            .map(|(_, &n)| n)
            .sum();
        let why_not = if n > 0 { Value::Null } else { json!(why) };
        out.insert(table.into(), json!({"events": n, "why_not": why_not}));
    }
    // Processor Frequency reads a manifest provider's event, not a hook.
    let power = model::power::KERNEL_PROCESSOR_POWER;
    let n: u64 = (c.provider_ids.iter())
        .filter(|(&(g, id), _)| g == power && id == model::power::PERF_STATE_CHANGE)
        .map(|(_, &n)| n)
        .sum();
    let why_not = (n == 0).then_some(
        "no ProcessorPerfStateChange events (Microsoft-Windows-Kernel-Processor-Power, id 10): that provider was not enabled",
    );
    out.insert(
        "processor-frequency".into(),
        json!({"events": n, "why_not": why_not}),
    );
    let win32k = |want: u16| -> u64 {
        (c.provider_ids.iter())
            .filter(|(&(g, id), _)| model::win32k::WIN32K.contains(&g) && id == want)
            .map(|(_, &n)| n)
            .sum()
    };
    for (table, id, why) in [
        ("window-in-focus", model::win32k::FOCUS_CHANGE, "no FocusChange events (Microsoft-Windows-Win32k, id 2, keyword Focus): that provider was not enabled"),
        ("ui-delays", model::win32k::MESSAGE_CHECK_DELAY, "no MessageCheckDelay events (Microsoft-Windows-Win32k, id 38, keyword UIUnresponsiveness): that provider was not enabled"),
    ] {
        let n = win32k(id);
        let why_not = (n == 0).then_some(why);
        out.insert(table.into(), json!({"events": n, "why_not": why_not}));
    }
    let dxgkrnl = |want: u16| -> u64 {
        (c.provider_ids.iter())
            .filter(|(&(g, id), _)| g == model::gpu::DXGKRNL && id == want)
            .map(|(_, &n)| n)
            .sum()
    };
    for (table, id, why) in [
        ("gpu-utilization", model::gpu::DMA_PACKET_INFO, "no DmaPacket Info events (Microsoft-Windows-DxgKrnl, id 177, keyword Base): that provider was not enabled (WPR's GPU profile records it)"),
        ("frame-times", model::gpu::PRESENT, "no Present events (Microsoft-Windows-DxgKrnl, id 184, keyword Base): that provider was not enabled (WPR's GPU profile records it)"),
    ] {
        let n = dxgkrnl(id);
        let why_not = (n == 0).then_some(why);
        out.insert(table.into(), json!({"events": n, "why_not": why_not}));
    }
    Value::Object(out)
}

pub fn print_tables(out: &mut String, v: &Value) {
    let Some(m) = v.as_object() else { return };
    say!(out, "  tables:");
    for (table, t) in m {
        match t["why_not"].as_str() {
            None => say!(out, "    {table:<18} {} events", t["events"]),
            Some(why) => say!(out, "    {table:<18} empty: {why}"),
        }
    }
}
