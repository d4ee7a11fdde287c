//! Microsoft-Windows-Kernel-File {edd08927-9cc4-4e65-b970-c2560fb5c289}.
//!
//! Its templates (the provider manifest as dumped in repnz/etw-providers-docs,
//! Windows 10 build 10240) list the same fields in the same order as the
//! kernel FileIo events: event version 0 carries the thread id as a pointer
//! right after the IRP (kernel FileIo layout 2), version 1 carries it as a
//! u32 after the file object / key (kernel layout 3). So these events are
//! decoded by the FileIo decoders with the matching layout. Read / Write v1
//! append a u32 ExtraFlags. Create (id 12, v1) is verified on the x64 trace;
//! the other ids have no real event to check against [R].

use crate::Event;

/// The kernel FileIo hook id whose layout a Kernel-File event id shares.
/// Ids 26..=28 (path operations) have no kernel twin: see `FileIoPathOp`.
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
        19 | 29 => 0x0447, // Rename, Rename29
        20 => 0x0448,      // DirEnum
        21 => 0x0449,      // Flush
        22 => 0x044A,      // QueryInformation
        23 => 0x044B,      // FSCTL
        24 => 0x044C,      // OperationEnd
        25 => 0x044D,      // DirNotify
        _ => return None,
    })
}

/// Kernel FileIo layout version for a Kernel-File event version.
pub fn layout_version(event_version: u16) -> u16 {
    if event_version == 0 {
        2
    } else {
        3
    }
}

/// A view of a Kernel-File event as the equivalent kernel FileIo event.
pub fn as_kernel_fileio<'a>(ev: &Event<'a>) -> Option<Event<'a>> {
    let hook = kernel_hook_for(ev.event_id)?;
    let mut k = *ev;
    k.hook_id = Some(hook);
    k.opcode = hook as u8;
    k.version = layout_version(ev.version);
    Some(k)
}
