//! `_NT_SYMBOL_PATH` syntax: entries separated by `;`, each a plain folder,
//! `srv*[CACHE*]...*SOURCE` (a chain of stores: the last is where symbols
//! come from, an `http(s)://` URL or a folder; the ones before it are caches),
//! `symsrv*symsrv.dll*...` (the long form of `srv*`), or `cache*[FOLDER]`
//! (a cache for the entries after it, and itself a symstore folder).

use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SymbolPathEntry {
    /// A folder holding PDBs flat or in symstore layout.
    Folder(PathBuf),
    /// `srv*...`: caches (searched first, the first one receives downloads)
    /// and the source, a URL or a folder in symstore layout.
    Server {
        caches: Vec<PathBuf>,
        source: String,
    },
    /// `cache*FOLDER`; `None` for `cache*` alone (the default cache).
    Cache(Option<PathBuf>),
}

impl SymbolPathEntry {
    pub fn is_http(source: &str) -> bool {
        let s = source.to_ascii_lowercase();
        s.starts_with("http://") || s.starts_with("https://")
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SymbolPath {
    pub entries: Vec<SymbolPathEntry>,
}

impl SymbolPath {
    /// Parse a symbol path. Never fails: empty entries are skipped, and an
    /// entry that is not `srv*`/`cache*` is a folder.
    pub fn parse(s: &str) -> SymbolPath {
        let entries = s
            .split(';')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .filter_map(parse_entry)
            .collect();
        SymbolPath { entries }
    }

    /// From env `_NT_SYMBOL_PATH` (empty when unset).
    pub fn from_env() -> SymbolPath {
        SymbolPath::parse(&std::env::var("_NT_SYMBOL_PATH").unwrap_or_default())
    }

    /// Entries of `self` followed by those of `other` (e.g. `--symbol-path`
    /// before `_NT_SYMBOL_PATH`).
    pub fn then(mut self, other: SymbolPath) -> SymbolPath {
        self.entries.extend(other.entries);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

fn parse_entry(e: &str) -> Option<SymbolPathEntry> {
    let parts: Vec<&str> = e.split('*').map(str::trim).collect();
    let head = parts.first().map(|h| h.to_ascii_lowercase());
    match head.as_deref() {
        Some("srv") => server(parts.get(1..).unwrap_or(&[])),
        // symsrv*symsrv.dll*STORE*...: the DLL name is Windows plumbing.
        Some("symsrv") => server(parts.get(2..).unwrap_or(&[])),
        Some("cache") => {
            let folder = parts.get(1).filter(|f| !f.is_empty()).map(PathBuf::from);
            Some(SymbolPathEntry::Cache(folder))
        }
        _ => Some(SymbolPathEntry::Folder(PathBuf::from(e))),
    }
}

fn server(stores: &[&str]) -> Option<SymbolPathEntry> {
    let stores: Vec<&str> = stores.iter().copied().filter(|s| !s.is_empty()).collect();
    let (source, caches) = stores.split_last()?;
    Some(SymbolPathEntry::Server {
        caches: caches.iter().map(PathBuf::from).collect(),
        source: source.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use SymbolPathEntry::*;

    #[test]
    fn parses_the_usual_forms() {
        let p = SymbolPath::parse(
            r" C:\syms ; srv*C:\cache*https://msdl.microsoft.com/download/symbols;cache*D:\c;;srv*https://x/y",
        );
        assert_eq!(
            p.entries,
            vec![
                Folder(PathBuf::from(r"C:\syms")),
                Server {
                    caches: vec![PathBuf::from(r"C:\cache")],
                    source: "https://msdl.microsoft.com/download/symbols".into()
                },
                Cache(Some(PathBuf::from(r"D:\c"))),
                Server {
                    caches: vec![],
                    source: "https://x/y".into()
                },
            ]
        );
    }

    #[test]
    fn long_forms_and_oddities() {
        let p = SymbolPath::parse(
            r"symsrv*symsrv.dll*/tmp/c*/tmp/d*http://h/s;cache*;SRV*/srv/store;srv*",
        );
        assert_eq!(
            p.entries,
            vec![
                Server {
                    caches: vec![PathBuf::from("/tmp/c"), PathBuf::from("/tmp/d")],
                    source: "http://h/s".into()
                },
                Cache(None),
                Server {
                    caches: vec![],
                    source: "/srv/store".into()
                },
            ]
        );
        assert!(SymbolPath::parse(" ; ;").is_empty());
        assert!(SymbolPathEntry::is_http("HTTPS://a"));
        assert!(!SymbolPathEntry::is_http("/srv"));
    }
}
