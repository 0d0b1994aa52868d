//! Group commit: store writes asked for while another is being made wait for it and then go
//! together, in one transaction. There is no timer: a write asked for alone goes at once; under
//! load, everything that arrived during one transaction shares the next. Each caller still
//! waits until the transaction holding its own rows is committed, so what is acknowledged is
//! stored exactly as before — only with fewer, larger transactions.
//!
//! A failed shared transaction is retried once for each caller's rows alone, so one caller's bad
//! rows never fail another's, and every caller gets its own typed error — with its rows back,
//! to try again if it wants to.
//!
//! A write waiting here is work in hand ([`InFlight`]) from the moment it is asked for until its
//! caller has been answered, whether or not the caller still waits: a process (or a test) that
//! waits until nothing is in hand never stops while rows it acknowledged or logged may still be
//! on their way to the store.

use std::future::Future;
use std::sync::{Arc, OnceLock};

use tokio::sync::{mpsc, oneshot};

use super::in_flight::{InFlight, InFlightGuard};
use crate::store::StoreError;

/// Most callers' writes in one transaction.
const MAX_CALLERS: usize = 512;

/// One kind of write that many callers' rows can share.
pub trait Batch: Send + Sync + 'static {
    /// A row one caller asks for.
    type Item: Send + 'static;
    /// What the write says about each row.
    type Out: Send + 'static;

    /// Writes `items` in one transaction; one answer per item, in order.
    fn write(
        &self,
        items: &[Self::Item],
    ) -> impl Future<Output = Result<Vec<Self::Out>, StoreError>> + Send;
}

/// A caller's rows, where to answer, and the count of work in hand the request holds until
/// then.
type Request<B> = (Vec<<B as Batch>::Item>, oneshot::Sender<Answer<B>>, InFlightGuard);
type Answer<B> = Result<Vec<<B as Batch>::Out>, Unwritten<<B as Batch>::Item>>;

/// A write that failed, with the rows it was given back (to try again), when it still has them.
#[derive(Debug)]
pub struct Unwritten<T> {
    /// Why it failed.
    pub error: StoreError,
    /// The rows (empty when the write was abandoned at shutdown).
    pub items: Vec<T>,
}

/// Writes `items` alone.
async fn write_alone<B: Batch>(batch: &B, items: Vec<B::Item>) -> Answer<B> {
    batch.write(&items).await.map_err(|error| Unwritten { error, items })
}

/// Writes of one kind, committed in groups by a task of their own (started on first use, and
/// ending when this is dropped).
pub struct GroupCommit<B: Batch> {
    batch: Arc<B>,
    queue: OnceLock<mpsc::UnboundedSender<Request<B>>>,
    in_flight: InFlight,
}

impl<B: Batch> GroupCommit<B> {
    /// Group commits of `batch`, each write counted in `in_flight` until it is answered.
    pub fn new(batch: B, in_flight: &InFlight) -> Self {
        Self { batch: Arc::new(batch), queue: OnceLock::new(), in_flight: in_flight.clone() }
    }

    /// Writes `items`, in a transaction shared with whatever other callers asked for meanwhile;
    /// returns once it is committed.
    pub async fn write(&self, items: Vec<B::Item>) -> Answer<B> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        let queue = self.queue.get_or_init(|| {
            let (sender, receiver) = mpsc::unbounded_channel();
            tokio::spawn(commit_loop(self.batch.clone(), receiver));
            sender
        });
        let (answer, answered) = oneshot::channel();
        match queue.send((items, answer, self.in_flight.enter())) {
            Ok(()) => match answered.await {
                Ok(answer) => answer,
                Err(_) => Err(Unwritten { error: StoreError::Abandoned, items: Vec::new() }),
            },
            // The loop is gone (its runtime ended): write alone. Boxed, so this rare path's
            // store future does not make every caller's future (a webhook's) as large as it.
            Err(mpsc::error::SendError((items, _, _in_hand))) => {
                Box::pin(write_alone(&*self.batch, items)).await
            }
        }
    }
}

