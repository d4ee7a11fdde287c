//! The ingest queue in PostgreSQL (see `catalog::queue`): one row per job
//! in `ingest_jobs`, taken with `FOR UPDATE SKIP LOCKED` under a lease;
//! progress goes out with `pg_notify` and comes in on a connection of its
//! own that `LISTEN`s.

use super::{s, PgCatalog};
use crate::catalog::queue::{IngestQueue, OnProgress};
use futures_util::StreamExt;
use std::time::Duration;
use tokio_postgres::{AsyncMessage, NoTls};

const CHANNEL: &str = "etlscope_progress";

fn millis(d: Duration) -> Box<dyn tokio_postgres::types::ToSql + Sync + Send> {
    Box::new(d.as_secs_f64() * 1000.0)
}

impl IngestQueue for PgCatalog {
    fn enqueue(&self, id: &str, holder: &str, lease: Duration) -> anyhow::Result<bool> {
        let added = self.execute(
            "INSERT INTO ingest_jobs (id, holder, lease_until)
             VALUES ($1, $2, now() + $3::float8 * interval '1 millisecond')
             ON CONFLICT (id) DO NOTHING",
            vec![s(id), s(holder), millis(lease)],
        )?;
        Ok(added == 1)
    }

    fn claim(&self, holder: &str, lease: Duration) -> anyhow::Result<Option<String>> {
        let rows = self.rows(
            "UPDATE ingest_jobs SET holder = $1, lease_until = now() + $2::float8 * interval '1 millisecond'
             WHERE id = (SELECT id FROM ingest_jobs
                         WHERE holder IS NULL OR lease_until < now()
                         ORDER BY enqueued_at LIMIT 1
                         FOR UPDATE SKIP LOCKED)
             RETURNING id",
            vec![s(holder), millis(lease)],
        )?;
        Ok(rows.first().map(|r| r.get(0)))
    }

    fn renew(
        &self,
        id: &str,
        holder: &str,
        lease: Duration,
        progress: &str,
    ) -> anyhow::Result<bool> {
        let rows = self.rows(
            "WITH held AS (
                 UPDATE ingest_jobs SET lease_until = now() + $3::float8 * interval '1 millisecond'
                 WHERE id = $1 AND holder = $2 RETURNING id)
             SELECT pg_notify('etlscope_progress', held.id || ' ' || $4::text) FROM held",
            vec![s(id), s(holder), millis(lease), s(progress)],
        )?;
        Ok(!rows.is_empty())
    }

    fn finish(&self, id: &str, holder: &str) -> anyhow::Result<()> {
        self.rows(
            "WITH gone AS (DELETE FROM ingest_jobs WHERE id = $1 AND holder = $2 RETURNING id)
             SELECT pg_notify('etlscope_progress', gone.id || ' done') FROM gone",
            vec![s(id), s(holder)],
        )?;
        Ok(())
    }

    fn holder(&self, id: &str) -> anyhow::Result<Option<Option<String>>> {
        let rows = self.rows("SELECT holder FROM ingest_jobs WHERE id = $1", vec![s(id)])?;
        Ok(rows.first().map(|r| r.get(0)))
    }

    fn announce(&self, topic: &str, message: &str) -> anyhow::Result<()> {
        self.rows(
            "SELECT pg_notify('etlscope_progress', $1::text || ' ' || $2::text)",
            vec![s(topic), s(message)],
        )?;
        Ok(())
    }

    fn listen(&self, on: OnProgress) -> anyhow::Result<()> {
        let url = self.url.clone();
        self.rt.spawn(async move {
            loop {
                if let Ok((client, mut conn)) = tokio_postgres::connect(&url, NoTls).await {
                    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
                    let driver = tokio::spawn(async move {
                        let mut messages =
                            futures_util::stream::poll_fn(move |cx| conn.poll_message(cx));
                        while let Some(m) = messages.next().await {
                            match m {
                                Ok(AsyncMessage::Notification(n)) => {
                                    let _ = tx.send(n.payload().to_string());
                                }
                                Ok(_) => {}
                                Err(_) => break,
                            }
                        }
                    });
                    if client
                        .batch_execute(&format!("LISTEN {CHANNEL}"))
                        .await
                        .is_ok()
                    {
                        while let Some(p) = rx.recv().await {
                            if let Some((id, json)) = p.split_once(' ') {
                                on(id, json);
                            }
                        }
                    }
                    driver.abort();
                }
                tracing::warn!("progress of other replicas: listening again in 1 s");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
        Ok(())
    }
}
