//! Modules and image loads from image events, joined with KernelTraceControl
//! image information (PDB identity, file version) by timestamp.

use super::lifetimes::{owner, InstanceIndex};
use super::paths::PathMapper;
use super::records::{ImageInfoRec, ImageRec, Lifetime};
use crate::images::{file_name, ImageTable, ModuleTable};
use crate::processes::{ProcessTable, OPEN};
use crate::strings::{StrId, StringTable};
use crate::time::Clock;
use rustc_hash::FxHashMap;

/// Kernel-mode addresses start here (64-bit); 32-bit kernels use 0x80000000.
pub fn is_kernel_address(addr: u64, pointer_size: u32) -> bool {
    if pointer_size == 4 {
        addr >= 0x8000_0000 && addr <= u32::MAX as u64
    } else {
        addr >= 0xFFFF_8000_0000_0000
    }
}

pub struct ImageBuild {
    pub modules: ModuleTable,
    pub images: ImageTable,
    /// KernelTraceControl records that matched no image.
    pub unmatched_info: u32,
}

#[allow(clippy::too_many_arguments)]
pub fn build_images(
    recs: &[ImageRec],
    info: &[ImageInfoRec],
    clock: &Clock,
    pointer_size: u32,
    processes: &ProcessTable,
    process_index: &InstanceIndex,
    mapper: &PathMapper,
    strings: &mut StringTable,
) -> ImageBuild {
    let mut modules = ModuleTable::default();
    let mut images = ImageTable::default();
    // Modules by (DOS path lower-cased, size). A rundown event may lack the
    // TimeDateStamp (0) that a load event of the same file has: same module.
    let mut module_of: FxHashMap<(String, u64), Vec<u32>> = FxHashMap::default();
    // Live image per (process row, base).
    let mut live: FxHashMap<(u32, u64), u32> = FxHashMap::default();
    // Image rows by raw timestamp of the event that described them.
    let mut by_ts: FxHashMap<i64, Vec<u32>> = FxHashMap::default();

    for r in recs {
        let time = clock.to_ns(r.ts);
        let kernel = r.pid == 0 || is_kernel_address(r.base, pointer_size);
        let process = owner(
            processes,
            process_index,
            if kernel { 0 } else { r.pid },
            time,
        );
        match r.kind {
            Lifetime::End => {
                if let Some(row) = live.remove(&(process, r.base)) {
                    images.unload[row as usize] = time;
                }
                continue;
            }
            Lifetime::DcEnd => {
                if let Some(&row) = live.get(&(process, r.base)) {
                    by_ts.entry(r.ts).or_default().push(row);
                    continue;
                }
            }
            Lifetime::DcStart => {
                if let Some(&row) = live.get(&(process, r.base)) {
                    by_ts.entry(r.ts).or_default().push(row);
                    continue;
                }
            }
            _ => {}
        }
        // Key by the whole path, mapped to DOS form (`\SystemRoot\x` and
        // `\Device\HarddiskVolume2\Windows\x` are one file): identical
        // binaries at two paths are still two files, and each image must
        // show its own path.
        let path = mapper.map(&r.path);
        let key = (path.to_ascii_lowercase(), r.size);
        let candidates = module_of.entry(key).or_default();
        let same = candidates.iter().copied().find(|&m| {
            let ts = modules.timestamp[m as usize];
            ts == r.timestamp || ts == 0 || r.timestamp == 0
        });
        let module = match same {
            Some(m) => {
                let mi = m as usize;
                if modules.timestamp[mi] == 0 {
                    modules.timestamp[mi] = r.timestamp;
                }
                if modules.checksum[mi] == 0 {
                    modules.checksum[mi] = r.checksum;
                }
                m
            }
            None => {
                // The module's path is the DOS form, as WPA shows it; each
                // load keeps the form it recorded (`images.path`).
                let n = strings.intern(file_name(&r.path));
                let p = strings.intern(&path);
                let m = modules.push(n, p, r.size, r.timestamp, r.checksum);
                candidates.push(m);
                m
            }
        };
        let load = if matches!(r.kind, Lifetime::DcStart | Lifetime::DcEnd) {
            OPEN
        } else {
            time
        };
        let recorded = strings.intern(&r.path);
        let row = images.push(process, module, recorded, r.base, r.size, load, kernel);
        live.insert((process, r.base), row);
        by_ts.entry(r.ts).or_default().push(row);
    }

    let mut unmatched = 0;
    for i in info {
        let matched = match i {
            ImageInfoRec::Id {
                ts,
                base,
                original_file_name,
                ..
            } => find(&by_ts, *ts, |r| images.base[r] == *base).map(|r| {
                let m = images.module[r] as usize;
                if modules.original_file_name[m] == StrId::EMPTY {
                    modules.original_file_name[m] = strings.intern(original_file_name);
                }
            }),
            ImageInfoRec::Rsds {
                ts,
                base,
                guid,
                age,
                pdb,
                ..
            } => find(&by_ts, *ts, |r| images.base[r] == *base).map(|r| {
                let m = images.module[r] as usize;
                modules.pdb_guid[m] = Some(*guid);
                modules.pdb_age[m] = *age;
                modules.pdb_name[m] = strings.intern(pdb);
            }),
            ImageInfoRec::FileVersion {
                ts, size, fields, ..
            } => find(&by_ts, *ts, |r| images.size[r] == *size)
                .or_else(|| only(&by_ts, *ts))
                .map(|r| {
                    let m = images.module[r] as usize;
                    modules.has_version_info[m] = true;
                    modules.file_version[m] = strings.intern(&fields.file_version);
                    modules.product_name[m] = strings.intern(&fields.product_name);
                    modules.product_version[m] = strings.intern(&fields.product_version);
                    modules.company_name[m] = strings.intern(&fields.company_name);
                    modules.file_description[m] = strings.intern(&fields.file_description);
                    modules.original_file_name[m] = strings.intern(&fields.original_file_name);
                }),
        };
        if matched.is_none() {
            unmatched += 1;
        }
    }
    ImageBuild {
        modules,
        images,
        unmatched_info: unmatched,
    }
}