/// Takes every waiting request, writes them in one transaction, answers each; again.
async fn commit_loop<B: Batch>(batch: Arc<B>, mut queue: mpsc::UnboundedReceiver<Request<B>>) {
    let mut requests = Vec::new();
    while queue.recv_many(&mut requests, MAX_CALLERS).await > 0 {
        let requests = std::mem::take(&mut requests);
        if requests.len() == 1 {
            let Some((items, answer, _in_hand)) = requests.into_iter().next() else { continue };
            let _ = answer.send(write_alone(&*batch, items).await);
            continue;
        }
        let sizes: Vec<usize> = requests.iter().map(|(items, ..)| items.len()).collect();
        // Each request stays counted as work in hand until its answer is sent (the guards go
        // with the answers, dropped once sent).
        let (items, answers): (Vec<Vec<B::Item>>, Vec<_>) =
            requests.into_iter().map(|(items, answer, in_hand)| (items, (answer, in_hand))).unzip();
        let all: Vec<B::Item> = items.into_iter().flatten().collect();
        match batch.write(&all).await {
            Ok(outs) => {
                let mut outs = outs.into_iter();
                for (size, (answer, _in_hand)) in sizes.into_iter().zip(answers) {
                    let _ = answer.send(Ok(outs.by_ref().take(size).collect()));
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, callers = answers.len(), "a shared write failed; writing each caller's rows alone");
                let mut rest = all.into_iter();
                for (size, (answer, _in_hand)) in sizes.into_iter().zip(answers) {
                    let own: Vec<B::Item> = rest.by_ref().take(size).collect();
                    let _ = answer.send(write_alone(&*batch, own).await);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// Records the transactions it is asked for (each waits for the gate to open); fails any
    /// holding a negative number.
    struct Recorder {
        started: std::sync::atomic::AtomicUsize,
        transactions: Mutex<Vec<Vec<i64>>>,
        gate: tokio::sync::Semaphore,
    }

    impl Batch for Recorder {
        type Item = i64;
        type Out = i64;

        async fn write(&self, items: &[i64]) -> Result<Vec<i64>, StoreError> {
            self.started.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let _open = self.gate.acquire().await;
            self.transactions.lock().expect("lock").push(items.to_vec());
            if items.iter().any(|i| *i < 0) {
                return Err(StoreError::Abandoned);
            }
            Ok(items.iter().map(|i| i * 10).collect())
        }
    }

    fn recorder(open: bool) -> Arc<GroupCommit<Recorder>> {
        counted_recorder(open, &InFlight::default())
    }

    fn counted_recorder(open: bool, in_flight: &InFlight) -> Arc<GroupCommit<Recorder>> {
        let batch = Recorder {
            started: Default::default(),
            transactions: Mutex::default(),
            gate: tokio::sync::Semaphore::new(usize::from(open)),
        };
        Arc::new(GroupCommit::new(batch, in_flight))
    }

    /// Waits until the first transaction is under way (and waiting for the gate).
    async fn first_under_way(commit: &GroupCommit<Recorder>) {
        while commit.batch.started.load(std::sync::atomic::Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
    }

    /// Writes `items` through `commit` from a task of its own.
    fn spawn_write(
        commit: &Arc<GroupCommit<Recorder>>,
        items: Vec<i64>,
    ) -> tokio::task::JoinHandle<Answer<Recorder>> {
        let commit = commit.clone();
        tokio::spawn(async move { commit.write(items).await })
    }

    #[tokio::test]
    async fn a_write_alone_goes_at_once_in_its_own_transaction() {
        let commit = recorder(true);
        assert_eq!(commit.write(vec![1, 2]).await.expect("written"), [10, 20]);
        assert_eq!(*commit.batch.transactions.lock().expect("lock"), [vec![1, 2]]);
    }

    #[tokio::test]
    async fn writes_asked_for_during_a_transaction_share_the_next_and_each_gets_its_own_answer() {
        let commit = recorder(false);
        let first = spawn_write(&commit, vec![1]);
        first_under_way(&commit).await;
        let waiting: Vec<_> = (2..=4).map(|n| spawn_write(&commit, vec![n, n])).collect();
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        commit.batch.gate.add_permits(1);
        assert_eq!(first.await.expect("join").expect("written"), [10]);
        for (n, task) in (2..=4).zip(waiting) {
            assert_eq!(task.await.expect("join").expect("written"), [n * 10, n * 10]);
        }
        let transactions = commit.batch.transactions.lock().expect("lock").clone();
        assert_eq!(transactions, [vec![1], vec![2, 2, 3, 3, 4, 4]]);
    }

    #[tokio::test]
    async fn a_failed_shared_write_is_retried_per_caller_so_only_the_bad_rows_fail() {
        let commit = recorder(false);
        let first = spawn_write(&commit, vec![1]);
        first_under_way(&commit).await;
        let good = spawn_write(&commit, vec![2]);
        let bad = spawn_write(&commit, vec![-3]);
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        commit.batch.gate.add_permits(1);
        first.await.expect("join").expect("written");
        assert_eq!(good.await.expect("join").expect("written"), [20]);
        assert!(bad.await.expect("join").is_err());
    }

    #[tokio::test]
    async fn a_write_is_work_in_hand_until_committed_even_when_its_caller_went_away() {
        let in_flight = InFlight::default();
        let commit = counted_recorder(false, &in_flight);
        let first = spawn_write(&commit, vec![1]);
        first_under_way(&commit).await;
        let queued = spawn_write(&commit, vec![2]);
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        first.abort();
        queued.abort();
        assert!(first.await.is_err_and(|e| e.is_cancelled()));
        assert!(queued.await.is_err_and(|e| e.is_cancelled()));
        assert_eq!(in_flight.count(), 2, "one write under way, one queued behind it: both in hand");
        commit.batch.gate.add_permits(1);
        in_flight.wait_idle().await;
        let transactions = commit.batch.transactions.lock().expect("lock").clone();
        assert_eq!(transactions, [vec![1], vec![2]], "both written although nobody waited");
    }
}
