//! Summaries of traces that have none (added before the library existed,
//! or whose summary is of an older format): made once, one trace at a
//! time, on a thread of its own started with the server, so serving never
//! waits for it. A trace not in memory is read as an upload's check is
//! (the first dropped when memory is wanted); its ingest writes the summary.

use crate::store::Store;
use std::sync::Arc;
use std::time::Duration;

/// Start the sweep; it ends once every ready trace has a summary.
pub fn start(store: Arc<Store>) {
    let spawned = std::thread::Builder::new()
        .name("library-sweep".into())
        .spawn(move || {
            // Let the server answer its first requests before reading traces.
            std::thread::sleep(Duration::from_millis(200));
            if let Err(e) = sweep(&store) {
                tracing::warn!(error = %format!("{e:#}"), "library sweep stopped");
            }
        });
    if spawned.is_err() {
        tracing::warn!("cannot start the library sweep's thread");
    }
}

fn sweep(store: &Arc<Store>) -> anyhow::Result<()> {
    let have: std::collections::HashMap<String, i64> =
        store.catalog.summaries()?.into_iter().collect();
    let missing: Vec<_> = store
        .catalog
        .list()?
        .into_iter()
        .filter(|e| e.status == "ready")
        .filter(|e| {
            have.get(&e.id)
                .is_none_or(|&v| v < super::schema::SUMMARY_VERSION)
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    tracing::info!(
        traces = missing.len(),
        "making the library summaries of traces that have none"
    );
    for e in missing {
        store.summarize_or_read(e);
    }
    Ok(())
}
