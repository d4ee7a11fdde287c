//! WPA's tables by their GUID (a profile's `Graph Guid`), with the title
//! wpaexporter names its files by and the etlscope table that has the same
//! rows. A table is never guessed from a preset's title or columns.

/// One WPA table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WpaTable {
    pub guid: &'static str,
    /// WPA's title, as in wpaexporter's file names (`CPU Usage (Sampled)`).
    pub title: &'static str,
    /// The etlscope table with its rows (`None`: etlscope has no such table).
    pub ours: Option<&'static str>,
}

/// The tables profiles name. GUIDs as WPA writes them in saved profiles
/// (Microsoft's MSO-Scripts and Google's UIforETW profiles name them).
pub const WPA_TABLES: &[WpaTable] = &[
    WpaTable {
        guid: "b855361e-7be0-4bc8-a754-3e8507715ca5",
        title: "CPU Usage (Sampled)",
        ours: Some("cpu-sampled"),
    },
    WpaTable {
        guid: "c58f5fea-0319-4046-932d-e695ebe20b47",
        title: "CPU Usage (Precise)",
        ours: Some("cpu-precise"),
    },
    WpaTable {
        guid: "12c5387c-58ca-45d4-a5c6-450475c30e06",
        title: "Disk Usage",
        ours: Some("disk-io"),
    },
    WpaTable {
        guid: "e2a7d340-0dbd-4f24-8b26-e5388eeaf562",
        title: "File I/O",
        ours: Some("file-io"),
    },
    WpaTable {
        guid: "b186f02d-8d06-4bbb-9ad1-abf7985fb61a",
        title: "Processes",
        ours: Some("processes"),
    },
    WpaTable {
        guid: "a1df89f9-5b2a-449e-aaab-1bcc3fd25c84",
        title: "Images",
        ours: Some("images"),
    },
    WpaTable {
        guid: "a20f1ccd-d67f-4cdf-a186-0fd3f6535f18",
        title: "Thread Lifetimes",
        ours: Some("threads"),
    },
    WpaTable {
        guid: "04f69f98-176e-4d1c-b44e-97f734996ab8",
        title: "Generic Events",
        ours: Some("generic"),
    },
    // Microsoft's MSO-Scripts profiles name these (src/WPAP/VirtualAlloc,
    // Heap, MemFileAccess, Network .wpaProfile; UIforETW's
    // bin/HeapAnalysis.wpaProfile the Heap one too). Hard Faults is known
    // by its columns (File Name, File Offset, ByteCount, IO Time, Virtual
    // Address); TcpIp by the View MSO-Scripts gives it (Process, Remote and
    // Local Address, Protocol, Event Type, Bytes).
    WpaTable {
        guid: "e6a4a964-3a87-46ef-9762-f9d9b9208051",
        title: "VirtualAlloc Commit LifeTimes",
        ours: Some("virtual-alloc"),
    },
    WpaTable {
        guid: "1a64d983-f796-45f8-aa64-ac50b95d0e45",
        title: "Heap Allocations",
        ours: Some("heap"),
    },
    WpaTable {
        guid: "7c60aeff-a47f-4ba8-942c-d2b154087ab9",
        title: "Hard Faults",
        ours: Some("hard-faults"),
    },
    WpaTable {
        guid: "21214383-88f8-4603-9eac-2a6422756b11",
        title: "TcpIp",
        ours: Some("network"),
    },
    WpaTable {
        guid: "e97b189d-b977-4e41-9448-8c214c166f84",
        title: "Registry",
        ours: Some("registry"),
    },
    // Tables etlscope does not have, named so that a skip says which.
    WpaTable {
        guid: "1fe3bbaa-6738-41b9-941e-7a6825821b35",
        title: "Mini-Filter Delays",
        ours: None,
    },
    WpaTable {
        guid: "3dd69094-4675-4607-9fb4-0042b9e1a610",
        title: "Virtual Memory Snapshots",
        ours: None,
    },
    WpaTable {
        guid: "b859d131-dfb5-4605-be19-810b298b6975",
        title: "GPU Utilization Table",
        ours: None,
    },
    WpaTable {
        guid: "1ce7fd53-2344-4ea8-acd6-1a0722a51427",
        title: "Regions of Interest",
        ours: None,
    },
];

/// The WPA table whose GUID is `guid` (any case).
pub fn wpa_table(guid: &str) -> Option<&'static WpaTable> {
    WPA_TABLES
        .iter()
        .find(|t| t.guid.eq_ignore_ascii_case(guid.trim()))
}
