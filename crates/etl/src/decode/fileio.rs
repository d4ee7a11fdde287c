//! Kernel FileIo events (group 0x04), versions 2 and 3.
//!
//! v2 carries the issuing thread id (TTID) as a pointer right after the IRP;
//! v3 moves it, as a u32, after the file object / key. Offsets follow TE-K
//! (`FileIOCreateTraceData`, `FileIOSimpleOpTraceData`,
//! `FileIOReadWriteTraceData`, `FileIOInfoTraceData`, `FileIODirEnumTraceData`,
//! `FileIOOpEndTraceData`, `FileIONameTraceData`). Only the name events
//! (0x0420, 0x0423, 0x0424, v2) occur in the real traces; the rest is [R].

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileNameKind {
    /// 0x0400 Name.
    Name,
    /// 0x0420 FileCreate: a name was created (first open of a file).
    FileCreate,
    /// 0x0423 FileDelete: a name went away.
    FileDelete,
    /// 0x0424 FileRundown: names still open at the end of the trace.
    FileRundown,
}

/// Name events: P FileKey (FileObject in MOF), UTF-16 FileName (NT path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileIoName {
    pub kind: FileNameKind,
    pub file_key: u64,
    pub file_name: String,
}

impl<'a> Decode<'a> for FileIoName {
    const NAME: &'static str = "FileIoName";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<FileIoName> {
        let kind = match ev.hook_id {
            Some(0x0400) => FileNameKind::Name,
            Some(0x0420) => FileNameKind::FileCreate,
            Some(0x0423) => FileNameKind::FileDelete,
            Some(0x0424) => FileNameKind::FileRundown,
            _ => return Err(r.malformed("not a file name hook id")),
        };
        Ok(FileIoName {
            kind,
            file_key: r.ptr()?,
            file_name: r.utf16z()?,
        })
    }
}

/// 0x0440 Create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileIoCreate {
    pub irp: u64,
    pub ttid: u32,
    pub file_object: u64,
    /// Low 24 bits: CreateOptions; high 8 bits: CreateDisposition.
    pub create_options: u32,
    pub file_attributes: u32,
    pub share_access: u32,
    pub open_path: String,
}

impl FileIoCreate {
    pub fn create_disposition(&self) -> u8 {
        (self.create_options >> 24) as u8
    }
}

/// Reads the (irp, ttid-v2 ...) prefix shared by most v2 events: IRP, then
/// for v2 a pointer-sized TTID. Returns (irp, ttid if v2).
fn irp_and_v2_ttid(ev: &Event<'_>, r: &mut Reader<'_>) -> Result<(u64, Option<u32>)> {
    let irp = r.ptr()?;
    let ttid = if ev.version <= 2 {
        Some(r.ptr()? as u32)
    } else {
        None
    };
    Ok((irp, ttid))
}

impl<'a> Decode<'a> for FileIoCreate {
    const NAME: &'static str = "FileIoCreate";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<FileIoCreate> {
        let (irp, v2_ttid) = irp_and_v2_ttid(ev, r)?;
        let file_object = r.ptr()?;
        let ttid = match v2_ttid {
            Some(t) => t,
            None => r.u32()?,
        };
        Ok(FileIoCreate {
            irp,
            ttid,
            file_object,
            create_options: r.u32()?,
            file_attributes: r.u32()?,
            share_access: r.u32()?,
            open_path: r.utf16z()?,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileSimpleOpKind {
    Cleanup,
    Close,
    Flush,
}

/// 0x0441 Cleanup, 0x0442 Close, 0x0449 Flush.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileIoSimpleOp {
    pub kind: FileSimpleOpKind,
    pub irp: u64,
    pub ttid: u32,
    pub file_object: u64,
    pub file_key: u64,
}

impl<'a> Decode<'a> for FileIoSimpleOp {
    const NAME: &'static str = "FileIoSimpleOp";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<FileIoSimpleOp> {
        let kind = match ev.hook_id {
            Some(0x0441) => FileSimpleOpKind::Cleanup,
            Some(0x0442) => FileSimpleOpKind::Close,
            Some(0x0449) => FileSimpleOpKind::Flush,
            _ => return Err(r.malformed("not a file cleanup/close/flush hook id")),
        };
        let (irp, v2_ttid) = irp_and_v2_ttid(ev, r)?;
        let file_object = r.ptr()?;
        let file_key = r.ptr()?;
        let ttid = match v2_ttid {
            Some(t) => t,
            None => r.u32()?,
        };
        Ok(FileIoSimpleOp {
            kind,
            irp,
            ttid,
            file_object,
            file_key,
        })
    }
}

/// 0x0443 Read, 0x0444 Write: u64 Offset first, then as the simple ops,
/// then u32 IoSize, u32 IoFlags, and (layout 3, when present) u32 ExtraFlags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileIoReadWrite {
    pub write: bool,
    pub offset: u64,
    pub irp: u64,
    pub ttid: u32,
    pub file_object: u64,
    pub file_key: u64,
    pub io_size: u32,
    pub io_flags: u32,
    /// Layout 3 events longer than the TE-K layout (Kernel-File ReadArgs_V1).
    pub extra_flags: Option<u32>,
}

