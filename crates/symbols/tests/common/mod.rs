//! Shared test helpers: fixture paths, expected values derived by
//! llvm-pdbutil (fixtures/symbols/build.sh), a model with frames at every
//! function, temp folders, and a tiny local HTTP symbol server.
#![allow(dead_code)]

use etl::Guid;
use model::frames::FrameTable;
use model::images::ModuleTable;
use model::strings::StringTable;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use symbols::PdbIdentity;

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/symbols")
}

/// One line of `*.functions.txt`: `RVA_HEX SIZE KIND NAME`, from llvm-pdbutil.
#[derive(Debug, Clone)]
pub struct Expected {
    pub rva: u32,
    pub size: u32,
    pub kind: String,
    pub name: String,
}

pub fn expected_functions(file: &str) -> Vec<Expected> {
    std::fs::read_to_string(fixtures().join(file))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut p = l.splitn(4, ' ');
            Expected {
                rva: u32::from_str_radix(p.next().unwrap(), 16).unwrap(),
                size: p.next().unwrap().parse().unwrap(),
                kind: p.next().unwrap().to_string(),
                name: p.next().unwrap().to_string(),
            }
        })
        .collect()
}

/// `fixture.identity.txt` / `cppcon.identity.txt`: `PATH GUID AGE` per line.
pub fn expected_identity(file: &str, pdb: &str) -> PdbIdentity {
    let text = std::fs::read_to_string(fixtures().join(file)).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{pdb} ")))
        .unwrap();
    let p: Vec<&str> = line.split(' ').collect();
    PdbIdentity::new(p[0], Guid::parse(p[1]).unwrap(), p[2].parse().unwrap())
}

pub fn fixture_identity() -> PdbIdentity {
    expected_identity("fixture.identity.txt", "fixture.pdb")
}

/// A model with one module `fixture.dll` carrying `id`, and frames at
/// `rvas`; returns the frame rows in `rvas` order.
pub fn model_with(
    id: &PdbIdentity,
    rvas: &[u32],
) -> (ModuleTable, FrameTable, StringTable, Vec<u32>) {
    let mut strings = StringTable::default();
    let mut modules = ModuleTable::default();
    let name = strings.intern("fixture.dll");
    let path = strings.intern(r"C:\src\fixture.dll");
    let m = modules.push(name, path, 0x3000, 0, 0);
    modules.pdb_guid[m as usize] = Some(id.guid);
    modules.pdb_age[m as usize] = id.age;
    modules.pdb_name[m as usize] = strings.intern(&id.name);
    let mut frames = FrameTable::default();
    let rows = rvas
        .iter()
        .map(|&r| frames.intern_module_frame(m, u64::from(r)))
        .collect();
    (modules, frames, strings, rows)
}

/// Start, middle and last byte of every expected function.
pub fn probes(functions: &[Expected]) -> Vec<(u32, String)> {
    let mut v = Vec::new();
    for f in functions {
        let last = f.rva + f.size.max(1) - 1;
        for rva in [f.rva, f.rva + f.size / 2, last] {
            v.push((rva, f.name.clone()));
        }
    }
    v
}

#[allow(unused_imports)] // not every test binary writes files
pub use testdata::TempDir;

/// Copy `pdb` into `store` in symstore layout for `id`.
pub fn put_in_symstore(store: &Path, id: &PdbIdentity, pdb: &Path) -> PathBuf {
    let dir = store.join(&id.name).join(id.key());
    std::fs::create_dir_all(&dir).unwrap();
    let dest = dir.join(&id.name);
    std::fs::copy(pdb, &dest).unwrap();
    dest
}

/// A minimal HTTP/1.1 file server on 127.0.0.1 serving `root`; counts and
/// records the request paths it receives. One request per connection.
pub struct LocalServer {
    pub url: String,
    pub requests: Arc<Mutex<Vec<String>>>,
}

/// The path of the request on `stream`, its head read to the blank line
/// (None when the request line cannot be read).
pub fn request_path(stream: &TcpStream) -> Option<String> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h == "\r\n" || h.is_empty() {
            break;
        }
    }
    Some(line.split(' ').nth(1).unwrap_or("/").to_string())
}

impl LocalServer {
    pub fn start(root: PathBuf) -> LocalServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/symbols", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let Some(path) = request_path(&stream) else {
                    continue;
                };
                log.lock().unwrap().push(path.clone());
                let rel = path.trim_start_matches("/symbols/");
                let file = root.join(rel);
                let ok = !rel.contains("..") && file.is_file();
                let body = if ok {
                    std::fs::read(&file).unwrap()
                } else {
                    Vec::new()
                };
                let head = format!(
                    "HTTP/1.1 {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    if ok { "200 OK" } else { "404 Not Found" },
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        LocalServer { url, requests }
    }

    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}
