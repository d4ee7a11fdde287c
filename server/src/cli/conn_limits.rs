//! Who may hold a connection. Connections still sending their first request
//! head ("heads") have a small budget of their own, overall and per client
//! address; when it is exhausted the oldest head is closed, so stalled
//! heads can never keep a new connection out. Connections past their first
//! head ("served") have the rest, overall and per address; a completed head
//! waits (still a head) until a served place is free. Slow clients thus
//! cost each other, not the clients that send whole requests.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::Notify;

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections past their first head, at once.
    pub served: usize,
    pub served_per_ip: usize,
    /// Connections still sending their first head, at once.
    pub heads: usize,
    pub heads_per_ip: usize,
}

/// One connection's place; `close` tells its task to drop it.
#[derive(Clone)]
pub struct Ticket {
    pub id: u64,
    pub close: Arc<Notify>,
}

struct Head {
    ip: IpAddr,
    /// Its whole head arrived (it waits for a served place only).
    complete: bool,
    close: Arc<Notify>,
}

#[derive(Default, Clone, Copy)]
struct PerIp {
    heads: usize,
    served: usize,
}

#[derive(Default)]
struct Inner {
    next_id: u64,
    /// By id, which is accept order: the first is the oldest.
    heads: BTreeMap<u64, Head>,
    served: HashMap<u64, IpAddr>,
    per_ip: HashMap<IpAddr, PerIp>,
}

pub struct Registry {
    limits: Limits,
    inner: Mutex<Inner>,
    /// Signalled whenever a served place may have come free.
    freed: Notify,
}