impl<'a> Decode<'a> for FileIoReadWrite {
    const NAME: &'static str = "FileIoReadWrite";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<FileIoReadWrite> {
        let write = match ev.hook_id {
            Some(0x0443) => false,
            Some(0x0444) => true,
            _ => return Err(r.malformed("not a file read/write hook id")),
        };
        let offset = r.u64()?;
        let (irp, v2_ttid) = irp_and_v2_ttid(ev, r)?;
        let file_object = r.ptr()?;
        let file_key = r.ptr()?;
        let ttid = match v2_ttid {
            Some(t) => t,
            None => r.u32()?,
        };
        let io_size = r.u32()?;
        let io_flags = r.u32()?;
        let extra_flags = if ev.version >= 3 && r.remaining() >= 4 {
            Some(r.u32()?)
        } else {
            None
        };
        Ok(FileIoReadWrite {
            write,
            offset,
            irp,
            ttid,
            file_object,
            file_key,
            io_size,
            io_flags,
            extra_flags,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileInfoKind {
    SetInfo,
    Delete,
    Rename,
    QueryInfo,
    FsControl,
}

/// 0x0445 SetInfo, 0x0446 Delete, 0x0447 Rename, 0x044A QueryInfo,
/// 0x044B FSControl: as the simple ops plus P ExtraInfo and u32 InfoClass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileIoInfo {
    pub kind: FileInfoKind,
    pub irp: u64,
    pub ttid: u32,
    pub file_object: u64,
    pub file_key: u64,
    pub extra_info: u64,
    pub info_class: u32,
}

impl<'a> Decode<'a> for FileIoInfo {
    const NAME: &'static str = "FileIoInfo";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<FileIoInfo> {
        let kind = match ev.hook_id {
            Some(0x0445) => FileInfoKind::SetInfo,
            Some(0x0446) => FileInfoKind::Delete,
            Some(0x0447) => FileInfoKind::Rename,
            Some(0x044A) => FileInfoKind::QueryInfo,
            Some(0x044B) => FileInfoKind::FsControl,
            _ => return Err(r.malformed("not a file info hook id")),
        };
        let (irp, v2_ttid) = irp_and_v2_ttid(ev, r)?;
        let file_object = r.ptr()?;
        let file_key = r.ptr()?;
        let extra_info = r.ptr()?;
        let ttid = match v2_ttid {
            Some(t) => t,
            None => r.u32()?,
        };
        Ok(FileIoInfo {
            kind,
            irp,
            ttid,
            file_object,
            file_key,
            extra_info,
            info_class: r.u32()?,
        })
    }
}

/// 0x0448 DirEnum, 0x044D DirNotify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileIoDirEnum {
    pub notify: bool,
    pub irp: u64,
    pub ttid: u32,
    pub file_object: u64,
    pub file_key: u64,
    pub length: u32,
    pub info_class: u32,
    pub file_index: u32,
    pub file_name: String,
}

