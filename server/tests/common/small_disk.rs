//! A small tmpfs for the disk-full tests (mounting needs root; elsewhere
//! `small_disk` prints a loud notice and the test skips).

use std::path::PathBuf;
use std::process::Command;

/// A mounted tmpfs, unmounted and removed on drop.
pub struct Mount(pub PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A tmpfs of `size` (`mount -o size=`, e.g. "4m"), or None with a notice.
pub fn small_disk(size: &str) -> Option<Mount> {
    let dir = super::temp_dir("small-disk");
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(&dir)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("\n!!!!!!!! SKIPPED: cannot mount a small tmpfs (needs root) !!!!!!!!\n");
        let _ = std::fs::remove_dir_all(&dir);
        return None;
    }
    Some(Mount(dir))
}
