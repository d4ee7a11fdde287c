//! Process names cut by the kernel. A process's kernel name is its
//! EPROCESS ImageFileName: 15 bytes with the terminating NUL, so at most 14
//! characters ("SearchProtocolHost.exe" becomes "SearchProtocol"). Events
//! that carry the image path instead (Microsoft-Windows-Kernel-Process
//! ProcessStart, classic process events on newer systems) give the full
//! name, so one program could show under two names. A name of exactly the
//! cut length that begins exactly one longer name of the trace is that
//! name, cut: it takes the full one.

use crate::processes::ProcessTable;
use crate::strings::{StrId, StringTable};
use rustc_hash::FxHashMap;

/// Characters the kernel keeps of an image file name (ImageFileName[15]
/// less its NUL).
pub const CUT_LEN: usize = 14;

/// Whether `new` is only a cut of `old` (so `old` should stay).
pub fn is_cut_of(new: &str, old: &str) -> bool {
    new.len() < old.len() && old.starts_with(new)
}

/// Every process name of exactly `CUT_LEN` characters that is the start of
/// exactly one longer name in `t` becomes that longer name.
pub fn complete_cut_names(t: &mut ProcessTable, strings: &mut StringTable) {
    // Longer names by their first CUT_LEN characters (None: ambiguous).
    let mut full: FxHashMap<String, Option<StrId>> = FxHashMap::default();
    let mut seen: Vec<StrId> = t.name.clone();
    seen.sort_unstable_by_key(|s| s.0);
    seen.dedup();
    for &id in &seen {
        let name = strings.get(id);
        if name.chars().count() <= CUT_LEN {
            continue;
        }
        let prefix: String = name.chars().take(CUT_LEN).collect();
        full.entry(prefix)
            .and_modify(|e| {
                if *e != Some(id) {
                    *e = None;
                }
            })
            .or_insert(Some(id));
    }
    if full.is_empty() {
        return;
    }
    for n in t.name.iter_mut() {
        let name = strings.get(*n);
        if name.chars().count() != CUT_LEN {
            continue;
        }
        if let Some(Some(id)) = full.get(name) {
            *n = *id;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_name_takes_the_one_full_name_it_begins() {
        let mut s = StringTable::default();
        let mut t = ProcessTable::default();
        for n in [
            "SearchProtocol",
            "SearchProtocolHost.exe",
            "SearchFilterHo",
            "SearchFilterHost.exe",
            "SearchFilterHost2.exe",
            "notepad.exe",
        ] {
            let id = s.intern(n);
            t.push(1, id, 0);
        }
        complete_cut_names(&mut t, &mut s);
        let names: Vec<&str> = t.name.iter().map(|&n| s.get(n)).collect();
        assert_eq!(names[0], "SearchProtocolHost.exe");
        // Two full names begin with it: which one is not known.
        assert_eq!(names[2], "SearchFilterHo");
        assert_eq!(names[5], "notepad.exe");
    }

    #[test]
    fn cut_of() {
        assert!(is_cut_of("SearchProtocol", "SearchProtocolHost.exe"));
        assert!(!is_cut_of("SearchProtocolHost.exe", "SearchProtocol"));
        assert!(!is_cut_of("a.exe", "a.exe"));
    }
}
