//! Cross-site and DNS-rebinding defence, on every server (token or not).
//!
//! - `Host` must name this server: `localhost`, a loopback address, the
//!   address served, or a name from `--public-url` / `--allowed-host`. A page
//!   on `attacker.example` whose name was re-pointed at 127.0.0.1 sends its
//!   own name, so it is refused before any handler runs.
//! - `Origin`, when sent, must be this server's origin.
//! - A state change (anything but GET/HEAD) needs a header no HTML form or
//!   "simple" cross-origin request can send: `X-Etlscope` (the UI sends
//!   `X-Etlscope: 1`), the token header or `Authorization`; and a request
//!   the browser labels `Sec-Fetch-Site: cross-site` is refused.

use super::error::ApiError;
use super::state::AppState;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::IpAddr;

/// The names and addresses this server answers to.
#[derive(Debug, Clone)]
pub struct AllowedHosts {
    /// The IP the listener is bound to; unspecified (0.0.0.0, ::) means any
    /// of this machine's addresses.
    pub served_ip: IpAddr,
    /// Lower-case host names from `--allowed-host` and `--public-url`.
    pub names: Vec<String>,
    /// `scheme://host[:port]` of `--public-url`, lower-case.
    pub public_origin: Option<String>,
}

impl AllowedHosts {
    #[cfg(test)]
    pub fn loopback() -> AllowedHosts {
        AllowedHosts {
            served_ip: IpAddr::from([127, 0, 0, 1]),
            names: Vec::new(),
            public_origin: None,
        }
    }

    /// Whether a `Host` value (`name[:port]`) names this server.
    pub fn host_allowed(&self, host: &str) -> bool {
        let name = host_name(host);
        if name.is_empty() {
            return false;
        }
        if name == "localhost" {
            return true;
        }
        if let Ok(ip) = name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
        {
            // An address literal cannot be re-pointed by DNS.
            return ip.is_loopback() || ip == self.served_ip || self.served_ip.is_unspecified();
        }
        self.names.contains(&name)
    }
}

/// The host part of `name[:port]` / `[v6]:port`, lower-case, without a trailing dot.
fn host_name(host: &str) -> String {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        match rest.split_once(']') {
            Some((v6, _)) => format!("[{v6}]"),
            None => return String::new(),
        }
    } else {
        host.rsplit_once(':').map_or(host, |(n, _)| n).to_string()
    };
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// `scheme://host[:port]` of a URL, lower-case (None if it has no scheme).
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if scheme.is_empty() || authority.is_empty() {
        return None;
    }
    Some(format!("{scheme}://{authority}").to_ascii_lowercase())
}

/// The host name of a URL, for `--public-url`.
pub fn url_host_name(url: &str) -> Option<String> {
    let origin = origin_of(url)?;
    let (_, authority) = origin.split_once("://")?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    Some(host_name(authority)).filter(|n| !n.is_empty())
}

fn forbidden(code: &'static str, message: impl Into<String>) -> Response {
    ApiError::new(StatusCode::FORBIDDEN, code, message).into_response()
}

fn header_str<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

/// Why a request is refused, or None when it may proceed.
pub fn check(
    allowed: &AllowedHosts,
    method: &Method,
    host: Option<&str>,
    h: &HeaderMap,
) -> Option<Response> {
    let Some(host) = host.filter(|h| allowed.host_allowed(h)) else {
        return Some(forbidden(
            "forbidden_host",
            "this server does not answer to that Host name; add it with --allowed-host or --public-url",
        ));
    };
    if let Some(origin) = h.get(header::ORIGIN) {
        let ok = origin.to_str().ok().and_then(origin_of).is_some_and(|o| {
            o.split_once("://")
                .is_some_and(|(_, a)| a.eq_ignore_ascii_case(host))
                || allowed.public_origin.as_deref() == Some(o.as_str())
        });
        if !ok {
            return Some(forbidden(
                "forbidden_origin",
                "requests from pages of another origin are refused",
            ));
        }
    }
    if method == Method::GET || method == Method::HEAD {
        return None;
    }
    if header_str(h, "sec-fetch-site") == Some("cross-site") {
        return Some(forbidden(
            "forbidden_origin",
            "cross-site requests may not change anything here",
        ));
    }
    let marked = ["x-etlscope", "x-etlscope-token", "authorization"]
        .iter()
        .any(|n| header_str(h, n).is_some_and(|v| !v.trim().is_empty()));
    if !marked {
        return Some(forbidden(
            "missing_header",
            "requests that change anything need the header 'X-Etlscope: 1' (or the token header), which web pages of other sites cannot send",
        ));
    }
    None
}

/// The middleware form of [`check`].
pub async fn layer(State(app): State<AppState>, req: Request, next: Next) -> Response {
    let host = header_str(req.headers(), "host")
        .map(str::to_string)
        .or_else(|| req.uri().authority().map(|a| a.to_string()));
    match check(
        &app.config.allowed_hosts,
        req.method(),
        host.as_deref(),
        req.headers(),
    ) {
        Some(refused) => refused,
        None => next.run(req).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names() {
        let a = AllowedHosts {
            names: vec!["etl.example".into()],
            ..AllowedHosts::loopback()
        };
        for ok in [
            "localhost",
            "LOCALHOST:8717",
            "127.0.0.1:1",
            "127.9.9.9",
            "[::1]:80",
            "etl.example:443",
            "etl.example.",
        ] {
            assert!(a.host_allowed(ok), "{ok}");
        }
        for bad in [
            "",
            "attacker.example",
            "10.0.0.1:8717",
            "localhost.attacker.example",
            "[::2]:1",
            "etl.example.attacker",
        ] {
            assert!(!a.host_allowed(bad), "{bad}");
        }
        let any = AllowedHosts {
            served_ip: IpAddr::from([0, 0, 0, 0]),
            ..AllowedHosts::loopback()
        };
        assert!(any.host_allowed("10.0.0.1:8717"));
        assert!(!any.host_allowed("attacker.example"));
    }

    #[test]
    fn urls() {
        assert_eq!(
            origin_of("https://Etl.Example:8443/x?y").as_deref(),
            Some("https://etl.example:8443")
        );
        assert_eq!(
            url_host_name("https://etl.example:8443/").as_deref(),
            Some("etl.example")
        );
        assert_eq!(origin_of("etl.example"), None);
    }
}
