//! Image events: load (0x140A, and 0x030A under the process group), unload
//! (0x1402), rundown (0x1403/0x1404), and KernelBase / HypercallPage.
//!
//! Layout (P = pointer size; TE-K `ImageLoadTraceData`, etl-format C.3):
//! v0: P ImageBase, P ImageSize, UTF-16 FileName. v1: adds u32 ProcessId
//! before the name. v2+: P base, P size, u32 pid, u32 checksum,
//! u32 TimeDateStamp, u8 SignatureLevel, u8 SignatureType (v3; reserved in
//! v2), u16 reserved, P DefaultBase, 4 x u32 reserved, UTF-16 FileName.

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    Load,
    Unload,
    DcStart,
    DcEnd,
}

impl ImageKind {
    pub fn from_hook(hook: u16) -> Option<ImageKind> {
        Some(match hook {
            0x140A | 0x030A => ImageKind::Load,
            0x1402 => ImageKind::Unload,
            0x1403 => ImageKind::DcStart,
            0x1404 => ImageKind::DcEnd,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub kind: ImageKind,
    pub image_base: u64,
    pub image_size: u64,
    /// Owning process; 0 for kernel-mode images (visible from every process).
    pub pid: u32,
    pub checksum: u32,
    pub time_date_stamp: u32,
    pub signature_level: u8,
    pub signature_type: u8,
    pub default_base: u64,
    /// NT path (e.g. `\Device\HarddiskVolume2\Windows\System32\ntdll.dll`).
    pub file_name: String,
}

impl<'a> Decode<'a> for Image {
    const NAME: &'static str = "Image";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<Image> {
        let kind = ev
            .hook_id
            .and_then(ImageKind::from_hook)
            .ok_or_else(|| r.malformed("not an image hook id"))?;
        let v = ev.version;
        let mut i = Image {
            kind,
            image_base: r.ptr()?,
            image_size: r.ptr()?,
            pid: 0,
            checksum: 0,
            time_date_stamp: 0,
            signature_level: 0,
            signature_type: 0,
            default_base: 0,
            file_name: String::new(),
        };
        if v >= 1 {
            i.pid = r.u32()?;
        }
        if v >= 2 {
            i.checksum = r.u32()?;
            i.time_date_stamp = r.u32()?;
            let sig_level = r.u8()?;
            let sig_type = r.u8()?;
            if v >= 3 {
                i.signature_level = sig_level;
                i.signature_type = sig_type;
            }
            r.skip(2)?;
            i.default_base = r.ptr()?;
            r.skip(16)?;
        }
        i.file_name = r.utf16z()?;
        Ok(i)
    }
}

/// 0x1421 KernelBase / 0x1422 HypercallPage: one u64 address. [AIR; seen in shut]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelAddress {
    pub hypercall_page: bool,
    pub address: u64,
}

impl<'a> Decode<'a> for KernelAddress {
    const NAME: &'static str = "KernelBase";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<KernelAddress> {
        Ok(KernelAddress {
            hypercall_page: ev.hook_id == Some(0x1422),
            address: r.u64()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::{kernel_event, utf16z};

    /// Offsets for P = 4 from etl-format C.3 (file name at 44).
    #[test]
    fn v3_load_with_32_bit_pointers() {
        let mut b = Vec::new();
        b.extend(0x7700_0000u32.to_le_bytes());
        b.extend(0x15_7000u32.to_le_bytes());
        b.extend(1234u32.to_le_bytes());
        b.extend(0xABCDu32.to_le_bytes());
        b.extend(0x5000_0000u32.to_le_bytes());
        b.extend([12, 1, 0, 0]);
        b.extend(0x7800_0000u32.to_le_bytes());
        b.extend([0u8; 16]);
        assert_eq!(b.len(), 44);
        b.extend(utf16z(r"\Windows\SysWOW64\ntdll.dll"));
        let i = Image::decode(&kernel_event(0x140A, 3, 4, &b)).unwrap();
        assert_eq!(i.kind, ImageKind::Load);
        assert_eq!((i.image_base, i.image_size), (0x7700_0000, 0x15_7000));
        assert_eq!(
            (i.pid, i.checksum, i.time_date_stamp),
            (1234, 0xABCD, 0x5000_0000)
        );
        assert_eq!((i.signature_level, i.signature_type), (12, 1));
        assert_eq!(i.default_base, 0x7800_0000);
        assert_eq!(i.file_name, r"\Windows\SysWOW64\ntdll.dll");
    }

    #[test]
    fn v0_has_only_base_size_and_name() {
        let mut b = Vec::new();
        b.extend(0x1000u64.to_le_bytes());
        b.extend(0x2000u64.to_le_bytes());
        b.extend(utf16z("a.dll"));
        let i = Image::decode(&kernel_event(0x1402, 0, 8, &b)).unwrap();
        assert_eq!(
            (i.kind, i.image_base, i.image_size),
            (ImageKind::Unload, 0x1000, 0x2000)
        );
        assert_eq!(i.file_name, "a.dll");
    }
}
