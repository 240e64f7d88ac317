//! A bounded cache of hot answers, kept serialised so a hit costs a copy of bytes.
//!
//! Two generations instead of a true LRU: new answers go into `young`; when it is full, `young`
//! becomes `old` and the previous `old` is dropped; a hit in `old` moves the entry back into
//! `young`. What is used keeps surviving, memory stays under twice the capacity, and every
//! operation is one or two hash look-ups under a lock held for nanoseconds. Shards keep the
//! threads of a busy server from queuing on one lock.

use axum::body::Bytes;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

const SHARDS: usize = 16;

struct Shard {
    young: HashMap<String, Bytes>,
    old: HashMap<String, Bytes>,
}

/// The cache.
pub struct Cache {
    shards: Vec<Mutex<Shard>>,
    per_shard: usize,
    hasher: RandomState,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// What `/api/v1/info` shows of the cache.
#[derive(serde::Serialize, Debug, Clone, Copy)]
pub struct CacheStats {
    /// The capacity asked for (`--cache`); up to twice as many entries may be held.
    pub capacity: usize,
    /// Entries held.
    pub entries: usize,
    /// Look-ups answered from the cache.
    pub hits: u64,
    /// Look-ups that were not.
    pub misses: u64,
}

impl Cache {
    /// A cache for about `capacity` answers (0 turns it off).
    pub fn new(capacity: usize) -> Cache {
        Cache {
            shards: (0..SHARDS)
                .map(|_| {
                    Mutex::new(Shard {
                        young: HashMap::new(),
                        old: HashMap::new(),
                    })
                })
                .collect(),
            per_shard: capacity.div_ceil(SHARDS),
            hasher: RandomState::new(),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn shard(&self, key: &str) -> &Mutex<Shard> {
        &self.shards[self.hasher.hash_one(key) as usize % SHARDS]
    }

    /// The answer for `key`, if held.
    pub fn get(&self, key: &str) -> Option<Bytes> {
        if self.per_shard == 0 {
            return None;
        }
        // A poisoned lock only means a panic elsewhere mid-insert; the maps are still valid.
        let mut s = self.shard(key).lock().unwrap_or_else(|e| e.into_inner());
        let found = if let Some(v) = s.young.get(key) {
            Some(v.clone())
        } else if let Some(v) = s.old.remove(key) {
            Self::put(&mut s, self.per_shard, key.to_string(), v.clone());
            Some(v)
        } else {
            None
        };
        drop(s);
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    fn put(s: &mut Shard, per_shard: usize, key: String, value: Bytes) {
        if s.young.len() >= per_shard {
            s.old = std::mem::take(&mut s.young);
        }
        s.young.insert(key, value);
    }

    /// Keeps an answer.
    pub fn insert(&self, key: String, value: Bytes) {
        if self.per_shard == 0 {
            return;
        }
        let mut s = self.shard(&key).lock().unwrap_or_else(|e| e.into_inner());
        Self::put(&mut s, self.per_shard, key, value);
    }

    /// Counts for `/api/v1/info`.
    pub fn stats(&self) -> CacheStats {
        let entries = self
            .shards
            .iter()
            .map(|s| {
                let s = s.lock().unwrap_or_else(|e| e.into_inner());
                s.young.len() + s.old.len()
            })
            .sum();
        CacheStats {
            capacity: self.per_shard * SHARDS,
            entries,
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_keeps_what_is_used() {
        let c = Cache::new(160);
        c.insert("hot".into(), Bytes::from_static(b"1"));
        for i in 0..10_000 {
            c.insert(format!("k{i}"), Bytes::from_static(b"x"));
            assert!(c.get("hot").is_some(), "a used entry survives ({i})");
        }
        assert!(c.stats().entries <= 2 * 160 + SHARDS);
        assert!(c.get("k0").is_none());
        let off = Cache::new(0);
        off.insert("a".into(), Bytes::from_static(b"1"));
        assert!(off.get("a").is_none());
    }
}
