//! Registry (kernel group 0x09). Sources: Microsoft's MSNT_SystemTrace
//! class `Registry_TypeGroup1` (version 2: s64 InitialTime, u32 Status,
//! u32 Index, ptr KeyHandle, string KeyName) and TraceEvent's
//! KernelTraceEventParser `RegistryTraceData` (InitialTime at 0, Status 8,
//! Index 12, KeyHandle 16, KeyName at HostOffset(20, 1); the full name of
//! an operation's key is the name of the KCB its KeyHandle names, then
//! KeyName). Opcodes from the same class: 10 Create, 11 Open, 12 Delete,
//! 13 Query, 14 SetValue, 15 DeleteValue, 16 QueryValue, 17 EnumerateKey,
//! 18 EnumerateValueKey, 19 QueryMultipleValue, 20 SetInformation, 21
//! Flush, 22 KCBCreate, 23 KCBDelete, 24 KCBRundownBegin, 25
//! KCBRundownEnd, 26 Virtualize, 27 Close. KCB events name a key control
//! block (KeyHandle) by its full path; value operations' KeyName is the
//! value's name.

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registry {
    pub opcode: u8,
    /// Clock value when the operation began; the event is its end.
    pub initial_time: i64,
    /// NTSTATUS.
    pub status: u32,
    pub index: u32,
    /// The KCB the operation is relative to (0: KeyName is absolute).
    pub key_handle: u64,
    pub key_name: String,
}

/// The operation name of a registry opcode (`None`: not one).
pub fn op_name(opcode: u8) -> Option<&'static str> {
    Some(match opcode {
        10 => "Create",
        11 => "Open",
        12 => "Delete",
        13 => "Query",
        14 => "SetValue",
        15 => "DeleteValue",
        16 => "QueryValue",
        17 => "EnumerateKey",
        18 => "EnumerateValueKey",
        19 => "QueryMultipleValue",
        20 => "SetInformation",
        21 => "Flush",
        22 => "KCBCreate",
        23 => "KCBDelete",
        24 => "KCBRundownBegin",
        25 => "KCBRundownEnd",
        26 => "Virtualize",
        27 => "Close",
        _ => return None,
    })
}

impl Registry {
    /// KCBCreate, KCBRundownBegin/End: KeyName is the KCB's full path.
    pub fn names_kcb(&self) -> bool {
        matches!(self.opcode, 22 | 24 | 25)
    }
    /// Operations whose KeyName is a value's name, not a key's.
    pub fn is_value_op(&self) -> bool {
        matches!(self.opcode, 14 | 15 | 16 | 18 | 19)
    }
}

impl<'a> Decode<'a> for Registry {
    const NAME: &'static str = "Registry";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<Registry> {
        let opcode = ev.hook_id.map_or(0, |h| h as u8);
        if op_name(opcode).is_none() {
            return Err(r.malformed("not a registry opcode"));
        }
        Ok(Registry {
            opcode,
            initial_time: r.i64()?,
            status: r.u32()?,
            index: r.u32()?,
            key_handle: r.ptr()?,
            key_name: if r.at_end() {
                String::new()
            } else {
                r.utf16z()?
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::{kernel_event, utf16z};

    #[test]
    fn open_relative_to_a_kcb() {
        let mut b = 1234i64.to_le_bytes().to_vec();
        b.extend(0xC000_0034u32.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(0xFFFF_C001_0000_0010u64.to_le_bytes());
        b.extend(utf16z(r"Software\Contoso"));
        let e = Registry::decode(&kernel_event(0x090B, 2, 8, &b)).unwrap();
        assert_eq!(
            (e.opcode, e.initial_time, e.status),
            (11, 1234, 0xC000_0034)
        );
        assert_eq!(e.key_handle, 0xFFFF_C001_0000_0010);
        assert_eq!(e.key_name, r"Software\Contoso");
        assert!(!e.names_kcb() && !e.is_value_op());
        assert!(Registry::decode(&kernel_event(0x0909, 2, 8, &b)).is_err());
    }
}
