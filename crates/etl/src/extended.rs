//! EVENT_HEADER_EXTENDED_DATA_ITEMs that follow an EventHeader.

use crate::le::{u16_at, u32_at, u64_at};

pub mod ext_type {
    pub const RELATED_ACTIVITYID: u16 = 1;
    pub const SID: u16 = 2;
    pub const TS_ID: u16 = 3;
    pub const INSTANCE_INFO: u16 = 4;
    pub const STACK_TRACE32: u16 = 5;
    pub const STACK_TRACE64: u16 = 6;
    pub const PEBS_INDEX: u16 = 7;
    pub const PMC_COUNTERS: u16 = 8;
    pub const PSM_KEY: u16 = 9;
    pub const EVENT_KEY: u16 = 10;
    pub const EVENT_SCHEMA_TL: u16 = 11;
    pub const PROV_TRAITS: u16 = 12;
    pub const PROCESS_START_KEY: u16 = 13;
    pub const CONTROL_GUID: u16 = 14;
    pub const QPC_DELTA: u16 = 15;
    pub const CONTAINER_ID: u16 = 16;
    pub const STACK_KEY32: u16 = 17;
    pub const STACK_KEY64: u16 = 18;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtendedItem<'a> {
    pub ext_type: u16,
    pub data: &'a [u8],
}

impl<'a> ExtendedItem<'a> {
    /// Frames of a STACK_TRACE32/64 item (after the u64 MatchId), leaf first.
    pub fn stack_frames(&self) -> Option<StackFrames<'a>> {
        let width = match self.ext_type {
            ext_type::STACK_TRACE32 => 4,
            ext_type::STACK_TRACE64 => 8,
            _ => return None,
        };
        Some(StackFrames {
            data: self.data.get(8..)?,
            width,
        })
    }

    pub fn stack_match_id(&self) -> Option<u64> {
        match self.ext_type {
            ext_type::STACK_TRACE32 | ext_type::STACK_TRACE64 => u64_at(self.data, 0),
            _ => None,
        }
    }
}

/// Addresses of a stack, 4 or 8 bytes each, zero-extended.
#[derive(Debug, Clone, Copy)]
pub struct StackFrames<'a> {
    data: &'a [u8],
    width: usize,
}

impl<'a> StackFrames<'a> {
    pub fn new(data: &'a [u8], width: usize) -> Self {
        StackFrames { data, width }
    }
    pub fn len(&self) -> usize {
        self.data.len() / self.width
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn get(&self, i: usize) -> Option<u64> {
        if self.width == 4 {
            u32_at(self.data, i * 4).map(u64::from)
        } else {
            u64_at(self.data, i * 8)
        }
    }
    pub fn iter(&self) -> impl Iterator<Item = u64> + 'a {
        let (data, width) = (self.data, self.width);
        (0..data.len() / width).map(move |i| {
            if width == 4 {
                u32_at(data, i * 4).map(u64::from).unwrap_or(0)
            } else {
                u64_at(data, i * 8).unwrap_or(0)
            }
        })
    }
}

/// Walks the linked list of extended items.
#[derive(Debug, Clone)]
pub struct ExtendedItems<'a> {
    data: &'a [u8],
    pos: usize,
    done: bool,
}

impl<'a> ExtendedItems<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        ExtendedItems {
            data,
            pos: 0,
            done: data.is_empty(),
        }
    }
}

impl<'a> Iterator for ExtendedItems<'a> {
    type Item = ExtendedItem<'a>;
    fn next(&mut self) -> Option<ExtendedItem<'a>> {
        if self.done {
            return None;
        }
        let p = self.pos;
        let (Some(ext_type), Some(link), Some(size)) = (
            u16_at(self.data, p + 2),
            u16_at(self.data, p + 4),
            u16_at(self.data, p + 6),
        ) else {
            self.done = true;
            return None;
        };
        let Some(data) = self.data.get(p + 8..p + 8 + size as usize) else {
            self.done = true;
            return None;
        };
        self.pos = (p + 8 + size as usize + 7) & !7;
        if link & 1 == 0 {
            self.done = true;
        }
        Some(ExtendedItem { ext_type, data })
    }
}

/// Length of the extended-item area starting at `data` (8-aligned end of the
/// last item), or None if the chain runs off the end.
pub fn extended_area_len(data: &[u8]) -> Option<usize> {
    let mut p = 0usize;
    loop {
        let link = u16_at(data, p + 4)?;
        let size = u16_at(data, p + 6)? as usize;
        let end = p + 8 + size;
        if end > data.len() {
            return None;
        }
        p = (end + 7) & !7;
        if link & 1 == 0 {
            return Some(p.min(data.len()));
        }
    }
}
