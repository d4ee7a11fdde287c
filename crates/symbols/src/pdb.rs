//! One loaded PDB: its identity, and RVA -> function, inline chain and
//! source line through `pdb-addr2line`.
//!
//! `pdb-addr2line`'s `Context` borrows the parsed streams it is made from,
//! so both live in one self-referential cell: the PDB is parsed once and
//! answers any number of lookups. A panic inside the parser (malformed
//! input the crates did not foresee) is caught and turned into an error; the
//! PDB then answers nothing more.

use crate::demangle::display_name;
use crate::error::PdbError;
use etl::Guid;
use pdb_addr2line::pdb::{FallibleIterator as _, PDB};
use pdb_addr2line::{Context, ContextPdbData, TypeFormatterFlags};
use std::fs::File;
use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// Where the PDB bytes come from: a file read on demand, or memory.
#[derive(Debug)]
enum Source {
    File(File),
    Bytes(Cursor<Vec<u8>>),
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Source::File(f) => f.read(buf),
            Source::Bytes(c) => c.read(buf),
        }
    }
}

impl Seek for Source {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        match self {
            Source::File(f) => f.seek(pos),
            Source::Bytes(c) => c.seek(pos),
        }
    }
}

type Data = ContextPdbData<'static, 'static, Source>;
type Ctx<'a> = Context<'a, 'static>;

self_cell::self_cell!(
    struct Cell {
        owner: Data,
        #[not_covariant]
        dependent: Ctx,
    }
);

/// What a frame's address resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionInfo {
    /// The procedure that contains the address (outermost, not inlined).
    pub name: String,
    pub start_rva: u32,
    /// Source position of the address within `name` (the call site when
    /// code of another function was inlined there).
    pub file: Option<String>,
    pub line: Option<u32>,
    /// Functions inlined at the address, innermost first; empty when none.
    pub inlined: Vec<SourceFrame>,
}

impl FunctionInfo {
    /// Innermost function at the address: the deepest inlinee, else `name`.
    pub fn leaf_name(&self) -> &str {
        self.inlined.first().map_or(&self.name, |f| &f.function)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFrame {
    pub function: String,
    pub file: Option<String>,
    pub line: Option<u32>,
}

pub struct Pdb {
    guid: Guid,
    /// Age in the DBI stream (what images record), and in the PDB info stream.
    dbi_age: Option<u32>,
    info_age: u32,
    cell: Option<Cell>,
}

impl std::fmt::Debug for Pdb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pdb")
            .field("guid", &self.guid)
            .field("dbi_age", &self.dbi_age)
            .field("info_age", &self.info_age)
            .finish()
    }
}

impl Pdb {
    pub fn open(path: &Path) -> Result<Pdb, PdbError> {
        let f = File::open(path).map_err(|e| PdbError::new(format!("{}: {e}", path.display())))?;
        Pdb::load(Source::File(f))
    }

    pub fn from_bytes(bytes: Vec<u8>) -> Result<Pdb, PdbError> {
        Pdb::load(Source::Bytes(Cursor::new(bytes)))
    }

    /// GUID and age, reading no more than the PDB info and DBI headers.
    pub fn read_identity(path: &Path) -> Result<(Guid, u32), PdbError> {
        let f = File::open(path).map_err(|e| PdbError::new(format!("{}: {e}", path.display())))?;
        guarded(|| {
            let mut pdb = PDB::open(Source::File(f))?;
            let (guid, dbi_age, info_age) = identity_of(&mut pdb)?;
            Ok((guid, dbi_age.unwrap_or(info_age)))
        })
    }

    fn load(source: Source) -> Result<Pdb, PdbError> {
        guarded(|| {
            let mut pdb = PDB::open(source)?;
            let (guid, dbi_age, info_age) = identity_of(&mut pdb)?;
            let data = ContextPdbData::try_from_pdb(pdb)?;
            let cell = Cell::try_new(data, |d| d.make_context_with_formatter_flags(name_flags()))?;
            Ok(Pdb {
                guid,
                dbi_age,
                info_age,
                cell: Some(cell),
            })
        })
    }

    pub fn guid(&self) -> Guid {
        self.guid
    }

    /// The age images record for this PDB (the DBI stream's, else the info stream's).
    pub fn age(&self) -> u32 {
        self.dbi_age.unwrap_or(self.info_age)
    }

    /// Whether this PDB is the one an image with `guid`/`age` was linked with.
    /// The DBI age is what the linker wrote into the image; tools that touch
    /// the PDB later may bump only the info stream's age.
    pub fn matches(&self, guid: Guid, age: u32) -> bool {
        self.guid == guid && (self.dbi_age == Some(age) || self.info_age == age)
    }

    /// Number of function entries (public symbols and section contributions).
    pub fn function_count(&self) -> usize {
        self.cell
            .as_ref()
            .map_or(0, |c| c.with_dependent(|_, ctx| ctx.function_count()))
    }

    /// The function containing `rva`, its inline chain and source position.
    /// `None` when no function covers it, or the PDB proved malformed there.
    pub fn lookup(&mut self, rva: u32) -> Option<FunctionInfo> {
        let cell = self.cell.as_ref()?;
        let found = catch_unwind(AssertUnwindSafe(|| {
            cell.with_dependent(|_, ctx| {
                let frames = ctx.find_frames(rva).ok()??;
                to_function_info(frames)
            })
        }));
        match found {
            Ok(info) => info,
            Err(_) => {
                // The parser's caches may be half-updated: stop using it.
                self.cell = None;
                None
            }
        }
    }
}

/// Names as WPA shows them: `Namespace::Class::Method`, no return type or
/// argument list.
fn name_flags() -> TypeFormatterFlags {
    TypeFormatterFlags::NO_FUNCTION_RETURN
        | TypeFormatterFlags::NO_ARGUMENTS
        | TypeFormatterFlags::NO_MEMBER_FUNCTION_STATIC
}

fn identity_of(pdb: &mut PDB<'static, Source>) -> Result<(Guid, Option<u32>, u32), PdbError> {
    let info = pdb.pdb_information()?;
    let dbi_age = pdb.debug_information()?.age();
    // Make sure the module list parses at all before anyone relies on it.
    pdb.debug_information()?.modules()?.count()?;
    Ok((Guid(*info.guid.as_bytes()), dbi_age, info.age))
}

fn to_function_info(f: pdb_addr2line::FunctionFrames<'_>) -> Option<FunctionInfo> {
    let (outer, inner) = f.frames.split_last()?;
    Some(FunctionInfo {
        name: outer
            .function
            .as_deref()
            .map_or_else(|| format!("sub_{:x}", f.start_rva), display_name),
        start_rva: f.start_rva,
        file: outer.file.as_deref().map(str::to_string),
        line: outer.line,
        inlined: inner
            .iter()
            .map(|fr| SourceFrame {
                function: fr
                    .function
                    .clone()
                    .unwrap_or_else(|| "<unnamed inline>".into()),
                file: fr.file.as_deref().map(str::to_string),
                line: fr.line,
            })
            .collect(),
    })
}

/// Run parser code, turning a panic into an error.
fn guarded<T>(f: impl FnOnce() -> Result<T, PdbError>) -> Result<T, PdbError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let why = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            Err(PdbError::new(format!("PDB parser panicked: {why}")))
        }
    }
}
