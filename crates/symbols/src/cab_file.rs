//! `.pd_` files: a PDB compressed into a one-file CAB archive (MSZIP or
//! LZX), as symbol servers store them when published compressed.

use std::fs::File;
use std::io::{self, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// Expand the first file of the CAB at `cab` into `out`, refusing more than
/// `max_bytes` of output.
pub fn expand_first_file(cab: &Path, out: &Path, max_bytes: u64) -> Result<(), String> {
    let run = || -> Result<(), String> {
        let f = File::open(cab).map_err(|e| format!("{}: {e}", cab.display()))?;
        let mut cabinet =
            cab::Cabinet::new(f).map_err(|e| format!("not a CAB archive (.pd_): {e}"))?;
        let name = cabinet
            .folder_entries()
            .flat_map(|folder| folder.file_entries())
            .map(|file| file.name().to_string())
            .next()
            .ok_or_else(|| "empty CAB archive (.pd_)".to_string())?;
        let reader = cabinet
            .read_file(&name)
            .map_err(|e| format!("CAB archive (.pd_) entry {name}: {e}"))?;
        let mut w = File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
        let n = io::copy(&mut reader.take(max_bytes.saturating_add(1)), &mut w)
            .map_err(|e| format!("expanding CAB archive (.pd_) entry {name}: {e}"))?;
        if n > max_bytes {
            return Err(format!(
                "CAB archive (.pd_) entry {name} exceeds {max_bytes} bytes"
            ));
        }
        w.flush().map_err(|e| format!("{}: {e}", out.display()))
    };
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(r) => r,
        Err(_) => Err("malformed CAB archive (.pd_): decompressor panicked".into()),
    }
}
