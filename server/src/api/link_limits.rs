//! What keeps short links from filling the disk (issue 31): each client may
//! create `--links-per-minute` of them (a token bucket: a burst of that many,
//! then one every 60/N s; 429 with `Retry-After` beyond), and the store
//! holds at most `--max-links` links and `--max-links-mb` of targets (507
//! beyond; a target already kept is still answered). Clients are told
//! apart by address; IPv6 ones by their /64, which one host usually owns.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The longest request target this server reads: hyper refuses longer
/// (414) before any handler runs, so a longer link could never open.
pub const MAX_TARGET_BYTES: usize = u16::MAX as usize - 1;
pub const DEFAULT_PER_MINUTE: u32 = 60;
pub const DEFAULT_MAX_LINKS: u64 = 100_000;
pub const DEFAULT_MAX_MIB: u64 = 256;

/// Clients remembered at once; past it, idle ones (full buckets) are
/// forgotten, and while every one is busy new clients wait.
const MAX_CLIENTS: usize = 16_384;

#[derive(Debug, Clone)]
pub struct LinkLimits {
    /// Longest target, in bytes.
    pub max_target_bytes: usize,
    /// Links one client may create per minute (and in one burst).
    pub per_minute: u32,
    /// Most links kept.
    pub max_links: u64,
    /// Most bytes of targets kept.
    pub max_bytes: u64,
    /// Peers whose `X-Forwarded-For` names the client (`--trusted-proxy`).
    pub trusted_proxies: Vec<IpAddr>,
}

impl Default for LinkLimits {
    fn default() -> Self {
        LinkLimits {
            max_target_bytes: MAX_TARGET_BYTES,
            per_minute: DEFAULT_PER_MINUTE,
            max_links: DEFAULT_MAX_LINKS,
            max_bytes: DEFAULT_MAX_MIB << 20,
            trusted_proxies: Vec::new(),
        }
    }
}

/// Links and target bytes in the store.
#[derive(Debug, Clone, Copy, Default)]
pub struct Usage {
    pub links: u64,
    pub bytes: u64,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

#[derive(Debug)]
pub struct LinkGuard {
    pub limits: LinkLimits,
    clients: Mutex<HashMap<IpAddr, Bucket>>,
    /// None until read from the catalog (at the first link made).
    usage: Mutex<Option<Usage>>,
}

impl LinkGuard {
    pub fn new(limits: LinkLimits) -> LinkGuard {
        LinkGuard {
            limits,
            clients: Mutex::new(HashMap::new()),
            usage: Mutex::new(None),
        }
    }

    /// The client a request came from: `peer`, unless it is a trusted proxy
    /// (`--trusted-proxy`), whose client is the last address it appended to
    /// `X-Forwarded-For` (earlier ones are the client's own say, not believed).
    pub fn client_of(&self, peer: IpAddr, forwarded_for: Option<&str>) -> IpAddr {
        if !self.limits.trusted_proxies.contains(&client_key(peer)) {
            return peer;
        }
        forwarded_for
            .and_then(|v| v.rsplit(',').next())
            .and_then(|a| a.trim().parse().ok())
            .unwrap_or(peer)
    }

    /// Take one link from `client`'s allowance, or say how long until it has one.
    pub fn take(&self, client: IpAddr, now: Instant) -> Result<(), Duration> {
        let cap = f64::from(self.limits.per_minute.max(1));
        let per_sec = cap / 60.0;
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        let key = client_key(client);
        if !clients.contains_key(&key) && clients.len() >= MAX_CLIENTS {
            clients.retain(|_, b| level(b, now, cap, per_sec) < cap);
            if clients.len() >= MAX_CLIENTS {
                return Err(Duration::from_secs(60));
            }
        }
        let b = clients.entry(key).or_insert(Bucket {
            tokens: cap,
            at: now,
        });
        b.tokens = level(b, now, cap, per_sec);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - b.tokens) / per_sec))
        }
    }

    /// Read the store's usage again at its next use: other replicas add
    /// links to a shared catalog too.
    pub fn forget_usage(&self) {
        *self.usage.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// The store's usage, read with `load` the first time; held while the
    /// caller checks it and adds a link, so two links never both take the last room.
    pub fn usage(
        &self,
        load: impl FnOnce() -> anyhow::Result<Usage>,
    ) -> anyhow::Result<UsageGuard<'_>> {
        let mut g = self.usage.lock().unwrap_or_else(|p| p.into_inner());
        if g.is_none() {
            *g = Some(load()?);
        }
        Ok(UsageGuard {
            guard: g,
            limits: &self.limits,
        })
    }
}

pub struct UsageGuard<'a> {
    guard: MutexGuard<'a, Option<Usage>>,
    limits: &'a LinkLimits,
}

