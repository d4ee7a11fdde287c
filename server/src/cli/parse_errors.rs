//! hyper answers a request it cannot read (more headers than it parses, a
//! head over its buffer, a URI over 65,534 bytes, bytes that are not
//! HTTP) by itself, before any handler runs, with an empty body. Every
//! error of this server has the JSON shape (`api::shape`), so the
//! connection's writes are watched for exactly those answers and each is
//! sent in that shape instead. No limit of hyper's is raised: its memory
//! bounds stay as they are.
//!
//! hyper's own answer is a whole write of its own: a head with
//! `content-length: 0` and no `content-type`, ending the write. Every
//! response of the app has a `content-type` (JSON errors, pages, assets),
//! so an answer of the app is never taken for one.

use crate::api::shape::{MAX_HEADERS, MAX_HEADER_BYTES};
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A connection whose parse-error answers are rewritten.
pub struct JsonParseErrors<T> {
    inner: T,
    swap: Option<Swap>,
}

/// The JSON answer being sent in place of hyper's `replaces` bytes.
struct Swap {
    bytes: Vec<u8>,
    sent: usize,
    replaces: usize,
}

impl<T> JsonParseErrors<T> {
    pub fn new(inner: T) -> Self {
        JsonParseErrors { inner, swap: None }
    }
}

/// (status line prefix, code, message) of each answer hyper makes itself.
fn answers() -> [(&'static [u8], &'static str, String); 3] {
    [
        (
            b"HTTP/1.1 431 ",
            "headers_too_large",
            format!("the request's headers are more than this server reads: at most {MAX_HEADERS} headers and {MAX_HEADER_BYTES} bytes"),
        ),
        (
            b"HTTP/1.1 414 ",
            "uri_too_long",
            format!("the URI is longer than this server reads: at most {} bytes", crate::api::link_limits::MAX_TARGET_BYTES),
        ),
        (
            b"HTTP/1.1 400 ",
            "bad_request",
            "the request could not be read as HTTP/1.1".to_string(),
        ),
    ]
}

/// The JSON form of `head` when it is one of hyper's own error answers.
fn rewrite(head: &[u8]) -> Option<Vec<u8>> {
    let (_, code, message) = answers()
        .into_iter()
        .find(|(prefix, _, _)| head.starts_with(prefix))?;
    let end = head.windows(4).position(|w| w == b"\r\n\r\n")?;
    if end + 4 != head.len() {
        return None;
    }
    let text = std::str::from_utf8(&head[..end]).ok()?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next()?;
    let fields: Vec<&str> = lines.collect();
    let named = |name: &str| {
        fields.iter().any(|l| {
            l.split_once(':')
                .is_some_and(|(n, _)| n.trim().eq_ignore_ascii_case(name))
        })
    };
    let empty = fields.iter().any(|l| {
        l.split_once(':').is_some_and(|(n, v)| {
            n.trim().eq_ignore_ascii_case("content-length") && v.trim() == "0"
        })
    });
    if !empty || named("content-type") {
        return None;
    }
    let body = serde_json::json!({ "error": { "code": code, "message": message } }).to_string();
    let mut out = format!("{status_line}\r\n");
    for l in fields.iter().filter(|l| {
        !l.split_once(':')
            .is_some_and(|(n, _)| n.trim().eq_ignore_ascii_case("content-length"))
    }) {
        out.push_str(l);
        out.push_str("\r\n");
    }
    out.push_str(&format!(
        "content-type: application/json\r\ncontent-length: {}\r\nx-content-type-options: nosniff\r\nreferrer-policy: no-referrer\r\ncache-control: no-store\r\n\r\n{body}",
        body.len()
    ));
    Some(out.into_bytes())
}

impl<T: AsyncWrite + Unpin> JsonParseErrors<T> {
    /// Send what is left of the JSON answer.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some(s) = &mut self.swap {
            if s.sent >= s.bytes.len() {
                break;
            }
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &s.bytes[s.sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            s.sent += n;
        }
        Poll::Ready(Ok(()))
    }

    /// When `first` (the start of a write) is hyper's own answer, or one is
    /// being sent: the JSON form goes out, and hyper's bytes count as written.
    fn swapped(&mut self, cx: &mut Context<'_>, first: &[u8]) -> Option<Poll<io::Result<usize>>> {
        if self.swap.is_none() {
            let bytes = rewrite(first)?;
            self.swap = Some(Swap {
                bytes,
                sent: 0,
                replaces: first.len(),
            });
        }
        Some(match self.drain(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Ready(Ok(())) => {
                let n = self.swap.take().map_or(0, |s| s.replaces);
                Poll::Ready(Ok(n.min(first.len())))
            }
        })
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for JsonParseErrors<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for JsonParseErrors<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if let Some(p) = self.swapped(cx, buf) {
            return p;
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if let Some(first) = bufs.iter().find(|b| !b.is_empty()) {
            if let Some(p) = self.swapped(cx, first) {
                return p;
            }
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn only_hypers_own_empty_answers_are_rewritten() {
        let own = b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\ndate: Fri, 04 Dec 2026 23:36:30 GMT\r\n\r\n";
        let out = String::from_utf8(rewrite(own).expect("rewritten")).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(head.contains("\r\nconnection: close\r\n") && head.contains("\r\ndate: Fri"));
        assert!(head.contains(&format!("\r\ncontent-length: {}\r\n", body.len())));
        assert!(head.contains("content-type: application/json"));
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["error"]["code"], "headers_too_large");
        let uri = b"HTTP/1.1 414 URI Too Long\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
        assert!(String::from_utf8(rewrite(uri).unwrap())
            .unwrap()
            .contains("uri_too_long"));
        for other in [
            // The app's own 431: it has a content-type.
            &b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n"[..],
            b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 2\r\n\r\n",
            // More follows the head: not an answer of its own.
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\r\nHTTP/1.1 200 OK\r\n",
            b"HTTP/1.1 431 partial head",
            b"{\"a\": 1}",
        ] {
            assert!(rewrite(other).is_none(), "{}", String::from_utf8_lossy(other));
        }
    }
}
