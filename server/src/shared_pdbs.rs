//! Uploaded PDBs on a team server (issue 36): the replica that takes one
//! (`POST /api/symbols`) copies it to the object store
//! (`symbols/NAME/KEY/NAME`, its symstore path), records it in the catalog
//! (`named_files` of kind `pdb`, the body its size) and announces it on the
//! queue's channel. A replica that hears it and holds a loaded trace
//! needing it fetches it into its symbols folder and re-names that trace,
//! as a single server does for its own upload; one that missed the
//! announcement (restarting) finds it in the catalog the next time it names
//! a trace that needs it (`sync_for`).

use crate::store::Store;
use std::path::PathBuf;
use std::sync::Arc;

/// The catalog kind of uploaded PDBs' records.
pub const KIND: &str = "pdb";
/// The announcement's topic on the queue's channel (never a trace id).
pub const TOPIC: &str = "symbols";

/// The object holding the PDB of symstore path `rel`.
fn object_name(rel: &str) -> String {
    format!("symbols/{rel}")
}

/// `NAME/KEY/NAME` with plain parts (it came from the catalog or a
/// notification: joined to a folder only when it is one), and its KEY.
fn checked(rel: &str) -> Option<&str> {
    let parts: Vec<&str> = rel.split('/').collect();
    let plain = |p: &str| {
        !p.is_empty()
            && p.len() <= 255
            && !p.starts_with('.')
            && !p.contains(['\\', ':', '\0'])
            && !p.chars().any(char::is_control)
    };
    match parts.as_slice() {
        [name, key, again] if name == again && plain(name) && plain(key) => Some(key),
        _ => None,
    }
}

/// Share a PDB just received (its file at `from`, `size` bytes, symstore
/// path `rel`): the object, then its record. Nothing to do without a
/// remote store (a server of its own, or replicas sharing a folder).
pub fn publish(store: &Store, from: &std::path::Path, rel: &str, size: u64) -> anyhow::Result<()> {
    let Some(remote) = store.remote() else {
        return Ok(());
    };
    remote.put_file(from, &object_name(rel))?;
    store
        .catalog
        .put_named_file(KIND, rel, size.to_string().as_bytes())?;
    Ok(())
}

/// Tell the other replicas (after the file is in place here).
pub fn announce(store: &Store, rel: &str) {
    if store.remote().is_none() {
        return;
    }
    if let Some(queue) = store.catalog.queue() {
        if let Err(e) = queue.announce(TOPIC, rel) {
            // Replicas find it in the catalog when they next name a trace.
            tracing::warn!(pdb = rel, error = %format!("{e:#}"), "cannot announce the uploaded PDB");
        }
    }
}

/// Where the PDB of `rel` goes in this replica's symbols folder.
fn local_path(store: &Store, rel: &str) -> PathBuf {
    rel.split('/')
        .fold(store.symbols_dir.clone(), |p, part| p.join(part))
}

/// Fetch the PDB of `rel` (`size` bytes) unless this replica's folder
/// holds it already (replicas on one host may share the folder).
fn fetch(store: &Store, rel: &str, size: u64) -> anyhow::Result<()> {
    let Some(remote) = store.remote() else {
        return Ok(());
    };
    let dest = local_path(store, rel);
    if std::fs::metadata(&dest).is_ok_and(|m| m.len() == size) {
        return Ok(());
    }
    remote.download(&object_name(rel), size, &dest)?;
    tracing::info!(pdb = rel, "fetched an uploaded PDB from the object store");
    Ok(())
}

/// The recorded PDBs whose KEY is one of `keys` (upper-case hex), with sizes.
fn recorded(store: &Store, keys: &[String]) -> anyhow::Result<Vec<(String, u64)>> {
    Ok(store
        .catalog
        .named_files(KIND)?
        .into_iter()
        .filter_map(|(rel, body)| {
            let key = checked(&rel)?.to_ascii_uppercase();
            let size = std::str::from_utf8(&body).ok()?.trim().parse().ok()?;
            keys.contains(&key).then_some((rel, size))
        })
        .collect())
}

/// Before naming a trace whose modules want PDBs of `keys`: fetch those
/// that were uploaded through another replica.
pub fn sync_for(store: &Store, keys: &[String]) {
    if store.remote().is_none() || keys.is_empty() {
        return;
    }
    let found = match recorded(store, keys) {
        Ok(f) => f,
        Err(e) => {
            tracing::warn!(error = %format!("{e:#}"), "cannot read the uploaded PDBs from the catalog");
            return;
        }
    };
    for (rel, size) in found {
        if let Err(e) = fetch(store, &rel, size) {
            tracing::warn!(pdb = %rel, error = %format!("{e:#}"), "cannot fetch an uploaded PDB");
        }
    }
}

/// Another replica announced the PDB of `rel`: if a trace loaded here
/// needs it, fetch it and re-name those traces (off the listener's thread).
pub fn heard(store: &Arc<Store>, rel: &str) {
    let Some(key) = checked(rel).map(str::to_ascii_uppercase) else {
        return;
    };
    if !store.needs_pdb(&key) {
        return;
    }
    let (store, rel) = (store.clone(), rel.to_string());
    let spawned = std::thread::Builder::new()
        .name("shared-pdb".into())
        .spawn(move || {
            let fetched = recorded(&store, std::slice::from_ref(&key)).and_then(|found| {
                found
                    .iter()
                    .filter(|(r, _)| *r == rel)
                    .try_for_each(|(r, size)| fetch(&store, r, *size))
            });
            match fetched {
                Ok(()) => {
                    let ids = store.resymbolize_needing_key(&key);
                    tracing::info!(pdb = %rel, traces = ?ids, "re-naming for a PDB uploaded elsewhere");
                }
                Err(e) => {
                    tracing::warn!(pdb = %rel, error = %format!("{e:#}"), "cannot fetch an uploaded PDB")
                }
            }
        });
    if spawned.is_err() {
        tracing::warn!("cannot start the thread fetching an uploaded PDB");
    }
}

#[cfg(test)]
mod tests {
    use super::checked;

    #[test]
    fn only_plain_symstore_paths_are_taken() {
        assert_eq!(checked("a.pdb/ABC1/a.pdb"), Some("ABC1"));
        for bad in [
            "a.pdb/ABC1/b.pdb",
            "../ABC1/..",
            "a.pdb/../a.pdb",
            "a.pdb/ABC1",
            "/ABC1/",
            "a.pdb/A\\B/a.pdb",
            "a.pdb/ABC1/a.pdb/x",
        ] {
            assert_eq!(checked(bad), None, "{bad}");
        }
    }
}
