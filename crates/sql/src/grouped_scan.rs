//! A scan in the order of one keyed column's text (`GROUP BY process`,
//! `SELECT DISTINCT module`, `ORDER BY process`): the rows the scan keeps,
//! ordered by a counting sort of their keys' texts, so SQLite needs no
//! sorter of its own (on 10M samples its sorter took seconds and more
//! memory than the default limit). SQLite hands the vtab an ORDER BY term
//! only under the column's declared collation (BINARY here: `whereLoopAddVirtual`'s
//! `allocateIndexInfo` in sqlite3.c), so byte order of the text is the order asked.
//!
//! The order is held in memory from SQLite's allocator (4 bytes per kept
//! row), so the statement's memory limit, which reads SQLite's counter,
//! counts it.

use rusqlite::ffi;
use std::collections::HashMap;

/// Row numbers in SQLite's memory, freed on drop.
pub struct RowOrder {
    ptr: *mut u32,
    len: usize,
}

impl RowOrder {
    fn alloc(len: usize) -> Option<RowOrder> {
        if len == 0 {
            return Some(RowOrder {
                ptr: std::ptr::null_mut(),
                len: 0,
            });
        }
        let bytes = (len as u64).checked_mul(4)?;
        // SAFETY: a plain allocation; NULL (out of memory, or over the hard
        // heap limit) is checked below.
        let ptr = unsafe { ffi::sqlite3_malloc64(bytes) } as *mut u32;
        if ptr.is_null() {
            return None;
        }
        // SAFETY: `len` u32s were just allocated; zeroed before any read
        // (row 0 wherever `order` would leave a slot unset).
        unsafe { std::ptr::write_bytes(ptr, 0, len) };
        Some(RowOrder { ptr, len })
    }

    pub fn as_slice(&self) -> &[u32] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `ptr` holds `len` initialised u32s (zeroed at allocation).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    fn as_mut_slice(&mut self) -> &mut [u32] {
        if self.len == 0 {
            return &mut [];
        }
        // SAFETY: as above; the memory is ours alone.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for RowOrder {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            // SAFETY: allocated by sqlite3_malloc64, freed once.
            unsafe { ffi::sqlite3_free(self.ptr.cast()) }
        }
    }
}

// SAFETY: the buffer is owned; nothing else points into it.
unsafe impl Send for RowOrder {}

/// The rows of `lo..hi` that `keeps` keeps, ordered by the text of their
/// key (`key`, `text`), descending if `desc`; rows of one text keep their
/// order. None when SQLite cannot give the memory. `keeps` is asked twice
/// per row (a count, then the placing).
pub fn order(
    lo: usize,
    hi: usize,
    key: &dyn Fn(usize) -> u32,
    text: &dyn Fn(u32) -> String,
    desc: bool,
    keeps: &mut dyn FnMut(usize) -> bool,
) -> Option<RowOrder> {
    // Rows per key.
    let mut per_key: HashMap<u32, u32> = HashMap::new();
    let mut kept = 0usize;
    for row in lo..hi {
        if keeps(row) {
            *per_key.entry(key(row)).or_default() += 1;
            kept += 1;
        }
    }
    // Each key's group: its text's place among the distinct texts (keys
    // of equal text share one, as several processes of one name and pid would).
    let mut texts: Vec<(String, u32)> = per_key.keys().map(|&k| (text(k), k)).collect();
    texts.sort_unstable();
    if desc {
        texts.reverse();
    }
    let mut group_of: HashMap<u32, usize> = HashMap::with_capacity(texts.len());
    let mut starts: Vec<usize> = Vec::new();
    let mut at = 0usize;
    for (i, (t, k)) in texts.iter().enumerate() {
        if i == 0 || texts[i - 1].0 != *t {
            starts.push(at);
        }
        group_of.insert(*k, starts.len() - 1);
        at += per_key.get(k).copied().unwrap_or(0) as usize;
    }
    let mut out = RowOrder::alloc(kept)?;
    let slots = out.as_mut_slice();
    let mut placed = 0usize;
    for row in lo..hi {
        if placed == kept {
            break;
        }
        if keeps(row) {
            let Some(&g) = group_of.get(&key(row)) else {
                continue;
            };
            if let Some(slot) = slots.get_mut(starts[g]) {
                *slot = row as u32;
                starts[g] += 1;
                placed += 1;
            }
        }
    }
    // `keeps` answers the same twice (pure filters), so every slot is set.
    debug_assert_eq!(placed, kept);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_come_grouped_by_text_in_byte_order() {
        // Keys 0..5; keys 1 and 4 share a text.
        let keys = [3u32, 1, 0, 4, 2, 1, 3, 0, 4, 2];
        let names = ["b", "a", "c", "B", "a"];
        let key = |r: usize| keys[r];
        let text = |k: u32| names[k as usize].to_string();
        let mut all = |_: usize| true;
        let o = order(0, keys.len(), &key, &text, false, &mut all).unwrap();
        let got: Vec<&str> = o
            .as_slice()
            .iter()
            .map(|&r| names[keys[r as usize] as usize])
            .collect();
        assert_eq!(got, ["B", "B", "a", "a", "a", "a", "b", "b", "c", "c"]);
        // Within a text, rows in their order.
        assert_eq!(&o.as_slice()[2..6], &[1, 3, 5, 8]);
        let o = order(0, keys.len(), &key, &text, true, &mut all).unwrap();
        let got: Vec<&str> = o
            .as_slice()
            .iter()
            .map(|&r| names[keys[r as usize] as usize])
            .collect();
        assert_eq!(got, ["c", "c", "b", "b", "a", "a", "a", "a", "B", "B"]);
    }

    #[test]
    fn only_kept_rows_in_the_range() {
        let keys = [0u32, 1, 0, 1, 0, 1];
        let key = |r: usize| keys[r];
        let text = |k: u32| format!("k{k}");
        let mut odd_rows = |r: usize| r % 2 == 1;
        let o = order(1, 5, &key, &text, false, &mut odd_rows).unwrap();
        assert_eq!(o.as_slice(), &[1, 3]);
        let mut none = |_: usize| false;
        let o = order(0, 6, &key, &text, false, &mut none).unwrap();
        assert!(o.as_slice().is_empty());
    }
}