impl Registry {
    pub fn new(limits: Limits) -> Registry {
        let at_least_one = |n: usize| n.max(1);
        Registry {
            limits: Limits {
                served: at_least_one(limits.served),
                served_per_ip: at_least_one(limits.served_per_ip),
                heads: at_least_one(limits.heads),
                heads_per_ip: at_least_one(limits.heads_per_ip),
            },
            inner: Mutex::new(Inner::default()),
            freed: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new connection from `ip`, as a head (`complete` if its whole head
    /// is already there). Heads over budget, its address's first, are
    /// closed oldest first (stalled ones before complete ones).
    pub fn admit(&self, ip: IpAddr, complete: bool) -> Ticket {
        let mut g = self.lock();
        let id = g.next_id;
        g.next_id += 1;
        let close = Arc::new(Notify::new());
        g.heads.insert(
            id,
            Head {
                ip,
                complete,
                close: close.clone(),
            },
        );
        g.per_ip.entry(ip).or_default().heads += 1;
        while g.per_ip.get(&ip).map_or(0, |c| c.heads) > self.limits.heads_per_ip {
            if !g.evict(id, Some(ip)) {
                break;
            }
        }
        while g.heads.len() > self.limits.heads {
            if !g.evict(id, None) {
                break;
            }
        }
        Ticket { id, close }
    }

    /// The connection's first head arrived: wait for a served place.
    /// `false` if it was closed meanwhile.
    pub async fn promote(&self, id: u64) -> bool {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            // Registered before looking, so a place freed meanwhile wakes us.
            freed.as_mut().enable();
            {
                let mut g = self.lock();
                let Some(head) = g.heads.get_mut(&id) else {
                    return false;
                };
                head.complete = true;
                let ip = head.ip;
                let room = g.served.len() < self.limits.served
                    && g.per_ip.get(&ip).map_or(0, |c| c.served) < self.limits.served_per_ip;
                if room {
                    g.heads.remove(&id);
                    g.served.insert(id, ip);
                    let c = g.per_ip.entry(ip).or_default();
                    c.heads = c.heads.saturating_sub(1);
                    c.served += 1;
                    return true;
                }
            }
            freed.await;
        }
    }

    /// The connection ended (or was closed): its place is free.
    pub fn release(&self, id: u64) {
        let mut g = self.lock();
        if let Some(h) = g.heads.remove(&id) {
            g.uncount(h.ip, |c| c.heads = c.heads.saturating_sub(1));
        } else if let Some(ip) = g.served.remove(&id) {
            g.uncount(ip, |c| c.served = c.served.saturating_sub(1));
            drop(g);
            self.freed.notify_waiters();
        }
    }

    /// (heads, served) now.
    #[cfg(test)]
    pub fn counts(&self) -> (usize, usize) {
        let g = self.lock();
        (g.heads.len(), g.served.len())
    }
}

impl Inner {
    /// Close the oldest head (of `ip`, if given) other than `keep`,
    /// stalled ones first; `false` if there is none.
    fn evict(&mut self, keep: u64, ip: Option<IpAddr>) -> bool {
        let candidates = || {
            self.heads
                .iter()
                .filter(move |(&id, h)| id != keep && ip.is_none_or(|ip| h.ip == ip))
        };
        let victim = candidates()
            .find(|(_, h)| !h.complete)
            .or_else(|| candidates().next())
            .map(|(&id, _)| id);
        let Some(head) = victim.and_then(|id| self.heads.remove(&id)) else {
            return false;
        };
        head.close.notify_one();
        self.uncount(head.ip, |c| c.heads = c.heads.saturating_sub(1));
        true
    }

    fn uncount(&mut self, ip: IpAddr, f: impl FnOnce(&mut PerIp)) {
        if let Some(c) = self.per_ip.get_mut(&ip) {
            f(c);
            if c.heads == 0 && c.served == 0 {
                self.per_ip.remove(&ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn limits() -> Limits {
        Limits {
            served: 3,
            served_per_ip: 2,
            heads: 4,
            heads_per_ip: 2,
        }
    }

    fn ip(n: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, n])
    }

    /// Whether `t` was told to close.
    async fn closed(t: &Ticket) -> bool {
        tokio::time::timeout(Duration::from_millis(20), t.close.notified())
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn an_address_over_its_head_budget_loses_its_oldest_stalled_head() {
        let r = Registry::new(limits());
        let a = r.admit(ip(1), false);
        let b = r.admit(ip(1), true);
        let other = r.admit(ip(2), false);
        let c = r.admit(ip(1), false);
        assert!(closed(&a).await, "the oldest stalled head of 10.0.0.1");
        assert!(!closed(&b).await && !closed(&c).await && !closed(&other).await);
        // Only complete heads left to close: the oldest of them goes.
        let d = r.admit(ip(1), true);
        assert!(closed(&c).await, "stalled before complete");
        let _e = r.admit(ip(1), false);
        assert!(closed(&b).await);
        assert!(!closed(&d).await);
        assert_eq!(r.counts(), (3, 0));
    }

    #[tokio::test]
    async fn the_overall_head_budget_closes_the_oldest_anywhere() {
        let r = Registry::new(limits());
        let first = r.admit(ip(1), false);
        for n in 2..=4 {
            r.admit(ip(n), false);
        }
        assert!(!closed(&first).await);
        r.admit(ip(5), false);
        assert!(closed(&first).await);
        assert_eq!(r.counts(), (4, 0));
    }

    #[tokio::test]
    async fn served_places_are_capped_overall_and_per_address_and_waited_for() {
        let r = Arc::new(Registry::new(limits()));
        let a = r.admit(ip(1), true);
        let b = r.admit(ip(1), true);
        assert!(r.promote(a.id).await && r.promote(b.id).await);
        // A third from 10.0.0.1 waits for one of its own to end.
        let c = r.admit(ip(1), true);
        let waiting = tokio::spawn({
            let r = r.clone();
            async move { r.promote(c.id).await }
        });
        let d = r.admit(ip(2), true);
        assert!(r.promote(d.id).await, "another address is not held up");
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        assert_eq!(r.counts(), (1, 3));
        r.release(a.id);
        assert!(tokio::time::timeout(Duration::from_secs(1), waiting)
            .await
            .is_ok_and(|j| j.is_ok_and(|promoted| promoted)));
        assert_eq!(r.counts(), (0, 3));
        // A head closed while it waits is not promoted.
        let e = r.admit(ip(3), true);
        r.release(e.id);
        assert!(!r.promote(e.id).await);
    }
}
