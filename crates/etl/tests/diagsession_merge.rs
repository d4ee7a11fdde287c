//! The four members of `vs-dotnetcore31.diagsession` merged by time, against
//! PerfView's test of the same zip (microsoft/perfview
//! `src/TraceEvent/TraceEvent.Tests/Parsing/MultiFileMergeAll.cs`,
//! ETW_MultiFileMergeAll_Basic): its TraceLog holds 95,506 events, 55 of them
//! `Activity2Stop/Stop`, the last of which has EventIndex 13,205.
//!
//! We read 100,753 events (as dissect.etl does, member by member). The
//! difference is exactly the 5,247 DotNETRuntime MethodILToNativeMap events
//! (id 190): TraceLog reads them for its IL maps and drops them from its
//! event stream (TraceLog.cs SetupCallbacks: `rawEvents.Clr.MethodILToNativeMap
//! += .. bookKeepingEvent = true`). Without them, our merged order puts the
//! last Activity2Stop at the same index as PerfView's, which checks the
//! merge order too, not only the count.

use etl::decode::providers::CLR_RUNTIME;
use etl::{EtlFile, Guid, HeaderType};
use testdata::real_traces_dir;

/// Microsoft-Diagnostics-DiagnosticSource (an EventSource: its GUID is the
/// hash of its name); Activity2Stop is its event 25.
const DIAGNOSTIC_SOURCE: Guid = Guid::from_u128(0xadb401e1_5296_51f8_c125_5fda75826144);

#[test]
fn merged_order_matches_perfviews_tracelog() {
    let Some(dir) = real_traces_dir() else { return };
    let path = dir.join("vs-dotnetcore31.diagsession");
    let file = EtlFile::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut all, mut il_maps, mut kept, mut stops) = (0u64, 0u64, 0u64, 0u64);
    let mut last_stop = None;
    let diags = file.for_each_event_in_order(|e| {
        all += 1;
        let event_header = matches!(
            e.header_type,
            HeaderType::EventHeader32 | HeaderType::EventHeader64
        );
        if event_header && e.provider == Some(CLR_RUNTIME) && e.event_id == 190 {
            il_maps += 1;
            return;
        }
        if event_header && e.provider == Some(DIAGNOSTIC_SOURCE) && e.event_id == 25 {
            stops += 1;
            last_stop = Some(kept);
        }
        kept += 1;
    });
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(all, 100_753);
    assert_eq!(il_maps, 5_247);
    assert_eq!(kept, 95_506);
    assert_eq!(stops, 55);
    assert_eq!(last_stop, Some(13_205));
}
