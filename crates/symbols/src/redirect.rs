//! Which redirects a symbol server may send us to. A server named in a
//! symbol path is trusted for its own URL only: a redirect is followed to
//! the same scheme, host and port, or to another server on the symbol path,
//! and never to a loopback or private address unless the server itself is
//! on one. Otherwise any server (or whoever controls one) could make this
//! process fetch from hosts inside its network.
//!
//! One exception keeps Microsoft's public server working: it answers with
//! redirects to its download storage, `https://*.blob.core.windows.net`.

use std::net::{IpAddr, ToSocketAddrs};
use std::sync::OnceLock;

/// Redirects followed for one request, at most.
pub const MAX_HOPS: usize = 3;

/// The scheme, host and port of an `http(s)://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub scheme: String,
    /// Lower-case, without a trailing dot; IPv6 without brackets.
    pub host: String,
    pub port: u16,
}

impl Origin {
    pub fn parse(url: &str) -> Option<Origin> {
        let (scheme, rest) = url.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let default_port = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            _ => return None,
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        // Credentials in a redirect are refused rather than sent.
        if authority.contains('@') {
            return None;
        }
        let (host, port) = match authority.strip_prefix('[') {
            Some(v6) => {
                let (host, after) = v6.split_once(']')?;
                (host, after.strip_prefix(':'))
            }
            None => match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            },
        };
        let port = match port {
            Some(p) => p.parse().ok()?,
            None => default_port,
        };
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        (!host.is_empty()).then_some(Origin { scheme, host, port })
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.host.contains(':') {
            write!(f, "{}://[{}]:{}", self.scheme, self.host, self.port)
        } else {
            write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
        }
    }
}

/// The absolute URL a `Location` header names, relative to `base`; `None`
/// when it is not an http(s) URL.
pub fn resolve(base: &str, location: &str) -> Option<String> {
    let location = location.trim();
    let location = location.split('#').next().unwrap_or("");
    let lower = location.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return Some(location.to_string());
    }
    let (scheme, rest) = base.split_once("://")?;
    if location.starts_with("//") {
        return Some(format!("{scheme}:{location}"));
    }
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let root = &base[..scheme.len() + 3 + authority_end];
    if location.starts_with('/') {
        return Some(format!("{root}{location}"));
    }
    // Any other scheme (`file:`, `ftp:`, ...) is not followed.
    let first_segment = location.split(['/', '?']).next().unwrap_or("");
    if first_segment.contains(':') {
        return None;
    }
    let path = base[root.len()..].split(['?', '#']).next().unwrap_or("");
    let dir = path.rfind('/').map_or("/", |i| &path[..=i]);
    Some(format!("{root}{dir}{location}"))
}

/// The redirect rules for one configured server.
#[derive(Debug)]
pub struct RedirectPolicy {
    home: Option<Origin>,
    /// The other servers of the symbol path.
    others: Vec<Origin>,
    home_is_private: OnceLock<bool>,
}

impl RedirectPolicy {
    pub fn new(server_url: &str, others: &[String]) -> RedirectPolicy {
        RedirectPolicy {
            home: Origin::parse(server_url),
            others: others.iter().filter_map(|u| Origin::parse(u)).collect(),
            home_is_private: OnceLock::new(),
        }
    }

    /// `Ok` if a redirect to `target` may be followed, else why not.
    pub fn check(&self, target: &str) -> Result<(), String> {
        let Some(to) = Origin::parse(target) else {
            return Err("not an http(s) URL without credentials".into());
        };
        let Some(home) = &self.home else {
            return Err("the server's own URL does not parse".into());
        };
        if &to == home {
            return Ok(());
        }
        let microsoft_storage = home.host == "msdl.microsoft.com"
            && to.scheme == "https"
            && to.host.ends_with(".blob.core.windows.net");
        if !self.others.contains(&to) && !microsoft_storage {
            return Err(format!(
                "{to} is neither this server ({home}) nor another server on the symbol path"
            ));
        }
        let home_private = *self
            .home_is_private
            .get_or_init(|| private_or_unknown(&home.host, home.port));
        if !home_private && private_or_unknown(&to.host, to.port) {
            return Err(format!(
                "{} is a loopback or private address (or does not resolve)",
                to.host
            ));
        }
        Ok(())
    }
}

