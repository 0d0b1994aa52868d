//! Counts the work a process has in hand in the background — a webhook's events being stored
//! and queued, a conversation's lane, a write waiting in a group commit — so shutdown (and a test) can wait until none is left. What is
//! counted is counted by the work itself (its guard lives as long as it does), not by whoever
//! started it, so work that outlives its caller is still counted.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

/// The count of work in hand; clones share it.
#[derive(Clone, Default)]
pub struct InFlight {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    count: AtomicUsize,
    idle: Notify,
}

/// One piece of work in hand: counted until dropped.
#[must_use = "the work is counted only while its guard lives"]
pub struct InFlightGuard {
    inner: Arc<Inner>,
}

impl InFlight {
    /// Counts one more piece of work until the guard is dropped.
    pub fn enter(&self) -> InFlightGuard {
        self.inner.count.fetch_add(1, Ordering::SeqCst);
        InFlightGuard { inner: self.inner.clone() }
    }

    /// How much work is in hand now.
    pub fn count(&self) -> usize {
        self.inner.count.load(Ordering::SeqCst)
    }

    /// Waits until no work is in hand.
    pub async fn wait_idle(&self) {
        loop {
            let notified = self.inner.idle.notified();
            if self.count() == 0 {
                return;
            }
            notified.await;
        }
    }
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if self.inner.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.inner.idle.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn idle_waits_for_every_guard_wherever_it_went() {
        let in_flight = InFlight::default();
        let here = in_flight.enter();
        let moved = in_flight.enter();
        let elsewhere = tokio::spawn(async move {
            tokio::task::yield_now().await;
            drop(moved);
        });
        assert_eq!(in_flight.count(), 2);
        drop(here);
        elsewhere.await.expect("join");
        in_flight.wait_idle().await;
        assert_eq!(in_flight.count(), 0);
    }
}
