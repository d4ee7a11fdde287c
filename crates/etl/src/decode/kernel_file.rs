//! Microsoft-Windows-Kernel-File {edd08927-9cc4-4e65-b970-c2560fb5c289}.
//!
//! Its events carry the same fields, in the same order, as the kernel FileIo
//! events of layout version 3 (TTID as a u32 after the file object/key), so
//! they are decoded by the FileIo decoders with that layout. Create (id 12)
//! is verified on the real x64 trace (PerfView decodes it with the kernel
//! FileIo create template too); the other ids are mapped from the provider's
//! manifest field lists as remembered, not from a source read here, and no
//! real event exercises them [R].

use crate::Event;

/// The kernel FileIo hook id whose v3 layout a Kernel-File event id shares.
pub fn kernel_hook_for(event_id: u16) -> Option<u16> {
    Some(match event_id {
        10 => 0x0420,      // NameCreate
        11 => 0x0423,      // NameDelete
        12 | 30 => 0x0440, // Create, CreateNewFile
        13 => 0x0441,      // Cleanup
        14 => 0x0442,      // Close
        15 => 0x0443,      // Read
        16 => 0x0444,      // Write
        17 => 0x0445,      // SetInformation
        18 => 0x0446,      // SetDelete
        19 => 0x0447,      // Rename
        20 => 0x0448,      // DirEnum
        21 => 0x0449,      // Flush
        22 => 0x044A,      // QueryInformation
        23 => 0x044B,      // FSCTL
        24 => 0x044C,      // OperationEnd
        25 => 0x044D,      // DirNotify
        _ => return None,
    })
}

/// A view of a Kernel-File event as the equivalent kernel FileIo v3 event.
pub fn as_kernel_fileio<'a>(ev: &Event<'a>) -> Option<Event<'a>> {
    let hook = kernel_hook_for(ev.event_id)?;
    let mut k = *ev;
    k.hook_id = Some(hook);
    k.opcode = hook as u8;
    k.version = 3;
    Some(k)
}
