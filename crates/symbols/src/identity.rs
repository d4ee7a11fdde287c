//! The identity an image records for its PDB (CodeView RSDS record, which
//! ETW carries as DbgID_RSDS) and the symstore key derived from it.

use etl::Guid;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PdbIdentity {
    /// File name of the PDB (`ntdll.pdb`), without any folder.
    pub name: String,
    pub guid: Guid,
    pub age: u32,
}

impl PdbIdentity {
    /// From a recorded PDB path, which may be a full Windows or Unix path.
    pub fn new(recorded: &str, guid: Guid, age: u32) -> PdbIdentity {
        let name = recorded.rsplit(['\\', '/']).next().unwrap_or(recorded);
        PdbIdentity {
            name: name.to_string(),
            guid,
            age,
        }
    }

    /// `GUIDAGE`: 32 upper-case hex digits without dashes, then the age in hex.
    pub fn key(&self) -> String {
        let mut s = String::with_capacity(40);
        for b in self.guid.0 {
            s.push_str(&format!("{b:02X}"));
        }
        s.push_str(&format!("{:X}", self.age));
        s
    }

    /// `name.pdb/GUIDAGE/name.pdb`, with `/` separators (URL and path).
    pub fn symstore_path(&self) -> String {
        format!("{}/{}/{}", self.name, self.key(), self.name)
    }

    /// The name is safe to join to a folder or URL: no separators, no `..`.
    pub fn is_safe_name(&self) -> bool {
        !self.name.is_empty()
            && self.name != "."
            && self.name != ".."
            && !self.name.contains(['/', '\\', ':', '\0'])
    }
}

impl fmt::Display for PdbIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {{{}}} age {}", self.name, self.guid, self.age)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_is_upper_hex_guid_then_hex_age() {
        // GUID and age of fixtures/symbols/fixture.pdb per llvm-pdbutil's summary.
        let g = Guid::parse("29D66063-AFD3-3484-4C4C-44205044422E").unwrap();
        let id = PdbIdentity::new(r"C:\build\fixture.pdb", g, 26);
        assert_eq!(id.name, "fixture.pdb");
        assert_eq!(id.key(), "29D66063AFD334844C4C44205044422E1A");
        assert_eq!(
            id.symstore_path(),
            "fixture.pdb/29D66063AFD334844C4C44205044422E1A/fixture.pdb"
        );
    }

    #[test]
    fn unsafe_names_are_refused() {
        let g = Guid::default();
        assert!(!PdbIdentity::new("..", g, 1).is_safe_name());
        assert!(!PdbIdentity::new("", g, 1).is_safe_name());
        assert!(PdbIdentity::new("a.pdb", g, 1).is_safe_name());
    }
}
