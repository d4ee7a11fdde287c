//! The accept loop: hyper's HTTP/1 with the limits `axum::serve` does not
//! expose. Every connection is accepted at once and placed by
//! `conn_limits`: heads still arriving have a budget of their own (the
//! oldest stalled one is closed for a newcomer), served connections the
//! rest, so clients that send whole requests are served while slow ones
//! wait. A request head must arrive whole within `header_timeout`
//! (hyper's timer runs from the first read of a head, not per byte);
//! request bodies have an idle timeout of their own
//! (`ApiConfig::body_idle_timeout`). Each request carries its peer's
//! address (`ConnectInfo`, for per-client limits), and hyper's own answers
//! to unreadable requests get the JSON error shape (`parse_errors`).

use super::conn_limits::{Limits, Registry};
use super::parse_errors::JsonParseErrors;
use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};

/// How long open connections get to finish after a stop signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// How much of a new connection is looked at for a whole head.
const PEEK_BYTES: usize = 8192;

pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    header_timeout: Duration,
    shutdown: impl std::future::Future<Output = ()>,
) -> anyhow::Result<()> {
    let registry = Arc::new(Registry::new(limits));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        // Our own limit (api::shape) answers 431 in the JSON shape first.
        .max_headers(crate::api::MAX_HEADERS_PARSED);
    tokio::pin!(shutdown);
    loop {
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
        let Some((stream, complete)) = whole_head_arrived(stream) else {
            continue;
        };
        let ticket = registry.admit(client_key(peer.ip()), complete);
        let svc = FirstHeadWaits {
            inner: TowerToHyperService::new(router.clone()),
            registry: registry.clone(),
            id: ticket.id,
            promoted: Arc::new(AtomicBool::new(false)),
            peer,
        };
        let io = TokioIo::new(JsonParseErrors::new(stream));
        let conn = graceful.watch(http.serve_connection(io, svc));
        let registry = registry.clone();
        tokio::spawn(async move {
            tokio::select! {
                r = conn => if let Err(e) = r {
                    tracing::debug!(error = %e, "connection ended with an error");
                },
                // Closed to make room for a newer head.
                () = ticket.close.notified() => {}
            }
            registry.release(ticket.id);
        });
        // Let the connections accepted so far read their heads before more
        // are accepted (and older heads closed for them).
        tokio::task::yield_now().await;
    }
    drop(listener);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown()).await;
    Ok(())
}

/// The router, behind a wait for a served place once the first head is whole.
#[derive(Clone)]
struct FirstHeadWaits {
    inner: TowerToHyperService<Router>,
    registry: Arc<Registry>,
    id: u64,
    promoted: Arc<AtomicBool>,
    peer: std::net::SocketAddr,
}

impl hyper::service::Service<Request<Incoming>> for FirstHeadWaits {
    type Response = axum::response::Response;
    type Error = Closed;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Closed>> + Send>>;

    fn call(&self, mut req: Request<Incoming>) -> Self::Future {
        req.extensions_mut().insert(ConnectInfo(self.peer));
        let this = self.clone();
        Box::pin(async move {
            // HTTP/1: one request at a time, so a plain flag will do.
            if !this.promoted.load(Ordering::Relaxed) {
                if !this.registry.promote(this.id).await {
                    return Err(Closed);
                }
                this.promoted.store(true, Ordering::Relaxed);
            }
            // The router never fails (its error is Infallible).
            hyper::service::Service::call(&this.inner, req)
                .await
                .map_err(|never| match never {})
        })
    }
}

/// A head closed while it waited for a served place.
#[derive(Debug)]
struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("closed to make room for newer connections")
    }
}

impl std::error::Error for Closed {}

/// Whether `stream` already holds a whole request head (the blank line),
/// as a client that sends its request at once has by the time it is
/// accepted; such a connection is never closed as a stalled head. `None`
/// when the socket cannot be handed between tokio and std.
fn whole_head_arrived(stream: TcpStream) -> Option<(TcpStream, bool)> {
    // tokio has no non-blocking peek; std's works on the same socket.
    let std = stream.into_std().ok()?;
    let mut buf = [0u8; PEEK_BYTES];
    let n = std.peek(&mut buf).unwrap_or(0);
    let complete = buf
        .get(..n)
        .is_some_and(|b| b.windows(4).any(|w| w == b"\r\n\r\n"));
    Some((TcpStream::from_std(std).ok()?, complete))
}

/// The address budgets are kept by: IPv4 (and IPv4-mapped IPv6) as is, IPv6
/// by its /64, the block one subscriber usually has.
fn client_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(bits.into())
        }
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::client_key;
    use std::net::IpAddr;

    #[test]
    fn ipv6_clients_share_their_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_key(a), client_key(b));
        assert_ne!(client_key(a), client_key(c));
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
        assert_eq!(client_key(mapped), IpAddr::from([127, 0, 0, 1]));
    }
}
