//! Binaries and where they are loaded. A `module` is one binary on disk
//! (path, size, timestamp, version and PDB identity); an `image` is one load
//! of a module into one process, with its address range and lifetime.

use crate::strings::StrId;
use etl::Guid;

pub const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Default)]
pub struct ModuleTable {
    /// File name, e.g. `windows.storage.dll`.
    pub name: Vec<StrId>,
    /// Full path as the trace recorded it (drive letter when it could be mapped).
    pub path: Vec<StrId>,
    pub size: Vec<u64>,
    pub timestamp: Vec<u32>,
    pub checksum: Vec<u32>,
    /// From KernelTraceControl FileVersion; `StrId::EMPTY` when the trace has none.
    pub file_version: Vec<StrId>,
    pub product_name: Vec<StrId>,
    pub product_version: Vec<StrId>,
    pub company_name: Vec<StrId>,
    pub file_description: Vec<StrId>,
    pub original_file_name: Vec<StrId>,
    /// Whether a FileVersion event described this module.
    pub has_version_info: Vec<bool>,
    /// PDB identity from DbgID_RSDS.
    pub pdb_guid: Vec<Option<Guid>>,
    pub pdb_age: Vec<u32>,
    pub pdb_name: Vec<StrId>,
}

impl ModuleTable {
    pub fn len(&self) -> usize {
        self.name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }

    pub fn push(
        &mut self,
        name: StrId,
        path: StrId,
        size: u64,
        timestamp: u32,
        checksum: u32,
    ) -> u32 {
        let i = self.name.len() as u32;
        self.name.push(name);
        self.path.push(path);
        self.size.push(size);
        self.timestamp.push(timestamp);
        self.checksum.push(checksum);
        self.file_version.push(StrId::EMPTY);
        self.product_name.push(StrId::EMPTY);
        self.product_version.push(StrId::EMPTY);
        self.company_name.push(StrId::EMPTY);
        self.file_description.push(StrId::EMPTY);
        self.original_file_name.push(StrId::EMPTY);
        self.has_version_info.push(false);
        self.pdb_guid.push(None);
        self.pdb_age.push(0);
        self.pdb_name.push(StrId::EMPTY);
        i
    }
}

#[derive(Debug, Clone, Default)]
pub struct ImageTable {
    /// Row in the process table (the System process for kernel images).
    pub process: Vec<u32>,
    pub module: Vec<u32>,
    /// The path this load recorded (a module's loads may name it differently:
    /// `\SystemRoot\...` or `\Device\HarddiskVolume2\...`).
    pub path: Vec<StrId>,
    pub base: Vec<u64>,
    pub size: Vec<u64>,
    /// ns since trace start; `processes::OPEN` when loaded before the trace.
    pub load: Vec<i64>,
    pub unload: Vec<i64>,
    /// Kernel-mode image (driver, ntoskrnl): visible from every process.
    pub kernel: Vec<bool>,
}

impl ImageTable {
    pub fn len(&self) -> usize {
        self.base.len()
    }

    pub fn is_empty(&self) -> bool {
        self.base.is_empty()
    }

    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        process: u32,
        module: u32,
        path: StrId,
        base: u64,
        size: u64,
        load: i64,
        kernel: bool,
    ) -> u32 {
        let i = self.base.len() as u32;
        self.process.push(process);
        self.module.push(module);
        self.path.push(path);
        self.base.push(base);
        self.size.push(size);
        self.load.push(load);
        self.unload.push(crate::processes::OPEN);
        self.kernel.push(kernel);
        i
    }

    pub fn contains(&self, i: usize, addr: u64, t: i64) -> bool {
        let b = self.base[i];
        let live = (self.load[i] == crate::processes::OPEN || self.load[i] <= t)
            && (self.unload[i] == crate::processes::OPEN || t <= self.unload[i]);
        live && addr >= b && addr - b < self.size[i]
    }
}

/// File name part of a Windows path.
pub fn file_name(path: &str) -> &str {
    path.rsplit(['\\', '/']).next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    #[test]
    fn file_name_of_nt_and_dos_paths() {
        assert_eq!(
            super::file_name(r"\Device\HarddiskVolume2\Windows\System32\ntdll.dll"),
            "ntdll.dll"
        );
        assert_eq!(super::file_name("ntdll.dll"), "ntdll.dll");
        assert_eq!(super::file_name(r"C:\a\b.dll"), "b.dll");
    }
}