/// Whether `host` resolves to any loopback, private, link-local or
/// unspecified address, or does not resolve at all.
fn private_or_unknown(host: &str, port: u16) -> bool {
    match (host, port).to_socket_addrs() {
        Ok(addrs) => {
            let ips: Vec<IpAddr> = addrs.map(|a| a.ip()).collect();
            ips.is_empty() || ips.iter().any(|ip| is_private(*ip))
        }
        Err(_) => true,
    }
}

fn is_private(ip: IpAddr) -> bool {
    match ip.to_canonical() {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || a == 0
                // Carrier-grade NAT, 100.64.0.0/10.
                || (a == 100 && (64..128).contains(&b))
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                // Unique local fc00::/7, link-local fe80::/10.
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        let o = Origin::parse("HTTP://Sym.Example.COM./a/b").unwrap();
        assert_eq!(
            (o.scheme.as_str(), o.host.as_str(), o.port),
            ("http", "sym.example.com", 80)
        );
        assert_eq!(
            Origin::parse("https://[::1]:8443/x").unwrap().to_string(),
            "https://[::1]:8443"
        );
        assert_eq!(Origin::parse("https://h?q").unwrap().port, 443);
        for bad in [
            "ftp://h/",
            "http://user:pw@h/",
            "http://h:99999/",
            "http:///x",
            "h/x",
        ] {
            assert_eq!(Origin::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn locations_resolve_against_the_request() {
        let base = "http://h:8/symbols/a.pdb/K/a.pdb?x=1";
        assert_eq!(
            resolve(base, "/store/a.pdb").unwrap(),
            "http://h:8/store/a.pdb"
        );
        assert_eq!(
            resolve(base, "b.pdb#f").unwrap(),
            "http://h:8/symbols/a.pdb/K/b.pdb"
        );
        assert_eq!(resolve(base, "//o/x").unwrap(), "http://o/x");
        assert_eq!(resolve(base, "HTTPS://o/x").unwrap(), "HTTPS://o/x");
        assert_eq!(resolve(base, "file:///etc/passwd"), None);
        assert_eq!(resolve("http://h", "x").unwrap(), "http://h/x");
    }

    #[test]
    fn only_the_server_itself_and_the_symbol_path_are_followed() {
        let p = RedirectPolicy::new(
            "http://127.0.0.1:7000/symbols",
            &["http://127.0.0.1:7001/other".to_string()],
        );
        assert!(p.check("http://127.0.0.1:7000/elsewhere/x.pdb").is_ok());
        assert!(
            p.check("http://127.0.0.1:7001/x.pdb").is_ok(),
            "on the symbol path; home is loopback too"
        );
        for refused in [
            "http://127.0.0.1:7002/x.pdb",
            "https://127.0.0.1:7000/x.pdb",
            "http://localhost:7000/x.pdb",
            "gopher://127.0.0.1:7000/",
        ] {
            assert!(p.check(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn a_public_server_is_never_sent_to_private_addresses() {
        let p = RedirectPolicy::new(
            "https://93.184.215.14/symbols",
            &[
                "http://10.0.0.5/s".to_string(),
                "http://[fd00::1]/s".to_string(),
            ],
        );
        let why = p.check("http://10.0.0.5/s/x.pdb").unwrap_err();
        assert!(why.contains("private"), "{why}");
        assert!(p.check("http://[fd00::1]/s/x.pdb").is_err());
        let ms = RedirectPolicy::new("https://msdl.microsoft.com/download/symbols", &[]);
        assert!(
            ms.check("http://x.blob.core.windows.net/b").is_err(),
            "https only"
        );
        assert!(ms
            .check("https://blob.core.windows.net.evil.example/b")
            .is_err());
    }

    #[test]
    fn private_ranges() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:10.0.0.1",
        ] {
            assert!(is_private(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.215.14", "8.8.8.8", "2606:4700::1111"] {
            assert!(!is_private(ip.parse().unwrap()), "{ip}");
        }
    }
}
