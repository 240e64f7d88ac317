//! The optional per-client rate limit: a token bucket per IP address, refilled at N a second
//! with a burst of N. The map is bounded: when it grows past [`MAX_CLIENTS`], buckets that are
//! full again (clients idle for a second or more) are dropped, which forgets nothing that
//! matters, so a flood of addresses cannot grow memory without bound.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

/// Clients tracked before idle buckets are swept.
pub const MAX_CLIENTS: usize = 100_000;

struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Buckets by client address.
pub struct RateLimit {
    per_second: f64,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

impl RateLimit {
    /// `per_second` requests a second per client, bursts of as many.
    pub fn new(per_second: u32) -> RateLimit {
        RateLimit {
            per_second: per_second.max(1) as f64,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// The limit.
    pub fn per_second(&self) -> u32 {
        self.per_second as u32
    }

    /// Whether `ip` may make a request now (and takes its token).
    pub fn allow(&self, ip: IpAddr) -> bool {
        self.allow_at(ip, Instant::now())
    }

    fn allow_at(&self, ip: IpAddr, now: Instant) -> bool {
        let rate = self.per_second;
        let mut map = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= MAX_CLIENTS && !map.contains_key(&ip) {
            map.retain(|_, b| b.tokens + now.duration_since(b.at).as_secs_f64() * rate < rate);
        }
        let b = map.entry(ip).or_insert(Bucket {
            tokens: rate,
            at: now,
        });
        b.tokens = (b.tokens + now.duration_since(b.at).as_secs_f64() * rate).min(rate);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn burst_then_refill() {
        let r = RateLimit::new(5);
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let other: IpAddr = "10.0.0.2".parse().unwrap();
        let t = Instant::now();
        assert!((0..5).all(|_| r.allow_at(ip, t)));
        assert!(!r.allow_at(ip, t));
        assert!(r.allow_at(other, t), "each client has its own bucket");
        assert!(r.allow_at(ip, t + Duration::from_millis(250)));
        assert!(!r.allow_at(ip, t + Duration::from_millis(260)));
    }
}