impl<'a> Decode<'a> for FileIoDirEnum {
    const NAME: &'static str = "FileIoDirEnum";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<FileIoDirEnum> {
        let notify = ev.hook_id == Some(0x044D);
        let (irp, v2_ttid) = irp_and_v2_ttid(ev, r)?;
        let file_object = r.ptr()?;
        let file_key = r.ptr()?;
        let ttid = match v2_ttid {
            Some(t) => t,
            None => r.u32()?,
        };
        Ok(FileIoDirEnum {
            notify,
            irp,
            ttid,
            file_object,
            file_key,
            length: r.u32()?,
            info_class: r.u32()?,
            file_index: r.u32()?,
            file_name: r.utf16z()?,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilePathOpKind {
    DeletePath,
    RenamePath,
    SetLinkPath,
}

/// Kernel-File ids 26 DeletePath, 27 RenamePath, 28 SetLinkPath (no kernel
/// twin): the info layout followed by a UTF-16 FilePath. The layout version
/// (2 or 3) is that of `kernel_file::layout_version`. [R manifest only]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileIoPathOp {
    pub kind: FilePathOpKind,
    pub irp: u64,
    pub ttid: u32,
    pub file_object: u64,
    pub file_key: u64,
    pub extra_info: u64,
    pub info_class: u32,
    pub file_path: String,
}

impl<'a> Decode<'a> for FileIoPathOp {
    const NAME: &'static str = "FileIoPathOp";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<FileIoPathOp> {
        let kind = match ev.event_id {
            26 => FilePathOpKind::DeletePath,
            27 => FilePathOpKind::RenamePath,
            28 => FilePathOpKind::SetLinkPath,
            _ => return Err(r.malformed("not a Kernel-File path operation id")),
        };
        let (irp, v2_ttid) = irp_and_v2_ttid(ev, r)?;
        let file_object = r.ptr()?;
        let file_key = r.ptr()?;
        let extra_info = r.ptr()?;
        let ttid = match v2_ttid {
            Some(t) => t,
            None => r.u32()?,
        };
        Ok(FileIoPathOp {
            kind,
            irp,
            ttid,
            file_object,
            file_key,
            extra_info,
            info_class: r.u32()?,
            file_path: r.utf16z()?,
        })
    }
}

/// 0x044C OperationEnd: P IrpPtr, P ExtraInfo (e.g. bytes transferred), u32 NtStatus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileIoOpEnd {
    pub irp: u64,
    pub extra_info: u64,
    pub nt_status: u32,
}

