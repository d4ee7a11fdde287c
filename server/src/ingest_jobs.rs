//! A replica's part in the shared ingest queue (`catalog::queue`, issue
//! 36). The replica that takes an upload holds its job and reads it (it has
//! the bytes at hand) as an upload check (`Store::start_check`), renewing
//! the job's lease with its progress every half second, and finishes the
//! job once the trace's status is recorded. A thread takes the jobs whose
//! holder stopped renewing (killed mid-read). The progress other replicas
//! send is kept by trace id for the progress streams.

use crate::catalog::queue::IngestQueue;
use crate::catalog::TraceEntry;
use crate::store::{NotReady, Store};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// How long a job stays a holder's without a renewal: a replica killed
/// mid-read leaves its job to another after this.
pub const LEASE: Duration = Duration::from_secs(3);
const RENEW_EVERY: Duration = Duration::from_millis(500);
/// How often a replica looks for a job whose holder is gone.
const POLL: Duration = Duration::from_millis(250);

/// This replica's name in the queue and what it heard from the others.
#[derive(Default)]
pub struct Jobs {
    /// Its address, process and start time; set once it listens.
    holder: OnceLock<String>,
    /// The progress of reads other replicas hold, by trace id (JSON), as
    /// their notifications last told it.
    progress: Mutex<HashMap<String, String>>,
}

impl Jobs {
    /// The last progress another replica sent for `id`'s job.
    pub fn elsewhere(&self, id: &str) -> Option<String> {
        self.lock().get(id).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.progress.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn heard(&self, id: &str, json: &str) {
        if json == "done" {
            self.lock().remove(id);
        } else if self.lock().len() < 10_000 {
            self.lock().insert(id.to_string(), json.to_string());
        }
    }
}

/// Take part in the queue as the replica listening on `addr`: listen to
/// the others' progress and take lapsed jobs, on threads of their own.
pub fn start(store: Arc<Store>, addr: std::net::SocketAddr) -> anyhow::Result<()> {
    let Some(queue) = store.catalog.queue() else {
        return Ok(());
    };
    // Unique across hosts and restarts (0.0.0.0:8717 is every container's).
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let holder = format!("{addr}/{}/{nanos:x}", std::process::id());
    let _ = store.jobs.holder.set(holder.clone());
    let heard = store.clone();
    queue.listen(Box::new(move |id, json| {
        if id == crate::shared_pdbs::TOPIC {
            crate::shared_pdbs::heard(&heard, json);
        } else {
            heard.jobs.heard(id, json);
        }
    }))?;
    std::thread::Builder::new()
        .name("ingest-jobs".into())
        .spawn(move || loop {
            let Some(queue) = store.catalog.queue() else {
                return;
            };
            match queue.claim(&holder, LEASE) {
                Ok(Some(id)) => run(&store, queue, &holder, &id),
                Ok(None) => std::thread::sleep(POLL),
                Err(e) => {
                    tracing::warn!(error = %format!("{e:#}"), "cannot take an ingest job");
                    std::thread::sleep(Duration::from_secs(1));
                }
            }
        })?;
    Ok(())
}

/// Read an upload just added: as the holder of its job when the replicas
/// share a queue (another replica takes it if this one dies mid-read), else
/// as a one-process server does.
pub fn read_upload(store: &Arc<Store>, entry: TraceEntry) {
    let (Some(queue), Some(holder)) = (store.catalog.queue(), store.jobs.holder.get()) else {
        store.start_check(entry);
        return;
    };
    match queue.enqueue(&entry.id, holder, LEASE) {
        Ok(true) => {
            let (store, holder, id) = (store.clone(), holder.clone(), entry.id.clone());
            let spawned = std::thread::Builder::new()
                .name("ingest-job".into())
                .spawn(move || {
                    if let Some(queue) = store.catalog.queue() {
                        run(&store, queue, &holder, &id);
                    }
                });
            if spawned.is_err() {
                // The lease runs out and another replica reads it.
                tracing::warn!(id = %entry.id, "cannot start the ingest job's thread");
            }
        }
        // Another replica's job (the same bytes uploaded there too).
        Ok(false) => {}
        Err(e) => {
            tracing::warn!(id = %entry.id, error = %format!("{e:#}"), "cannot queue the ingest; reading it here");
            store.start_check(entry);
        }
    }
}

/// Read trace `id` for its job, renewing the lease with the progress.
fn run(store: &Arc<Store>, queue: &dyn IngestQueue, holder: &str, id: &str) {
    let entry = match store.catalog.get(id) {
        Ok(Some(e)) => e,
        // Deleted since: nothing to read.
        Ok(None) => {
            let _ = queue.finish(id, holder);
            return;
        }
        // The catalog is away: the lease runs out and the job is taken again.
        Err(_) => return,
    };
    tracing::info!(%id, holder, "took the ingest job");
    store.start_check(entry);
    loop {
        let json = match store.peek(id) {
            Err(NotReady::Ingesting(p)) => {
                let mut v = crate::api::traces::progress_json(&p);
                v["replica"] = serde_json::Value::String(holder.to_string());
                v.to_string()
            }
            _ => break,
        };
        match queue.renew(id, holder, LEASE, &json) {
            Ok(true) => {}
            // Taken by another (this one stalled past its lease): theirs now.
            Ok(false) => return,
            Err(e) => tracing::warn!(%id, error = %format!("{e:#}"), "cannot renew the ingest job"),
        }
        std::thread::sleep(RENEW_EVERY);
    }
    // Still pending (the object store was away): left for the lease to run
    // out, and read again then.
    let recorded =
        matches!(store.catalog.get(id), Ok(Some(e)) if e.status == "ready" || e.status == "failed");
    if recorded {
        if let Err(e) = queue.finish(id, holder) {
            tracing::warn!(%id, error = %format!("{e:#}"), "cannot finish the ingest job");
        }
    }
}