impl UsageGuard<'_> {
    /// Why a new target of `bytes` does not fit, or None when it does.
    pub fn refuse(&self, bytes: usize) -> Option<String> {
        let u = self.guard.unwrap_or_default();
        let l = self.limits;
        if u.links >= l.max_links {
            return Some(format!(
                "this server keeps at most {} short links (--max-links) and has them all",
                l.max_links
            ));
        }
        if u.bytes.saturating_add(bytes as u64) > l.max_bytes {
            return Some(format!(
                "this server keeps at most {} MiB of short links (--max-links-mb): {} bytes are kept, this one has {bytes}",
                l.max_bytes >> 20,
                u.bytes
            ));
        }
        None
    }

    pub fn add(&mut self, bytes: usize) {
        if let Some(u) = self.guard.as_mut() {
            u.links += 1;
            u.bytes = u.bytes.saturating_add(bytes as u64);
        }
    }
}

fn level(b: &Bucket, now: Instant, cap: f64, per_sec: f64) -> f64 {
    let secs = now.saturating_duration_since(b.at).as_secs_f64();
    (b.tokens + secs * per_sec).min(cap)
}

/// An IPv4 address (IPv4-mapped IPv6 included) as is; IPv6 by its /64.
fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::from([s[0], s[1], s[2], s[3], 0, 0, 0, 0])
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(per_minute: u32) -> LinkGuard {
        LinkGuard::new(LinkLimits {
            per_minute,
            ..LinkLimits::default()
        })
    }

    #[test]
    fn a_burst_then_one_per_interval() {
        let g = guard(6);
        let t0 = Instant::now();
        let a = IpAddr::from([10, 0, 0, 1]);
        for _ in 0..6 {
            assert!(g.take(a, t0).is_ok());
        }
        let wait = g.take(a, t0).unwrap_err();
        assert_eq!(wait.as_secs_f64().round(), 10.0);
        assert!(
            g.take(IpAddr::from([10, 0, 0, 2]), t0).is_ok(),
            "others unaffected"
        );
        assert!(g.take(a, t0 + Duration::from_secs(10)).is_ok());
        assert!(g.take(a, t0 + Duration::from_secs(10)).is_err());
    }

    #[test]
    fn only_a_trusted_proxy_names_the_client() {
        let proxy = IpAddr::from([127, 0, 0, 1]);
        let g = LinkGuard::new(LinkLimits {
            trusted_proxies: vec![proxy],
            ..LinkLimits::default()
        });
        let client = IpAddr::from([10, 0, 0, 7]);
        assert_eq!(g.client_of(proxy, Some("1.2.3.4, 10.0.0.7")), client);
        assert_eq!(g.client_of(proxy, Some("junk")), proxy);
        assert_eq!(g.client_of(proxy, None), proxy);
        let other = IpAddr::from([10, 0, 0, 9]);
        assert_eq!(g.client_of(other, Some("10.0.0.7")), other);
        assert_eq!(guard(1).client_of(proxy, Some("10.0.0.7")), proxy);
    }

    #[test]
    fn an_ipv6_host_is_one_client_across_its_64() {
        let g = guard(1);
        let t0 = Instant::now();
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        assert!(g.take(a, t0).is_ok());
        assert!(g.take(b, t0).is_err());
        assert!(g.take("2001:db8:1:3::1".parse().unwrap(), t0).is_ok());
    }

    #[test]
    fn idle_clients_are_forgotten_when_many() {
        let g = guard(1);
        let t0 = Instant::now();
        for i in 0..MAX_CLIENTS as u32 {
            assert!(g.take(IpAddr::from(i.to_be_bytes()), t0).is_ok());
        }
        let late = t0 + Duration::from_secs(61);
        assert!(
            g.take(IpAddr::from([250, 0, 0, 1]), t0).is_err(),
            "all busy"
        );
        assert!(g.take(IpAddr::from([250, 0, 0, 1]), late).is_ok());
        assert!(g.clients.lock().unwrap().len() < 2);
    }

    #[test]
    fn the_store_caps_count_and_bytes() {
        let g = LinkGuard::new(LinkLimits {
            max_links: 2,
            max_bytes: 100,
            ..LinkLimits::default()
        });
        let mut u = g.usage(|| Ok(Usage::default())).unwrap();
        assert!(u.refuse(101).is_some());
        assert!(u.refuse(60).is_none());
        u.add(60);
        assert!(u.refuse(41).is_some());
        u.add(40);
        drop(u);
        let u = g.usage(|| panic!("read once")).unwrap();
        assert!(u.refuse(0).is_some(), "two links kept");
    }
}
