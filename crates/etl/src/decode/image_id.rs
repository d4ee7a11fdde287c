//! KernelTraceControl image information {b3e675d7-2554-4f18-830b-2762732560de},
//! written by xperf / PerfView when merging (classic full header, opcode in
//! the header). Sources: TE-SYM, etl-format D. These events carry the same
//! timestamp as the image event they describe; FileVersion has no base.

use super::reader::{Reader, Result};
use super::Decode;
use crate::{Event, Guid};

/// Opcode 0: ImageID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageId {
    pub image_base: u64,
    pub image_size: u64,
    pub pid: u32,
    pub time_date_stamp: u32,
    pub original_file_name: String,
}

impl<'a> Decode<'a> for ImageId {
    const NAME: &'static str = "ImageID";

    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<ImageId> {
        Ok(ImageId {
            image_base: r.ptr()?,
            image_size: r.ptr()?,
            pid: r.u32()?,
            time_date_stamp: r.u32()?,
            original_file_name: r.utf16z()?,
        })
    }
}

/// Opcodes 36 (DbgID_RSDS, the image's PDB) and 37 (DbgID_ILRSDS, the IL
/// PDB of an NGEN image): a CodeView RSDS record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbgId {
    /// True for opcode 37 (IL PDB).
    pub il: bool,
    pub image_base: u64,
    pub pid: u32,
    pub guid: Guid,
    pub age: u32,
    pub pdb_file_name: String,
}

impl<'a> Decode<'a> for DbgId {
    const NAME: &'static str = "DbgID_RSDS";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<DbgId> {
        Ok(DbgId {
            il: ev.opcode == 37,
            image_base: r.ptr()?,
            pid: r.u32()?,
            guid: r.guid()?,
            age: r.u32()?,
            pdb_file_name: r.cstr()?,
        })
    }
}

/// Opcode 38: DbgPPDB (portable PDB). [R TE-SYM, not in the real traces]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbgPortablePdb {
    pub image_base: u64,
    pub pid: u32,
    pub time_date_stamp: u32,
    pub major_version: u16,
    pub minor_version: u16,
}

impl<'a> Decode<'a> for DbgPortablePdb {
    const NAME: &'static str = "DbgPPDB";

    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<DbgPortablePdb> {
        Ok(DbgPortablePdb {
            image_base: r.ptr()?,
            pid: r.u32()?,
            time_date_stamp: r.u32()?,
            major_version: r.u16()?,
            minor_version: r.u16()?,
        })
    }
}

/// Opcode 64: FileVersion, the image's version resource.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileVersion {
    pub image_size: u32,
    pub time_date_stamp: u32,
    pub original_file_name: String,
    pub file_description: String,
    pub file_version: String,
    pub bin_file_version: String,
    pub ver_language: String,
    pub product_name: String,
    pub company_name: String,
    pub product_version: String,
    pub file_id: String,
    pub program_id: String,
}

impl<'a> Decode<'a> for FileVersion {
    const NAME: &'static str = "FileVersion";

    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<FileVersion> {
        Ok(FileVersion {
            image_size: r.u32()?,
            time_date_stamp: r.u32()?,
            original_file_name: r.utf16z()?,
            file_description: r.utf16z()?,
            file_version: r.utf16z()?,
            bin_file_version: r.utf16z()?,
            ver_language: r.utf16z()?,
            product_name: r.utf16z()?,
            company_name: r.utf16z()?,
            product_version: r.utf16z()?,
            file_id: r.utf16z()?,
            program_id: r.utf16z()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::{classic_event, utf16z};
    use crate::decode::KERNEL_TRACE_CONTROL;

    #[test]
    fn image_id_with_32_bit_pointers() {
        let mut b = Vec::new();
        b.extend(0x7771_0000u32.to_le_bytes());
        b.extend(0x15_7000u32.to_le_bytes());
        b.extend(4u32.to_le_bytes());
        b.extend(0x5E0B_2E3Bu32.to_le_bytes());
        b.extend(utf16z("ntdll.dll"));
        let ev = classic_event(KERNEL_TRACE_CONTROL, 0, 2, 4, &b);
        let i = ImageId::decode(&ev).unwrap();
        assert_eq!(
            (i.image_base, i.image_size, i.pid),
            (0x7771_0000, 0x15_7000, 4)
        );
        assert_eq!(i.time_date_stamp, 0x5E0B_2E3B);
        assert_eq!(i.original_file_name, "ntdll.dll");
    }

    #[test]
    fn dbg_id_with_32_bit_pointers() {
        let g = Guid::parse("01234567-89ab-cdef-0123-456789abcdef").unwrap();
        let mut b = Vec::new();
        b.extend(0x1000_0000u32.to_le_bytes());
        b.extend(99u32.to_le_bytes());
        b.extend(g.to_bytes_le());
        b.extend(3u32.to_le_bytes());
        b.extend(b"a.pdb\0");
        let d = DbgId::decode(&classic_event(KERNEL_TRACE_CONTROL, 37, 2, 4, &b)).unwrap();
        assert!(d.il);
        assert_eq!(
            (d.image_base, d.pid, d.guid, d.age),
            (0x1000_0000, 99, g, 3)
        );
        assert_eq!(d.pdb_file_name, "a.pdb");
    }
}
