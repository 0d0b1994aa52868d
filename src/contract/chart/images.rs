//! The charts hearth serves by token: bounded by count and by
//! bytes (the oldest go first), each until its expiry. Only what was put here is ever served; a
//! token not here, or expired, is not found. [`Images`] is pure (the caller passes the time);
//! [`Shelf`] is the same store shared behind a lock, timed by a clock, handing out random tokens.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use jiff::SignedDuration;
use uuid::Uuid;

use crate::platform::clock::Clock;

/// Files served under unguessable tokens until they expire; clones share the files.
#[derive(Clone)]
pub struct Shelf {
    files: Arc<Mutex<Images>>,
    clock: Arc<dyn Clock>,
}

impl Shelf {
    /// An empty shelf within `bounds`, timed by `clock`.
    pub fn new(bounds: Bounds, clock: Arc<dyn Clock>) -> Self {
        Self { files: Arc::new(Mutex::new(Images::new(bounds))), clock }
    }

    /// Keeps `bytes` for `lifetime` under a new random token, which it returns; `None` when the
    /// bytes are larger than the bounds allow.
    pub fn keep(&self, bytes: Bytes, lifetime: SignedDuration) -> Option<String> {
        let token = Uuid::new_v4().simple().to_string();
        let now = self.clock.now();
        let expires = now.saturating_add(lifetime).unwrap_or(now).as_millisecond();
        let mut files = self.files.lock().unwrap_or_else(PoisonError::into_inner);
        files.insert(token.clone(), bytes, expires, now.as_millisecond()).then_some(token)
    }

    /// The file under `token`, while it is served.
    pub fn get(&self, token: &str) -> Option<Bytes> {
        let now = self.clock.now().as_millisecond();
        self.files.lock().unwrap_or_else(PoisonError::into_inner).get(token, now)
    }
}

/// The bounds of the store.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// The most images kept.
    pub max_images: usize,
    /// The most bytes kept, all images together.
    pub max_bytes: usize,
}

struct Entry {
    png: Bytes,
    expires_ms: i64,
}

/// Images by token, oldest first.
pub struct Images {
    bounds: Bounds,
    entries: HashMap<String, Entry>,
    order: VecDeque<String>,
    bytes: usize,
}

impl Images {
    /// An empty store with `bounds`.
    pub fn new(bounds: Bounds) -> Self {
        Self { bounds, entries: HashMap::new(), order: VecDeque::new(), bytes: 0 }
    }

    /// Keeps `png` under `token` until `expires_ms`, dropping the oldest images (and expired
    /// ones) to stay within the bounds. An image larger than the byte bound is not kept.
    pub fn insert(&mut self, token: String, png: Bytes, expires_ms: i64, now_ms: i64) -> bool {
        if png.len() > self.bounds.max_bytes || self.bounds.max_images == 0 {
            return false;
        }
        self.remove(&token);
        self.entries.retain(|_, e| e.expires_ms > now_ms);
        self.order.retain(|t| self.entries.contains_key(t));
        self.bytes = self.entries.values().map(|e| e.png.len()).sum();
        while self.entries.len() >= self.bounds.max_images
            || self.bytes + png.len() > self.bounds.max_bytes
        {
            let Some(oldest) = self.order.pop_front() else { break };
            if let Some(e) = self.entries.remove(&oldest) {
                self.bytes -= e.png.len();
            }
        }
        self.bytes += png.len();
        self.order.push_back(token.clone());
        self.entries.insert(token, Entry { png, expires_ms });
        true
    }

    /// The image under `token`, unless there is none or it expired.
    pub fn get(&self, token: &str, now_ms: i64) -> Option<Bytes> {
        self.entries.get(token).filter(|e| e.expires_ms > now_ms).map(|e| e.png.clone())
    }

    fn remove(&mut self, token: &str) {
        if let Some(e) = self.entries.remove(token) {
            self.bytes -= e.png.len();
            self.order.retain(|t| t != token);
        }
    }

    /// How many images and bytes are kept.
    pub fn usage(&self) -> (usize, usize) {
        (self.entries.len(), self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(max_images: usize, max_bytes: usize) -> Images {
        Images::new(Bounds { max_images, max_bytes })
    }

    fn png(n: usize) -> Bytes {
        Bytes::from(vec![7u8; n])
    }

    #[test]
    fn an_image_is_served_until_it_expires_and_never_after() {
        let mut images = store(4, 1000);
        images.insert("t".into(), png(10), 1_000, 0);
        assert_eq!(images.get("t", 999).map(|b| b.len()), Some(10));
        assert!(images.get("t", 1_000).is_none());
    }

    #[test]
    fn an_unknown_token_is_not_found() {
        let mut images = store(4, 1000);
        images.insert("t".into(), png(10), 1_000, 0);
        assert!(images.get("other", 0).is_none());
    }

    #[test]
    fn the_oldest_image_goes_first_when_the_count_is_reached() {
        let mut images = store(2, 1000);
        for (i, t) in ["a", "b", "c"].into_iter().enumerate() {
            images.insert(t.into(), png(10), 1_000, i as i64);
        }
        assert!(images.get("a", 10).is_none());
        assert!(images.get("b", 10).is_some() && images.get("c", 10).is_some());
        assert_eq!(images.usage(), (2, 20));
    }

    #[test]
    fn the_oldest_images_go_first_when_the_bytes_are_reached() {
        let mut images = store(10, 100);
        images.insert("a".into(), png(40), 1_000, 0);
        images.insert("b".into(), png(40), 1_000, 0);
        images.insert("c".into(), png(40), 1_000, 0);
        assert!(images.get("a", 0).is_none());
        assert_eq!(images.usage(), (2, 80));
    }

    #[test]
    fn an_image_larger_than_the_byte_bound_is_not_kept() {
        let mut images = store(10, 100);
        assert!(!images.insert("a".into(), png(101), 1_000, 0));
        assert_eq!(images.usage(), (0, 0));
    }

    #[test]
    fn expired_images_make_room_before_live_ones_are_dropped() {
        let mut images = store(2, 1000);
        images.insert("old".into(), png(10), 5, 0);
        images.insert("live".into(), png(10), 1_000, 0);
        images.insert("new".into(), png(10), 1_000, 10);
        assert!(images.get("live", 10).is_some() && images.get("new", 10).is_some());
    }
}
