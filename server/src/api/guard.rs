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
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

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

    /// Whether a `Host` value (`name[:port]`) names this server. Only
    /// `localhost` itself is ours, not `*.localhost` (docs/SECURITY.md).
    pub fn host_allowed(&self, host: &str) -> bool {
        let Some(name) = host_name(host) else {
            return false;
        };
        // An address literal cannot be re-pointed by DNS: bracketed IPv6, or
        // IPv4 in the dotted form a browser sends (no trailing dot, no
        // decimal, hex or octal spellings: those fail to parse here).
        let literal = match name.strip_prefix('[') {
            Some(v6) => match v6.strip_suffix(']').map(str::parse::<Ipv6Addr>) {
                Some(Ok(ip)) => Some(IpAddr::V6(ip)),
                _ => return false,
            },
            None => name.parse::<Ipv4Addr>().ok().map(IpAddr::V4),
        };
        if let Some(ip) = literal {
            return ip.is_loopback()
                || ip == self.served_ip
                || self.served_ip.is_unspecified()
                || self.names.contains(&name);
        }
        // The one trailing dot of a fully qualified name.
        let name = name.strip_suffix('.').unwrap_or(&name);
        if !is_dns_name(name) {
            return false;
        }
        name == "localhost" || self.names.iter().any(|n| n == name)
    }
}

/// The host part of a `Host` value (`name[:port]`, `[v6][:port]`),
/// lower-case; None when the value is not of that form (a port that is not
/// digits, userinfo, a path, white space inside).
fn host_name(host: &str) -> Option<String> {
    let host = host.trim();
    let (name, port) = match host.strip_prefix('[') {
        Some(rest) => {
            let (v6, after) = rest.split_once(']')?;
            let port = match after {
                "" => None,
                p => Some(p.strip_prefix(':')?),
            };
            (format!("[{v6}]"), port)
        }
        None => match host.split_once(':') {
            Some((n, p)) => (n.to_string(), Some(p)),
            None => (host.to_string(), None),
        },
    };
    if let Some(p) = port {
        if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
    }
    Some(name.to_ascii_lowercase()).filter(|n| !n.is_empty())
}

/// Letters, digits, `-` and `_` in non-empty dot-separated labels.
fn is_dns_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
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
    let name = host_name(authority)?;
    Some(name.strip_suffix('.').map(str::to_string).unwrap_or(name))
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
        Some(refused) => {
            let (parts, body) = req.into_parts();
            super::drain::drain(&parts.headers, body).await;
            refused
        }
        None => next.run(req).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    include!("../../tests/common/foreign_hosts.rs");

    #[test]
    fn host_names() {
        let a = AllowedHosts {
            names: vec!["etl.example".into()],
            ..AllowedHosts::loopback()
        };
        for ok in OWN_HOSTS
            .iter()
            .chain(&["etl.example:443", "etl.example.", "ETL.example"])
        {
            assert!(a.host_allowed(ok), "{ok}");
        }
        for bad in
            FOREIGN_HOSTS
                .iter()
                .chain(&["etl.example.attacker", "etl.example..", "x.etl.example"])
        {
            assert!(!a.host_allowed(bad), "{bad:?}");
        }
        // Look-alikes that are not ASCII never match either.
        for bad in ["l\u{043e}calhost", "localhost\u{3002}", "\u{ff4c}ocalhost"] {
            assert!(!a.host_allowed(bad), "{bad:?}");
        }
        let any = AllowedHosts {
            served_ip: IpAddr::from([0, 0, 0, 0]),
            ..AllowedHosts::loopback()
        };
        assert!(any.host_allowed("10.0.0.1:8717"));
        assert!(!any.host_allowed("attacker.example"));
        assert!(!any.host_allowed("evil-localhost"));
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
