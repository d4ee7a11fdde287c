//! The kernel's event classes as classic (EVENT_TRACE_HEADER) GUIDs.
//!
//! Before Windows Vista, and in files written by tools that log kernel-shaped
//! events themselves (sawbuck's test sessions, some relogged files), kernel
//! events carry a full header whose GUID names the event class and whose
//! Class.Type is the opcode, instead of a system header with a hook id. The
//! same event is `group << 8 | opcode` in hook-id terms, so these map onto
//! the kernel decoders. GUIDs from PerfView's KernelTraceEventParser
//! (`ProcessTaskGuid` ...); groups from the hook ids the kernel logger
//! writes for the same events (etl-format.md C).

use crate::Guid;

/// (event class GUID, kernel group) for the classes our decoders know.
const CLASSES: &[(Guid, u8)] = &[
    // EventTrace: header, extension and rundown markers.
    (
        Guid::from_u128(0x68fdd900_4a3e_11d1_84f4_0000f80464e3),
        0x00,
    ),
    // DiskIo.
    (
        Guid::from_u128(0x3d6fa8d4_fe05_11d0_9dda_00c04fd7ba7c),
        0x01,
    ),
    // PageFault (hard faults are opcode 32: 0x0220).
    (
        Guid::from_u128(0x3d6fa8d3_fe05_11d0_9dda_00c04fd7ba7c),
        0x02,
    ),
    // Process.
    (
        Guid::from_u128(0x3d6fa8d0_fe05_11d0_9dda_00c04fd7ba7c),
        0x03,
    ),
    // FileIo.
    (
        Guid::from_u128(0x90cbdc39_4a3e_11d1_84f4_0000f80464e3),
        0x04,
    ),
    // Thread (CSwitch 36 and ReadyThread 50 included).
    (
        Guid::from_u128(0x3d6fa8d1_fe05_11d0_9dda_00c04fd7ba7c),
        0x05,
    ),
    // TcpIp.
    (
        Guid::from_u128(0x9a280ac0_c8e0_11d1_84e2_00c04fb998a2),
        0x06,
    ),
    // UdpIp.
    (
        Guid::from_u128(0xbf3a50c5_a9c9_4988_a005_2df0b7c80f80),
        0x08,
    ),
    // Registry.
    (
        Guid::from_u128(0xae53722e_c863_11d2_8659_00c04fa321a1),
        0x09,
    ),
    // SystemConfig (CPU 10, logical disk 12, ...).
    (
        Guid::from_u128(0x01853a65_418f_4f36_aefc_dc0f1d2fd235),
        0x0B,
    ),
    // PerfInfo (SampledProfile 46, intervals 72-74).
    (
        Guid::from_u128(0xce1dbfb4_137e_4da6_87b0_3f59aa102cbc),
        0x0F,
    ),
    // Image (load 10, unload 2, rundown 3/4).
    (
        Guid::from_u128(0x2cb15d1d_5fc1_11d2_abe1_00a0c911f518),
        0x14,
    ),
    // HeapTrace (Alloc 33, ReAlloc 34, Destroy 35, Free 36).
    (
        Guid::from_u128(0x222962ab_6180_4b88_a825_346b75f2a24a),
        0x10,
    ),
    // StackWalk.
    (
        Guid::from_u128(0xdef2fe46_7bd6_4b80_bd94_f57fe20d0ce3),
        0x18,
    ),
    // ALPC.
    (
        Guid::from_u128(0x45d8cccd_539f_4b72_a8b7_5c683142609a),
        0x1A,
    ),
];

/// The kernel group of a classic event class GUID.
pub fn kernel_group(class: Guid) -> Option<u8> {
    CLASSES.iter().find(|(g, _)| *g == class).map(|&(_, g)| g)
}

/// The hook id a classic kernel-class event would have in a system header.
pub fn hook_of(class: Guid, opcode: u8) -> Option<u16> {
    kernel_group(class).map(|g| u16::from(g) << 8 | u16::from(opcode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_and_image_classes_map_to_their_hooks() {
        let process = Guid::parse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c").unwrap();
        let image = Guid::parse("2cb15d1d-5fc1-11d2-abe1-00a0c911f518").unwrap();
        assert_eq!(hook_of(process, 1), Some(0x0301));
        assert_eq!(hook_of(image, 10), Some(0x140A));
        assert_eq!(hook_of(Guid::default(), 1), None);
    }
}
