//! Who may hold a connection. Connections still sending their first request
//! head ("heads") have a small budget of their own, overall and per client
//! address; when it is exhausted the oldest stalled head is closed, so
//! stalled heads can never keep a new connection out. Only heads still
//! incomplete after `grace` count as stalled: a burst of clients that send
//! their requests at once (40 from one address in a load test, or everyone
//! behind one proxy) may go over the budget, up to `HARD_FACTOR` times it,
//! and a head that arrived whole is never closed. Connections past their first
//! head ("served") have the rest, overall and per address; a completed head
//! waits (still a head) until a served place is free. Slow clients thus
//! cost each other, not the clients that send whole requests.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// Past this many times a head budget, the oldest incomplete heads are
/// closed however young.
const HARD_FACTOR: usize = 8;

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections past their first head, at once.
    pub served: usize,
    pub served_per_ip: usize,
    /// Connections still sending their first head, at once.
    pub heads: usize,
    pub heads_per_ip: usize,
    /// How long a head may take to arrive before it counts as stalled.
    pub grace: Duration,
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
    since: Instant,
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
                grace: limits.grace,
            },
            inner: Mutex::new(Inner::default()),
            freed: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new connection from `ip`, as a head (`complete` if its whole head
    /// is already there). Over budget, its address's first, the oldest
    /// stalled heads are closed; over `HARD_FACTOR` times the budget, the
    /// oldest incomplete ones however young. Whole heads are never closed.
    pub fn admit(&self, ip: IpAddr, complete: bool) -> Ticket {
        let mut g = self.lock();
        let id = g.next_id;
        g.next_id += 1;
        let close = Arc::new(Notify::new());
        let now = Instant::now();
        g.heads.insert(
            id,
            Head {
                ip,
                complete,
                since: now,
                close: close.clone(),
            },
        );
        g.per_ip.entry(ip).or_default().heads += 1;
        let stalled = now.checked_sub(self.limits.grace);
        let per_ip = |g: &Inner| g.per_ip.get(&ip).map_or(0, |c| c.heads);
        let (budget, hard) = (
            self.limits.heads_per_ip,
            self.limits.heads_per_ip.saturating_mul(HARD_FACTOR),
        );
        while per_ip(&g) > budget && g.evict(id, Some(ip), stalled) {}
        while per_ip(&g) > hard && g.evict(id, Some(ip), None) {}
        let (budget, hard) = (
            self.limits.heads,
            self.limits.heads.saturating_mul(HARD_FACTOR),
        );
        while g.heads.len() > budget && g.evict(id, None, stalled) {}
        while g.heads.len() > hard && g.evict(id, None, None) {}
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
    /// Close the oldest incomplete head (of `ip`, if given) other than
    /// `keep`, begun before `before` if given; `false` if there is none.
    fn evict(&mut self, keep: u64, ip: Option<IpAddr>, before: Option<Instant>) -> bool {
        let victim = self
            .heads
            .iter()
            .filter(|(&id, h)| id != keep && ip.is_none_or(|ip| h.ip == ip) && !h.complete)
            .find(|(_, h)| before.is_none_or(|b| h.since <= b))
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
            grace: Duration::ZERO,
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
        let d = r.admit(ip(1), true);
        assert!(closed(&c).await, "stalled before complete");
        // Whole heads are never closed: 10.0.0.1 stays over its budget.
        let e = r.admit(ip(1), true);
        assert!(!closed(&b).await && !closed(&d).await && !closed(&e).await);
        assert_eq!(r.counts(), (4, 0));
    }

    #[tokio::test]
    async fn heads_younger_than_the_grace_are_kept_up_to_the_hard_cap() {
        let r = Registry::new(Limits {
            grace: Duration::from_secs(60),
            heads: 1000,
            ..limits()
        });
        // A burst from one address: over the budget of 2, all young, all kept
        // until 8 x 2; then the oldest incomplete ones go.
        let t: Vec<Ticket> = (0..17).map(|_| r.admit(ip(1), false)).collect();
        assert!(
            closed(&t[0]).await,
            "the 17th is over the hard cap: the oldest goes"
        );
        for x in &t[1..] {
            assert!(!closed(x).await);
        }
        assert_eq!(r.counts(), (16, 0));
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
