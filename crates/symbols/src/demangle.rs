//! Names from public symbols come decorated: C++ names mangled (`?add@
//! Accumulator@shapes@@QEAAXH@Z`), x86 `__stdcall`/`__fastcall` names with
//! `_name@12` / `@name@8`. Microsoft's public PDBs have nothing else, so
//! undecorate them to the `Namespace::Class::Method` form WPA shows.

use msvc_demangler::DemangleFlags;

pub fn display_name(raw: &str) -> String {
    if raw.starts_with('?') {
        if let Ok(s) = msvc_demangler::demangle(raw, DemangleFlags::NAME_ONLY) {
            return s;
        }
        return raw.to_string();
    }
    if let Some(plain) = strip_call_decoration(raw) {
        return plain.to_string();
    }
    raw.to_string()
}

/// `_name@12` (stdcall) and `@name@8` (fastcall) -> `name`.
fn strip_call_decoration(raw: &str) -> Option<&str> {
    let (head, digits) = raw.rsplit_once('@')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let name = head.strip_prefix('_').or_else(|| head.strip_prefix('@'))?;
    (!name.is_empty() && !name.contains('@')).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::display_name;

    #[test]
    fn undecorates_public_names() {
        // Public and procedure names of the same functions, from
        // fixtures/symbols/fixture.dump.txt (llvm-pdbutil --publics --symbols).
        assert_eq!(
            display_name("?add@Accumulator@shapes@@QEAAXH@Z"),
            "shapes::Accumulator::add"
        );
        assert_eq!(
            display_name("?scaled@Accumulator@shapes@@QEBAHH@Z"),
            "shapes::Accumulator::scaled"
        );
        assert_eq!(display_name("fixture_add"), "fixture_add");
        assert_eq!(display_name("_Sleep@4"), "Sleep");
        assert_eq!(display_name("@fast@8"), "fast");
        assert_eq!(display_name("__CxxFrameHandler3"), "__CxxFrameHandler3");
        assert_eq!(display_name("a@b"), "a@b");
        assert_eq!(display_name("?not valid"), "?not valid");
    }
}
