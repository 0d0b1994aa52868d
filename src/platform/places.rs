//! A fair line for scarce places (a parser's child, a transcription): at most `n` are held at
//! once, each chat has at most one waiter at a time, and waiters are served in arrival order,
//! so one chat sending twenty files does not hold up the others: they take turns. Take a place
//! **before** downloading what it will handle: what waits is then a place in line, not the
//! file's bytes in the server's memory, so the server holds at most `n` such files however many
//! arrive at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{Mutex as TurnLock, OwnedMutexGuard, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// A place in line: its chat's turn and one of the places, held until dropped.
#[derive(Debug)]
pub struct Place {
    _turn: OwnedMutexGuard<()>,
    _slot: OwnedSemaphorePermit,
}

/// No place was free by the deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no place was free in time")]
pub struct NoPlace;

/// The line; cheap to clone, clones share the places.
#[derive(Debug, Clone)]
pub struct Places {
    slots: Arc<Semaphore>,
    chats: Arc<Mutex<HashMap<String, Arc<TurnLock<()>>>>>,
}

impl Places {
    /// A line for `n` places at once (at least one).
    pub fn new(n: usize) -> Self {
        Self { slots: Arc::new(Semaphore::new(n.max(1))), chats: Arc::default() }
    }

    /// `chat`'s turn, then a free place, by `deadline`.
    pub async fn take(&self, chat: &str, deadline: Instant) -> Result<Place, NoPlace> {
        let turn = self.chat_turn(chat);
        let turn =
            tokio::time::timeout_at(deadline, turn.lock_owned()).await.map_err(|_| NoPlace)?;
        let slot = tokio::time::timeout_at(deadline, self.slots.clone().acquire_owned())
            .await
            .map_err(|_| NoPlace)?
            .map_err(|_| NoPlace)?;
        Ok(Place { _turn: turn, _slot: slot })
    }

    /// The lock a chat's jobs take turns on; chats nobody waits for are forgotten.
    fn chat_turn(&self, chat: &str) -> Arc<TurnLock<()>> {
        let mut chats = self.chats.lock().unwrap_or_else(PoisonError::into_inner);
        chats.retain(|_, turn| Arc::strong_count(turn) > 1);
        chats.entry(chat.to_string()).or_default().clone()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn soon() -> Instant {
        Instant::now() + Duration::from_millis(50)
    }

    #[tokio::test]
    async fn no_more_than_n_places_are_held_at_once() {
        let places = Places::new(2);
        let _a = places.take("a", soon()).await.expect("first");
        let _b = places.take("b", soon()).await.expect("second");
        assert_eq!(places.take("c", soon()).await.err(), Some(NoPlace));
    }

    #[tokio::test]
    async fn a_chat_waits_for_its_own_turn_while_another_chat_goes_ahead() {
        let places = Places::new(2);
        let held = places.take("a", soon()).await.expect("first");
        assert_eq!(places.take("a", soon()).await.err(), Some(NoPlace), "a's second waits");
        assert!(places.take("b", soon()).await.is_ok(), "b is not held up by a");
        drop(held);
        assert!(places.take("a", soon()).await.is_ok(), "a's turn again once its first is done");
    }

    #[tokio::test]
    async fn chats_nobody_waits_for_are_forgotten() {
        let places = Places::new(1);
        for chat in ["a", "b", "c"] {
            drop(places.take(chat, soon()).await.expect("free"));
        }
        places.chat_turn("d");
        assert!(places.chats.lock().expect("lock").len() <= 1);
    }
}
