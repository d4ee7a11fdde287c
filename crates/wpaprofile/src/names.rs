//! WPA column names that etlscope's tables call otherwise. Names equal up
//! to case, spaces, `_` and `-` need no entry (the catalog matches those).

/// (etlscope table or `*`, WPA name, our column, what differs or "").
const SYNONYMS: &[(&str, &str, &str, &str)] = &[
    ("cpu-sampled", "Weight (in view)", "Weight", ""),
    ("cpu-sampled", "TimeStamp", "Time", ""),
    ("cpu-precise", "CPU Usage (in view)", "CPU Usage", ""),
    ("cpu-precise", "% CPU Usage", "% Weight", ""),
    ("cpu-precise", "New In Pri", "New Thread Priority", ""),
    ("cpu-precise", "Old Out Pri", "Old Thread Priority", ""),
    ("cpu-precise", "Old Wait Reason", "Old Wait Reason", ""),
    ("disk-io", "IO Init Stack", "Stack", ""),
    ("disk-io", "Thread ID", "Thread", ""),
    (
        "disk-io",
        "Path Tree",
        "Path Name",
        "whole paths, not a folder tree",
    ),
    // HighResResponseTime, from initiation to completion: WPA's IO Time.
    ("disk-io", "IO Time", "Disk Service Time", ""),
    (
        "disk-io",
        "Disk Service Time",
        "Disk Service Time",
        "the I/O's response time; WPA's removes overlap with other I/Os",
    ),
    ("file-io", "Thread ID", "Thread", ""),
    (
        "file-io",
        "Path Tree",
        "File Path",
        "whole paths, not a folder tree",
    ),
    ("file-io", "File Name", "File Path", ""),
    ("file-io", "Event Type", "Type", ""),
    ("processes", "Process ID", "PID", ""),
    ("processes", "Parent Process ID", "Parent PID", ""),
    ("processes", "Session ID", "Session", ""),
    ("processes", "Create Time", "Start Time", ""),
    ("processes", "Exit Time", "End Time", ""),
    ("processes", "Lifetime", "Duration", ""),
    ("threads", "Thread Id", "Thread ID", ""),
    ("threads", "Create Time", "Start Time", ""),
    ("threads", "Exit Time", "End Time", ""),
    ("threads", "Lifetime", "Duration", ""),
    ("images", "Size", "Image Size", ""),
    ("images", "Image Base", "Base Address", ""),
    ("generic", "Provider Name", "Provider", ""),
    ("generic", "Thread Id", "Thread", ""),
    ("generic", "ThreadId", "Thread", ""),
    ("generic", "Timestamp", "Time", ""),
    // MSO-Scripts' VirtualAlloc, Heap, MemFileAccess, Registry and Network
    // profiles.
    ("virtual-alloc", "Commit LifeTime", "Lifetime", ""),
    ("virtual-alloc", "Commit Time", "Allocation Time", ""),
    ("virtual-alloc", "Decommit Time", "Free Time", ""),
    ("virtual-alloc", "Committing ThreadId", "Thread", ""),
    ("heap", "AllocTime", "Allocation Time", ""),
    ("heap", "FreeTime", "Free Time", ""),
    ("hard-faults", "File Name", "File Path", ""),
    (
        "hard-faults",
        "Path Tree",
        "File Path",
        "whole paths, not a folder tree",
    ),
    ("hard-faults", "File Offset", "Byte Offset", ""),
    ("hard-faults", "ByteCount", "Size", ""),
    ("hard-faults", "Thread ID", "Thread", ""),
    ("hard-faults", "Log Time", "Start Time", ""),
    ("network", "Bytes", "Size", ""),
    ("network", "Event Type", "Event", ""),
    ("registry", "Entire Key (Base+Remainder)", "Key Path", ""),
    (
        "registry",
        "Entire Key (Base+Remainder) Tree",
        "Key Path",
        "whole paths, not a key tree",
    ),
    ("registry", "Elapsed Time", "Duration", ""),
    ("registry", "Operation Time", "Start Time", ""),
    ("registry", "Thread ID", "Thread", ""),
];

/// Our name for WPA's column `wpa` in `table`, and what differs.
pub fn synonym(table: &str, wpa: &str) -> Option<(&'static str, &'static str)> {
    SYNONYMS
        .iter()
        .find(|(t, w, _, _)| (*t == table || *t == "*") && same(w, wpa))
        .map(|&(_, _, ours, note)| (ours, note))
}

/// The stack tag column of a stack column (`Mode="StackTag"`).
pub fn stack_tag_of(stack: &str) -> &'static str {
    if same(stack, "Ready Thread Stack") {
        "Ready Thread Stack Tag"
    } else {
        "Stack Tag"
    }
}

/// Names equal up to case, spaces, `_` and `-` (as etlscope's tables match).
pub fn same(a: &str, b: &str) -> bool {
    let n = |s: &str| {
        s.chars()
            .filter(|c| !matches!(c, ' ' | '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    n(a) == n(b)
}
