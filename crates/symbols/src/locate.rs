//! Finding the PDB of an identity in local folders: symstore layout
//! (`name.pdb/GUIDAGE/name.pdb`), flat folders, and the path the image
//! recorded. Every candidate is opened and its GUID/age checked: a PDB of
//! the right name but another build is reported, never used.

use crate::error::PdbError;
use crate::identity::PdbIdentity;
use crate::pdb::Pdb;
use etl::Guid;
use std::path::{Path, PathBuf};

/// The outcome of looking in one place.
#[derive(Debug)]
pub enum Lookup {
    Found {
        path: PathBuf,
        pdb: Pdb,
    },
    /// A PDB of that name whose GUID/age belong to another build.
    Mismatch {
        path: PathBuf,
        guid: Guid,
        age: u32,
    },
    /// A file of that name that does not parse as a PDB.
    Malformed {
        path: PathBuf,
        error: PdbError,
    },
    Missing,
}

impl Lookup {
    /// How much a failed lookup tells: prefer reporting a mismatch over a
    /// malformed file over nothing.
    fn rank(&self) -> u8 {
        match self {
            Lookup::Found { .. } => 3,
            Lookup::Mismatch { .. } => 2,
            Lookup::Malformed { .. } => 1,
            Lookup::Missing => 0,
        }
    }

    /// Keep the more telling of two outcomes (the first on a tie).
    pub fn or(self, other: Lookup) -> Lookup {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }
}

/// Paths where a symstore folder keeps `id`. Symstores written on Windows
/// keep the case of the name; some tools lower-case it: try both.
pub fn symstore_candidates(folder: &Path, id: &PdbIdentity) -> Vec<PathBuf> {
    if !id.is_safe_name() {
        return Vec::new();
    }
    let key = id.key();
    let lower = id.name.to_ascii_lowercase();
    let mut v = vec![folder.join(&id.name).join(&key).join(&id.name)];
    for (name, key) in [(&lower, key.clone()), (&lower, key.to_ascii_lowercase())] {
        let p = folder.join(name).join(&key).join(name);
        if !v.contains(&p) {
            v.push(p);
        }
    }
    v
}

/// Look for `id` in `folder`: symstore layout first, then `folder/name.pdb`.
pub fn find_in_folder(folder: &Path, id: &PdbIdentity) -> Lookup {
    let mut best = Lookup::Missing;
    let mut candidates = symstore_candidates(folder, id);
    if id.is_safe_name() {
        candidates.push(folder.join(&id.name));
    }
    for path in candidates {
        match check_file(&path, id) {
            found @ Lookup::Found { .. } => return found,
            other => best = best.or(other),
        }
    }
    best
}

/// Look for `id` only in symstore layout under `folder` (a cache).
pub fn find_in_symstore(folder: &Path, id: &PdbIdentity) -> Lookup {
    let mut best = Lookup::Missing;
    for path in symstore_candidates(folder, id) {
        match check_file(&path, id) {
            found @ Lookup::Found { .. } => return found,
            other => best = best.or(other),
        }
    }
    best
}

/// Open `path` if it is a file, and check it is the PDB of `id`.
pub fn check_file(path: &Path, id: &PdbIdentity) -> Lookup {
    if !path.is_file() {
        return Lookup::Missing;
    }
    match Pdb::open(path) {
        Ok(pdb) if pdb.matches(id.guid, id.age) => Lookup::Found {
            path: path.to_path_buf(),
            pdb,
        },
        Ok(pdb) => Lookup::Mismatch {
            path: path.to_path_buf(),
            guid: pdb.guid(),
            age: pdb.age(),
        },
        Err(error) => Lookup::Malformed {
            path: path.to_path_buf(),
            error,
        },
    }
}