fn find(by_ts: &FxHashMap<i64, Vec<u32>>, ts: i64, pred: impl Fn(usize) -> bool) -> Option<usize> {
    by_ts
        .get(&ts)?
        .iter()
        .rev()
        .map(|&r| r as usize)
        .find(|&r| pred(r))
}

/// The one image described at `ts`, if exactly one. FileVersion's ImageSize
/// is not always the loaded size: in perfview-net452-x64.etl vmbushid.sys and
/// swenum.sys say 22,144 and 5,248 while their only image event at the same
/// timestamp says 0x6000 and 0x2000.
fn only(by_ts: &FxHashMap<i64, Vec<u32>>, ts: i64) -> Option<usize> {
    match by_ts.get(&ts)?.as_slice() {
        [r] => Some(*r as usize),
        _ => None,
    }
}

/// Address -> image lookup for one process (plus the kernel's images).
#[derive(Debug, Default)]
pub struct AddressMap {
    /// Per process row: (base, image row) sorted by base.
    user: FxHashMap<u32, Vec<(u64, u32)>>,
    kernel: Vec<(u64, u32)>,
    max_size: u64,
}

impl AddressMap {
    pub fn new(images: &ImageTable) -> AddressMap {
        let mut m = AddressMap::default();
        for i in 0..images.len() {
            let e = (images.base[i], i as u32);
            if images.kernel[i] {
                m.kernel.push(e);
            } else {
                m.user.entry(images.process[i]).or_default().push(e);
            }
            m.max_size = m.max_size.max(images.size[i]);
        }
        m.kernel.sort_unstable();
        for v in m.user.values_mut() {
            v.sort_unstable();
        }
        m
    }

    /// The module and RVA of `addr` in `process` at time `t`: what a frame
    /// inside an image is keyed by.
    pub fn module_rva(
        &self,
        images: &ImageTable,
        process: u32,
        addr: u64,
        t: i64,
    ) -> Option<(u32, u64)> {
        let i = self.lookup(images, process, addr, t)? as usize;
        Some((images.module[i], addr - images.base[i]))
    }

    /// The image row covering `addr` in `process` at time `t`.
    pub fn lookup(&self, images: &ImageTable, process: u32, addr: u64, t: i64) -> Option<u32> {
        let search = |list: &[(u64, u32)]| -> Option<u32> {
            let end = list.partition_point(|&(b, _)| b <= addr);
            // Images can overlap in time at one base; scan back over candidates.
            // One unloaded before (or loaded after) `t` does not count: its
            // range may hold other code by then (in perfview-net452-x64.etl
            // a Test.x64.exe frame at 0x1aef8f80, 2 ms after the two brief
            // mscorlib.dll mappings at 0x1ae10000 were unloaded).
            list[..end]
                .iter()
                .rev()
                .take_while(|&&(b, _)| addr - b < self.max_size.max(1))
                .map(|&(_, r)| r)
                .find(|&r| images.contains(r as usize, addr, t))
        };
        match self.user.get(&process).and_then(|l| search(l)) {
            Some(r) => Some(r),
            None => search(&self.kernel),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::lifetimes::build_processes;

    fn rundown(pid: u32, base: u64, path: &str) -> ImageRec {
        ImageRec {
            ts: 10,
            kind: Lifetime::DcStart,
            pid,
            base,
            size: 0x67000,
            checksum: 437_754,
            timestamp: 0,
            path: path.into(),
        }
    }

    #[test]
    fn an_unloaded_image_does_not_cover_later_addresses() {
        let mut images = ImageTable::default();
        let row = images.push(1, 0, StrId::EMPTY, 0x1ae1_0000, 0x4f_a000, 100, false);
        images.unload[row as usize] = 200;
        let map = AddressMap::new(&images);
        assert_eq!(map.lookup(&images, 1, 0x1aef_8f80, 150), Some(row));
        assert_eq!(map.lookup(&images, 1, 0x1aef_8f80, 300), None);
        assert_eq!(map.lookup(&images, 1, 0x1aef_8f80, 50), None);
    }

    #[test]
    fn same_name_size_and_checksum_at_two_paths_are_two_modules() {
        // As in shutdown-perfdiag-kernel.etl: VMware ships one pcre.dll in two folders.
        let clock = Clock {
            ts0: 0,
            ticks_per_second: 10_000_000,
            start_filetime: 0,
        };
        let mut strings = StringTable::default();
        let (processes, pidx) = build_processes(&[], &clock, &mut strings);
        let a = r"\Device\HarddiskVolume3\Program Files\VMware\VMware Tools\VMware VGAuth\pcre.dll";
        let b = r"\Device\HarddiskVolume3\Program Files\VMware\VMware Tools\pcre.dll";
        let recs = [
            rundown(2244, 0x7ff9_8360_0000, a),
            rundown(2292, 0x7ff9_82b9_0000, b),
        ];
        let ib = build_images(
            &recs,
            &[],
            &clock,
            8,
            &processes,
            &pidx,
            &PathMapper::default(),
            &mut strings,
        );
        assert_eq!(ib.modules.len(), 2);
        let path_of = |i: usize| strings.get(ib.modules.path[ib.images.module[i] as usize]);
        assert_eq!((path_of(0), path_of(1)), (a, b));
    }
}
