//! Trace bytes in an S3-compatible object store (`--store s3://BUCKET/PREFIX`)
//! through the `object_store` crate, with a bounded local cache of the
//! files (`--cache-dir`, `--cache-gb`): a replica reads a trace from its
//! cache, fetching it from the store on a miss. Objects are named by the
//! trace's content hash (`PREFIX/<id>.etl`), so any replica finds any trace.
//!
//! Endpoint and credentials come from the standard variables
//! (AWS_ENDPOINT_URL or AWS_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
//! AWS_REGION, AWS_ALLOW_HTTP): MinIO, Garage, RustFS, s3s-fs, Ceph and AWS
//! itself all take them.

use super::lru_cache::LruCache;
use super::remote::{RemoteTraces, StoreError};
use futures_util::StreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::path::Path as ObjectPath;
use object_store::{BackoffConfig, ClientOptions, ObjectStore, RetryConfig, WriteMultipart};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Parts of a multipart upload (S3's least is 5 MiB but for the last).
const PART_BYTES: usize = 8 << 20;
/// Parts in flight at once: an upload holds at most about this many parts.
const PARTS_IN_FLIGHT: usize = 2;

fn classify(e: object_store::Error) -> StoreError {
    use object_store::Error as E;
    match e {
        E::NotFound { .. } => StoreError::Other(format!("not found: {e}")),
        // Requests that never got an answer (refused, reset, timed out)
        // and server errors that outlived the retries.
        other => {
            let text = other.to_string();
            let away = [
                "connect",
                "timed out",
                "timeout",
                "reset",
                "refused",
                "error sending request",
                "Server returned",
                "503",
                "500",
                "502",
            ]
            .iter()
            .any(|w| text.contains(w));
            if away {
                StoreError::Away(text)
            } else {
                StoreError::Other(text)
            }
        }
    }
}

pub struct ObjectTraces {
    store: Arc<dyn ObjectStore>,
    prefix: ObjectPath,
    cache: LruCache,
    rt: tokio::runtime::Runtime,
    /// Downloads under way, one per file: a second reader waits for it.
    fetching: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl ObjectTraces {
    /// `url` is `s3://BUCKET` or `s3://BUCKET/PREFIX`.
    pub fn open(url: &str, cache_dir: &Path, cache_bytes: u64) -> anyhow::Result<ObjectTraces> {
        let Some(rest) = url.strip_prefix("s3://") else {
            anyhow::bail!("--store {url:?}: expected s3://BUCKET/PREFIX or file:///DIR");
        };
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            anyhow::bail!("--store {url:?} names no bucket");
        }
        let mut builder = AmazonS3Builder::from_env().with_bucket_name(bucket);
        // The newer standard name, which object_store does not read itself.
        if let Ok(endpoint) = std::env::var("AWS_ENDPOINT_URL") {
            builder = builder.with_endpoint(endpoint);
        }
        let store = builder
            .with_client_options(
                ClientOptions::new()
                    .with_connect_timeout(Duration::from_secs(3))
                    .with_timeout(Duration::from_secs(60))
                    .with_allow_http(
                        std::env::var("AWS_ALLOW_HTTP").is_ok_and(|v| v == "true")
                            || std::env::var("AWS_ENDPOINT_URL")
                                .or_else(|_| std::env::var("AWS_ENDPOINT"))
                                .is_ok_and(|e| e.starts_with("http://")),
                    ),
            )
            // A store that is down answers 503 fast instead of after minutes of retries.
            .with_retry(RetryConfig {
                backoff: BackoffConfig::default(),
                max_retries: 2,
                retry_timeout: Duration::from_secs(10),
            })
            .build()?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("object-store")
            .enable_all()
            .build()?;
        Ok(ObjectTraces {
            store: Arc::new(store),
            prefix: ObjectPath::from(prefix.trim_matches('/')),
            cache: LruCache::open(cache_dir, cache_bytes)?,
            rt,
            fetching: Default::default(),
        })
    }

    fn fetch(&self, name: &str, size: u64) -> Result<(), StoreError> {
        self.cache.make_room(size, name);
        let part = self.cache.path(&format!("{name}.part"));
        let dest = self.cache.path(name);
        let store = self.store.clone();
        let key = self.key(name);
        let part2 = part.clone();
        let got = self.wait(async move {
            let mut body = store.get(&key).await.map_err(classify)?.into_stream();
            let mut file = tokio::fs::File::create(&part2)
                .await
                .map_err(|e| StoreError::Other(format!("cannot write the cache: {e}")))?;
            let mut n = 0u64;
            while let Some(chunk) = body.next().await {
                let chunk = chunk.map_err(classify)?;
                n += chunk.len() as u64;
                file.write_all(&chunk)
                    .await
                    .map_err(|e| StoreError::Other(format!("cannot write the cache: {e}")))?;
            }
            file.flush()
                .await
                .map_err(|e| StoreError::Other(format!("cannot write the cache: {e}")))?;
            Ok(n)
        });
        let n = match got {
            Ok(n) => n,
            Err(e) => {
                let _ = std::fs::remove_file(&part);
                return Err(e);
            }
        };
        if n != size {
            let _ = std::fs::remove_file(&part);
            return Err(StoreError::Other(format!(
                "{name} holds {n} bytes, the catalog says {size}"
            )));
        }
        std::fs::rename(&part, &dest)
            .map_err(|e| StoreError::Other(format!("cannot write the cache: {e}")))?;
        self.cache.added(name, n);
        Ok(())
    }

    /// The object of `name` under the prefix; `/` in it separates folders
    /// (`symbols/foo.pdb/KEY/foo.pdb`), each part kept as it is.
    fn key(&self, name: &str) -> ObjectPath {
        name.split('/')
            .filter(|p| !p.is_empty())
            .fold(self.prefix.clone(), |path, part| path.child(part))
    }

    /// Run `fut` on the store's runtime and wait here (from any thread,
    /// async handler or not).
    fn wait<T: Send + 'static>(
        &self,
        fut: impl Future<Output = Result<T, StoreError>> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.rt.spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv()
            .unwrap_or_else(|_| Err(StoreError::Other("the upload task stopped".into())))
    }
}

