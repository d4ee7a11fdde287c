//! Local files served by reference (`etlscope open`, `serve FILE`): the
//! read starts at once and the content hash that names the trace runs next
//! to it on its own thread, so hashing no longer delays the server or the
//! model. The id stays the SHA-256 of before (uploads and catalogs written
//! by older versions name the same file the same way, no migration).

use super::{changed_since_added, Slot, Store};
use crate::catalog::TraceEntry;
use model::progress::BuildProgress;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::time::Instant;

impl Store {
    /// Read `files` (already checked readable) as one trace while
    /// `register` hashes them and adds them to the catalog. The receiver
    /// gets the trace's id, or why it could not be added, once the hash is
    /// done; the model is held under that id when the read ends.
    pub fn open_local<R>(
        self: &Arc<Self>,
        files: Vec<PathBuf>,
        register: R,
    ) -> Receiver<anyhow::Result<String>>
    where
        R: FnOnce(&Store, &[PathBuf]) -> anyhow::Result<TraceEntry> + Send + 'static,
    {
        let (tx, rx) = channel();
        let store = self.clone();
        std::thread::spawn(move || {
            let progress = Arc::new(BuildProgress::default());
            let started = Instant::now();
            let sized: Vec<(PathBuf, u64)> = files
                .iter()
                .map(|p| {
                    (
                        p.clone(),
                        std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
                    )
                })
                .collect();
            std::thread::scope(|s| {
                let named = s.spawn(|| {
                    let entry = register(&store, &files);
                    let claimed = match &entry {
                        Ok(e) => store.claim(e, &progress),
                        Err(_) => false,
                    };
                    if !claimed {
                        // Nobody will take this read's result: stop it.
                        progress.cancel();
                    }
                    let _ = tx.send(
                        entry
                            .as_ref()
                            .map(|e| e.id.clone())
                            .map_err(|e| anyhow::anyhow!("{e:#}")),
                    );
                    entry.ok().filter(|_| claimed)
                });
                let changed = sized
                    .iter()
                    .find_map(|(p, size)| changed_since_added(p, *size, None));
                let (result, tickets) = match changed {
                    Some(why) => (Err(why), Vec::new()),
                    None => {
                        let paths: Vec<&Path> = sized.iter().map(|(p, _)| p.as_path()).collect();
                        store.read_admitted(&paths, &progress)
                    }
                };
                match named.join() {
                    Ok(Some(entry)) => {
                        store.finish_ingest(entry, &progress, started, result, tickets)
                    }
                    // Not ours to keep (already loaded or loading, or not hashed).
                    _ => drop(result),
                }
            });
        });
        rx
    }

    /// Make `progress` the ingest of `entry` unless the trace is already
    /// loaded or being read (a resumed ingest of the same files): false then.
    fn claim(&self, entry: &TraceEntry, progress: &Arc<BuildProgress>) -> bool {
        {
            let mut slots = self.slots();
            if matches!(
                slots.get(&entry.id),
                Some(Slot::Ingesting(_) | Slot::Ready(_))
            ) {
                return false;
            }
            slots.insert(entry.id.clone(), Slot::Ingesting(progress.clone()));
        }
        self.record_status(&entry.id, "ingesting", "");
        true
    }
}
