//! The ingest queue of a team server (issue 36): an upload through any
//! replica becomes a job in the shared catalog; whichever replica takes it
//! reads the trace and records whether it is ready or failed, and sends its
//! progress to every replica (whose progress streams pass it on). A job is
//! held under a lease its holder renews while it reads: a holder that dies
//! (kill -9) stops renewing, and another replica takes the job once the
//! lease has run out. A one-process catalog (SQLite) has no queue: its
//! server reads what it is sent, as always.

use std::time::Duration;

/// Called with (trace id, progress JSON) for each progress sent; the JSON
/// is `done` when the job is finished.
pub type OnProgress = Box<dyn Fn(&str, &str) + Send + Sync>;

pub trait IngestQueue: Send + Sync {
    /// A job for trace `id`, held by `holder` (the replica that took the
    /// upload, which has its bytes at hand) for `lease`; false when a job
    /// for it already exists (then that one's holder reads it).
    fn enqueue(&self, id: &str, holder: &str, lease: Duration) -> anyhow::Result<bool>;
    /// The oldest job whose holder's lease ran out (it died, or stalled), now
    /// `holder`'s for `lease`; None when there is none. Replicas asking at
    /// once each get another job (`FOR UPDATE SKIP LOCKED`).
    fn claim(&self, holder: &str, lease: Duration) -> anyhow::Result<Option<String>>;
    /// Still reading: the lease renewed and `progress` (JSON) sent to every
    /// replica; false when the job is no longer `holder`'s.
    fn renew(
        &self,
        id: &str,
        holder: &str,
        lease: Duration,
        progress: &str,
    ) -> anyhow::Result<bool>;
    /// The job is done (its outcome is the trace's status in the catalog).
    fn finish(&self, id: &str, holder: &str) -> anyhow::Result<()>;
    /// Whether a job for `id` waits (Some(None)) or is held (Some(Some(holder))).
    fn holder(&self, id: &str) -> anyhow::Result<Option<Option<String>>>;
    /// Call `on` for every progress any replica sends from now on,
    /// listening again after a lost connection.
    fn listen(&self, on: OnProgress) -> anyhow::Result<()>;
    /// Tell every replica's listener `(topic, message)` on the same channel
    /// (a topic is never a trace id: `shared_pdbs::TOPIC`).
    fn announce(&self, topic: &str, message: &str) -> anyhow::Result<()>;
}