impl<'a> Decode<'a> for FileIoOpEnd {
    const NAME: &'static str = "FileIoOpEnd";

    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<FileIoOpEnd> {
        Ok(FileIoOpEnd {
            irp: r.ptr()?,
            extra_info: r.ptr()?,
            nt_status: r.u32()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::{kernel_event, utf16z};

    fn p(b: &mut Vec<u8>, ptr: u8, v: u64) {
        if ptr == 4 {
            b.extend((v as u32).to_le_bytes());
        } else {
            b.extend(v.to_le_bytes());
        }
    }

    /// v2 Create: IRP, TTID (P), FileObject, options, attributes, share, path at 3P+12.
    #[test]
    fn create_v2_and_v3() {
        for ptr in [4u8, 8] {
            let mut b = Vec::new();
            p(&mut b, ptr, 0x111);
            p(&mut b, ptr, 77);
            p(&mut b, ptr, 0x222);
            b.extend(0x0100_0040u32.to_le_bytes());
            b.extend(0x80u32.to_le_bytes());
            b.extend(3u32.to_le_bytes());
            assert_eq!(b.len(), 3 * ptr as usize + 12);
            b.extend(utf16z(r"\Device\HarddiskVolume2\a.txt"));
            let c = FileIoCreate::decode(&kernel_event(0x0440, 2, ptr, &b)).unwrap();
            assert_eq!((c.irp, c.ttid, c.file_object), (0x111, 77, 0x222));
            assert_eq!((c.create_options, c.create_disposition()), (0x0100_0040, 1));
            assert_eq!((c.file_attributes, c.share_access), (0x80, 3));
            assert_eq!(c.open_path, r"\Device\HarddiskVolume2\a.txt");

            // v3: IRP, FileObject, u32 TTID, ... path at 2P+16.
            let mut b = Vec::new();
            p(&mut b, ptr, 0x111);
            p(&mut b, ptr, 0x222);
            b.extend(77u32.to_le_bytes());
            b.extend(0x40u32.to_le_bytes());
            b.extend(0x80u32.to_le_bytes());
            b.extend(3u32.to_le_bytes());
            assert_eq!(b.len(), 2 * ptr as usize + 16);
            b.extend(utf16z("x"));
            let c = FileIoCreate::decode(&kernel_event(0x0440, 3, ptr, &b)).unwrap();
            assert_eq!(
                (c.irp, c.ttid, c.file_object, c.share_access),
                (0x111, 77, 0x222, 3)
            );
            assert_eq!(c.open_path, "x");
        }
    }

    #[test]
    fn read_write_v2_and_v3() {
        for ptr in [4u8, 8] {
            let mut b = Vec::new();
            b.extend(4096u64.to_le_bytes());
            p(&mut b, ptr, 0x111); // irp
            p(&mut b, ptr, 9); // ttid
            p(&mut b, ptr, 0x222); // file object
            p(&mut b, ptr, 0x333); // file key
            b.extend(512u32.to_le_bytes());
            b.extend(0x900u32.to_le_bytes());
            assert_eq!(b.len(), 16 + 4 * ptr as usize);
            let w = FileIoReadWrite::decode(&kernel_event(0x0444, 2, ptr, &b)).unwrap();
            assert!(w.write);
            assert_eq!((w.offset, w.irp, w.ttid), (4096, 0x111, 9));
            assert_eq!(
                (w.file_object, w.file_key, w.io_size, w.io_flags),
                (0x222, 0x333, 512, 0x900)
            );

            let mut b = Vec::new();
            b.extend(4096u64.to_le_bytes());
            p(&mut b, ptr, 0x111);
            p(&mut b, ptr, 0x222);
            p(&mut b, ptr, 0x333);
            b.extend(9u32.to_le_bytes());
            b.extend(512u32.to_le_bytes());
            b.extend(0x900u32.to_le_bytes());
            assert_eq!(b.len(), 20 + 3 * ptr as usize);
            let rd = FileIoReadWrite::decode(&kernel_event(0x0443, 3, ptr, &b)).unwrap();
            assert!(!rd.write);
            assert_eq!(
                (rd.irp, rd.ttid, rd.file_object, rd.file_key),
                (0x111, 9, 0x222, 0x333)
            );
            assert_eq!((rd.io_size, rd.io_flags), (512, 0x900));
        }
    }

    #[test]
    fn close_v3_and_info_v2() {
        let mut b = Vec::new();
        for v in [1u32, 2, 3] {
            b.extend(v.to_le_bytes());
        }
        b.extend(44u32.to_le_bytes());
        let c = FileIoSimpleOp::decode(&kernel_event(0x0442, 3, 4, &b)).unwrap();
        assert_eq!(c.kind, FileSimpleOpKind::Close);
        assert_eq!((c.irp, c.file_object, c.file_key, c.ttid), (1, 2, 3, 44));

        let mut b = Vec::new();
        for v in [1u64, 44, 2, 3, 0x55] {
            b.extend(v.to_le_bytes());
        }
        b.extend(13u32.to_le_bytes());
        let i = FileIoInfo::decode(&kernel_event(0x0446, 2, 8, &b)).unwrap();
        assert_eq!(i.kind, FileInfoKind::Delete);
        assert_eq!((i.irp, i.ttid, i.file_object, i.file_key), (1, 44, 2, 3));
        assert_eq!((i.extra_info, i.info_class), (0x55, 13));
    }
}