impl RemoteTraces for ObjectTraces {
    fn cache(&self) -> &LruCache {
        &self.cache
    }

    /// Copy the file at `from` to the object `name` in parts (the file is
    /// never read whole into memory).
    fn put_file(&self, from: &Path, name: &str) -> Result<(), StoreError> {
        let store = self.store.clone();
        let key = self.key(name);
        let from = from.to_path_buf();
        self.wait(async move {
            let mut file = tokio::fs::File::open(&from)
                .await
                .map_err(|e| StoreError::Other(format!("cannot read the upload: {e}")))?;
            let upload = store.put_multipart(&key).await.map_err(classify)?;
            let mut parts = WriteMultipart::new_with_chunk_size(upload, PART_BYTES);
            let mut buf = vec![0u8; 1 << 20];
            let sent = async {
                loop {
                    let n = file
                        .read(&mut buf)
                        .await
                        .map_err(|e| StoreError::Other(format!("cannot read the upload: {e}")))?;
                    if n == 0 {
                        return Ok(());
                    }
                    parts
                        .wait_for_capacity(PARTS_IN_FLIGHT)
                        .await
                        .map_err(classify)?;
                    parts.write(&buf[..n]);
                }
            }
            .await;
            match sent {
                Ok(()) => parts.finish().await.map(|_| ()).map_err(classify),
                Err(e) => {
                    let _ = parts.abort().await;
                    Err(e)
                }
            }
        })
    }

    /// The cached file of object `name`, fetched from the store on a miss
    /// (streamed to a `.part` file, renamed when whole and of `size` bytes).
    fn local(&self, name: &str, size: u64) -> Result<PathBuf, StoreError> {
        loop {
            if self.cache.hit(name) {
                return Ok(self.cache.path(name));
            }
            let mut fetching = self.fetching.lock().unwrap_or_else(|p| p.into_inner());
            if fetching.insert(name.to_string()) {
                break;
            }
            drop(fetching);
            std::thread::sleep(Duration::from_millis(50));
        }
        let got = self.fetch(name, size);
        self.fetching
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(name);
        got.map(|()| self.cache.path(name))
    }

    fn list(&self) -> Result<Vec<(String, Duration)>, StoreError> {
        let store = self.store.clone();
        let prefix = self.prefix.clone();
        self.wait(async move {
            let p = (!prefix.as_ref().is_empty()).then_some(prefix);
            let mut list = store.list(p.as_ref());
            let mut out = Vec::new();
            let now = std::time::SystemTime::now();
            while let Some(m) = list.next().await {
                let m = m.map_err(classify)?;
                let modified: std::time::SystemTime = m.last_modified.into();
                let age = now.duration_since(modified).unwrap_or_default();
                if let Some(n) = m.location.filename() {
                    out.push((n.to_string(), age));
                }
            }
            Ok(out)
        })
    }

    fn download(&self, name: &str, size: u64, dest: &Path) -> Result<(), StoreError> {
        let write_err =
            |e: std::io::Error| StoreError::Other(format!("cannot write {}: {e}", dest.display()));
        if let Some(dir) = dest.parent() {
            std::fs::create_dir_all(dir).map_err(write_err)?;
        }
        // Unique beside `dest`: replicas sharing the folder fetch at once.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let part = dest.with_extension(format!("part-{}-{nanos:x}", std::process::id()));
        let store = self.store.clone();
        let key = self.key(name);
        let part2 = part.clone();
        let got = self.wait(async move {
            let mut body = store.get(&key).await.map_err(classify)?.into_stream();
            let mut file = tokio::fs::File::create(&part2)
                .await
                .map_err(|e| StoreError::Other(format!("cannot write {}: {e}", part2.display())))?;
            let mut n = 0u64;
            while let Some(chunk) = body.next().await {
                let chunk = chunk.map_err(classify)?;
                n += chunk.len() as u64;
                // Never more than the catalog promised.
                if n > size {
                    break;
                }
                file.write_all(&chunk).await.map_err(|e| {
                    StoreError::Other(format!("cannot write {}: {e}", part2.display()))
                })?;
            }
            file.flush()
                .await
                .map_err(|e| StoreError::Other(format!("cannot write {}: {e}", part2.display())))?;
            Ok(n)
        });
        match got {
            Ok(n) if n == size => std::fs::rename(&part, dest).map_err(write_err),
            Ok(n) => {
                let _ = std::fs::remove_file(&part);
                Err(StoreError::Other(format!(
                    "{name} holds {n} bytes or more, the catalog says {size}"
                )))
            }
            Err(e) => {
                let _ = std::fs::remove_file(&part);
                Err(e)
            }
        }
    }

    /// Remove the object and its cached file.
    fn delete(&self, name: &str) -> Result<(), StoreError> {
        self.cache.remove(name);
        let store = self.store.clone();
        let key = self.key(name);
        self.wait(async move {
            match store.delete(&key).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(classify(e)),
            }
        })
    }
}
