//! The accept loop: hyper's HTTP/1 with the limits `axum::serve` does not
//! expose. A client gets `header_timeout` to send its request head
//! (slowloris), at most `max_connections` connections are served at once
//! (more wait in the kernel's backlog); request bodies have an idle timeout
//! of their own (`ApiConfig::body_idle_timeout`). Each request carries its
//! peer's address (`ConnectInfo`, for per-client limits), and hyper's own
//! answers to unreadable requests get the JSON error shape (`parse_errors`).

use super::parse_errors::JsonParseErrors;
use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::service::Service;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// How long open connections get to finish after a stop signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

pub async fn serve(
    listener: TcpListener,
    router: Router,
    max_connections: usize,
    header_timeout: Duration,
    shutdown: impl std::future::Future<Output = ()>,
) -> anyhow::Result<()> {
    let permits = Arc::new(Semaphore::new(max_connections.max(1)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        // Our own limit (api::shape) answers 431 in the JSON shape first.
        .max_headers(crate::api::MAX_HEADERS_PARSED);
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => p?,
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            a = listener.accept() => match a {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait, keep serving.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        stream.set_nodelay(true).ok();
        let app = TowerToHyperService::new(router.clone());
        let svc = hyper::service::service_fn(move |mut req: Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            app.call(req)
        });
        let io = TokioIo::new(JsonParseErrors::new(stream));
        let conn = graceful.watch(http.serve_connection(io, svc));
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown()).await;
    Ok(())
}
