//! NT paths to drive-letter paths, from the trace's own SysConfig rundown:
//! VolumeMapping (`\Device\HarddiskVolume2\` -> `C:\`) and SystemPaths
//! (`\SystemRoot\` -> the Windows directory). Paths no mapping covers are
//! kept as they are.

use super::records::PathMapRec;

#[derive(Debug, Default, Clone)]
pub struct PathMapper {
    /// (NT prefix lower-cased, with trailing `\`, DOS prefix), longest first.
    prefixes: Vec<(String, String)>,
    /// Drive of the Windows directory (`C:`), for rooted paths without a
    /// device such as `\Windows\System32\x.dll` in image loads.
    system_drive: Option<String>,
}

fn with_slash(s: &str) -> String {
    if s.ends_with('\\') {
        s.to_string()
    } else {
        format!("{s}\\")
    }
}

impl PathMapper {
    pub fn new(recs: &[PathMapRec]) -> PathMapper {
        let mut prefixes: Vec<(String, String)> = Vec::new();
        for r in recs {
            let (nt, dos) = match r {
                PathMapRec::Volume { nt, dos } => (nt.as_str(), dos.as_str()),
                PathMapRec::WindowsDirectory(w) => ("\\SystemRoot", w.as_str()),
            };
            if nt.is_empty() {
                continue;
            }
            let nt = with_slash(nt).to_lowercase();
            if prefixes.iter().any(|(p, _)| *p == nt) {
                continue;
            }
            // `\??\` maps to nothing: `\??\C:\x` is `C:\x`.
            let dos = if dos.is_empty() {
                String::new()
            } else {
                with_slash(dos)
            };
            prefixes.push((nt, dos));
        }
        // Prefixes whose meaning no trace changes (PerfView's KernelToUser):
        // `\??\C:\x` is `C:\x`, and the multiple UNC provider's
        // `\Device\Mup\server\share` is `\\server\share`.
        for (nt, dos) in [("\\??\\", ""), ("\\device\\mup\\", "\\\\")] {
            if !prefixes.iter().any(|(p, _)| p == nt) {
                prefixes.push((nt.to_string(), dos.to_string()));
            }
        }
        prefixes.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        let system_drive = recs.iter().find_map(|r| match r {
            PathMapRec::WindowsDirectory(w) if w.get(1..2) == Some(":") => {
                w.get(..2).map(str::to_string)
            }
            _ => None,
        });
        PathMapper {
            prefixes,
            system_drive,
        }
    }

    /// `path` with its NT prefix replaced by the DOS one, if one matches.
    pub fn map(&self, path: &str) -> String {
        for (nt, dos) in &self.prefixes {
            let matched = path
                .get(..nt.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(nt));
            if matched {
                let rest = path.get(nt.len()..).unwrap_or("");
                return format!("{dos}{rest}");
            }
        }
        let rooted = path.starts_with('\\')
            && !path.starts_with("\\\\")
            && !path
                .get(..8)
                .is_some_and(|h| h.eq_ignore_ascii_case("\\device\\"));
        match &self.system_drive {
            Some(drive) if rooted => format!("{drive}{path}"),
            _ => path.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_volumes_and_system_root() {
        let m = PathMapper::new(&[
            PathMapRec::Volume {
                nt: "\\Device\\HarddiskVolume2".into(),
                dos: "C:".into(),
            },
            PathMapRec::WindowsDirectory("C:\\Windows\\".into()),
            PathMapRec::Volume {
                nt: "\\??\\".into(),
                dos: String::new(),
            },
        ]);
        assert_eq!(m.map("\\??\\C:\\x"), "C:\\x");
        assert_eq!(
            m.map("\\Device\\HarddiskVolume2\\Users\\a.txt"),
            "C:\\Users\\a.txt"
        );
        assert_eq!(
            m.map("\\SystemRoot\\System32\\ntdll.dll"),
            "C:\\Windows\\System32\\ntdll.dll"
        );
        // A longer volume number is not a prefix match of a shorter one.
        assert_eq!(
            m.map("\\Device\\HarddiskVolume23\\x"),
            "\\Device\\HarddiskVolume23\\x"
        );
    }
}
