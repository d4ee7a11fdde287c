//! WinSAT's compressed XML events in the real traces, decoded by our LZNT1
//! and compared with dissect.util's (PyPI, `dissect.util.compression.lznt1
//! .decompress` on the payload after its 8-byte header, UTF-16 to the NUL):
//! the three documents of perfview-selfdescribing-single.etl, their lengths
//! in characters and their first and last characters.

use etl::decode::providers::WINSAT;
use etl::decode::{Decode, WinSatXml};
use etl::EtlFile;
use testdata::real_traces_dir;

#[test]
fn winsat_documents_decompress_as_dissect_util_does() {
    let Some(dir) = real_traces_dir() else { return };
    let path = dir.join("perfview-selfdescribing-single.etl");
    let file = EtlFile::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut got = Vec::new();
    file.for_each_event_in_order(|e| {
        if e.provider == Some(WINSAT) {
            let x = WinSatXml::decode(e).unwrap_or_else(|err| panic!("{err}"));
            got.push((e.opcode, x.xml));
        }
    });
    let want = [
        (
            33,
            525,
            "<WinSPR><SystemScore>8</SystemScore>",
            "</LimitsApplied></WinSPR>",
        ),
        (
            35,
            1173,
            "<Metrics><CPUMetrics><CompressionMetric units=\"MB/s\">706.856",
            "</DiskMetrics></Metrics>",
        ),
        (
            37,
            8943,
            "<SystemConfig><OperationVersion Major=\"1\" Minor=\"0\"",
            "essmentRunTime></SystemConfig>",
        ),
    ];
    assert_eq!(got.len(), want.len());
    for ((op, xml), (wop, chars, head, tail)) in got.iter().zip(want) {
        assert_eq!(*op, wop);
        assert_eq!(xml.chars().count(), chars, "opcode {op}");
        assert!(
            xml.starts_with(head),
            "opcode {op}: {}",
            &xml[..60.min(xml.len())]
        );
        assert!(xml.ends_with(tail), "opcode {op}");
    }
}
