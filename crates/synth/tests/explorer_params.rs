//! The demo's `days_later` read back with etl's reader: it moves the
//! log-file header's start and boot times by whole days and changes no
//! event (each event's time is relative to them).

use etl::census::Census;
use etl::EtlFile;
use std::io::Cursor;
use synth::{write_explorer_overlay, ExplorerParams};

/// FILETIME's 100 ns units in a day.
const DAY: i64 = 24 * 3600 * 10_000_000;

fn write(params: &ExplorerParams) -> EtlFile {
    let (sink, _) = write_explorer_overlay(Cursor::new(Vec::new()), params).unwrap();
    EtlFile::from_bytes(sink.into_inner()).unwrap()
}

#[test]
fn days_later_moves_the_start_and_nothing_else() {
    let base = ExplorerParams {
        shorten: 50,
        ..Default::default()
    };
    let a = write(&base);
    let b = write(&ExplorerParams {
        days_later: 9,
        ..base
    });
    let (ha, hb) = (a.logfile().unwrap(), b.logfile().unwrap());
    assert_eq!(hb.start_time - ha.start_time, 9 * DAY);
    assert_eq!(hb.boot_time - ha.boot_time, 9 * DAY);
    // 2023-03-14T16:06:40Z, the demo's start, as FILETIME.
    assert_eq!(ha.start_time, 133_232_836_000_000_000);
    let (ca, cb) = (Census::of(&a), Census::of(&b));
    assert_eq!(ca.events, cb.events);
    assert_eq!(ca.kernel_hooks, cb.kernel_hooks);
    assert_eq!(ca.min_timestamp, cb.min_timestamp);
    assert_eq!(ca.max_timestamp, cb.max_timestamp);
}
