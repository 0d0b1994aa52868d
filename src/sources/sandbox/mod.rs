//! Untrusted bytes — PDFs, photos, text files, the HTML of web pages — are parsed in a
//! short-lived child process, never in the server. A time limit on a thread does not stop the
//! thread, and a memory check made after a library has allocated bounds nothing: only the
//! operating system's limits make a third-party parser safe. So each job runs in `hearth`
//! itself started as a child ([`child::COMMAND`]), which limits its own address space and CPU
//! time before it reads a byte, with an empty environment (no secrets) and no descriptors but
//! its pipes (everything hearth opens is close-on-exec). The server writes the request
//! ([`wire`]), reads at most a bounded answer, and kills the child at the wall-clock limit. A
//! crash, an allocation failure or a timeout in the child is an error value here, a log line
//! and a metric; the server itself never notices more.
//!
//! At most `HEARTH_PARSERS` children run at once, in a fair line ([`Places`]): a chat has at
//! most one job waiting for a child at a time, and waiters are served in arrival order. A file
//! from LINE is downloaded only once its job has a place ([`Sandbox::place`]), so the files
//! waiting for a parser are not held in the server's memory: forty photos arriving at once cost
//! `HEARTH_PARSERS` files of memory, not forty.
//!
//! The parsers themselves are plain functions ([`document`], [`picture`], and
//! [`crate::sources::extract`]), tested in-process; [`child::answer`] is what the child runs.

pub mod child;
pub mod document;
pub mod picture;
pub mod wire;

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;

use crate::platform::config::Config;
pub use crate::platform::places::Place;
use crate::platform::places::Places;
use crate::sources::extract::Extracted;
use crate::sources::fetch::{Page, PageKind};
use child::ChildLimits;
use picture::Prepared;
use wire::{Answer, Job, Refusal, Request};

/// How long a job may wait for a free child before it is given up as busy.
pub const QUEUE_WAIT: Duration = Duration::from_secs(60);
/// What the server keeps of a child's error output, for the log.
const STDERR_KEPT: usize = 2048;

/// Why untrusted content was not parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    /// The parser looked at the content and refused it.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The child ran out of time (wall clock or CPU) and was killed.
    #[error("reading it took too long")]
    TimedOut,
    /// The child crashed or ran out of memory.
    #[error("the parser died ({0})")]
    Died(String),
    /// No child was free in time.
    #[error("too many files are being read right now")]
    Busy,
    /// The child could not be started, or its answer could not be read.
    #[error("the parser could not run: {0}")]
    Failed(String),
}

impl SandboxError {
    fn outcome(&self) -> &'static str {
        match self {
            SandboxError::Refused(_) => "refused",
            SandboxError::TimedOut => "timeout",
            SandboxError::Died(_) => "died",
            SandboxError::Busy => "busy",
            SandboxError::Failed(_) => "failed",
        }
    }
}

/// How children are started and bounded.
#[derive(Debug, Clone)]
pub struct SandboxSettings {
    /// The executable started as a child (`hearth` itself).
    pub program: PathBuf,
    /// Its operating-system limits.
    pub limits: ChildLimits,
    /// Wall-clock time before it is killed.
    pub wall: Duration,
    /// Children at once, at most.
    pub max_children: usize,
}

impl SandboxSettings {
    /// From `HEARTH_PARSERS`, `HEARTH_PARSER_MEMORY_MB`, `HEARTH_PARSER_SECS`: the program is
    /// this executable (on Linux through `/proc/self/exe`, which still works after the file was
    /// replaced by an upgrade).
    pub fn from_config(config: &Config) -> Self {
        let program = config.media.parser_program.clone().unwrap_or_else(this_executable);
        Self {
            program,
            limits: ChildLimits {
                memory_bytes: config.media.parser_memory_mb.saturating_mul(1 << 20),
                cpu_secs: config.media.parser_secs,
            },
            wall: Duration::from_secs(config.media.parser_secs),
            max_children: usize::try_from(config.media.parsers).unwrap_or(2).max(1),
        }
    }
}

fn this_executable() -> PathBuf {
    let proc_self = PathBuf::from("/proc/self/exe");
    if proc_self.exists() {
        return proc_self;
    }
    std::env::current_exe().unwrap_or(proc_self)
}

/// Runs parsing jobs in child processes. Cheap to clone; clones share the children's slots.
#[derive(Debug, Clone)]
pub struct Sandbox {
    settings: Arc<SandboxSettings>,
    places: Places,
}

impl Sandbox {
    /// A sandbox with these settings.
    pub fn new(settings: SandboxSettings) -> Self {
        Self { places: Places::new(settings.max_children), settings: Arc::new(settings) }
    }

    /// From the settings (see [`SandboxSettings::from_config`]).
    pub fn from_config(config: &Config) -> Self {
        Self::new(SandboxSettings::from_config(config))
    }

    /// A place in line for `chat` (its turn, then a free child), waited for at most
    /// [`QUEUE_WAIT`]. Take it **before** downloading what it will read: what waits for a
    /// parser is then a place in line, not the file's bytes in the server's memory, so the
    /// server holds at most `HEARTH_PARSERS` files however many arrive at once.
    pub async fn place(&self, chat: &str) -> Result<Place, SandboxError> {
        self.place_by(chat, Instant::now() + QUEUE_WAIT).await.inspect_err(|e| {
            tracing::warn!(chat, error = %e, "no parser free for a file");
            crate::platform::metrics::parse("file", e.outcome());
        })
    }

    /// `chat`'s turn and a free child, by `deadline`.
    async fn place_by(&self, chat: &str, deadline: Instant) -> Result<Place, SandboxError> {
        self.places.take(chat, deadline).await.map_err(|_| SandboxError::Busy)
    }

    /// The text of a PDF, read in the child `place` holds (see [`document::read_pdf`]).
    pub async fn pdf_text(&self, place: Place, bytes: Vec<u8>) -> Result<String, SandboxError> {
        match self.run_in(place, Job::Pdf, bytes, None).await? {
            (Answer::Text(text), _) => Ok(text),
            (other, _) => Err(unexpected(&other)),
        }
    }

    /// The text of a plain-text file, read in the child `place` holds (see
    /// [`document::read_text`]).
    pub async fn file_text(&self, place: Place, bytes: Vec<u8>) -> Result<String, SandboxError> {
        match self.run_in(place, Job::TextFile, bytes, None).await? {
            (Answer::Text(text), _) => Ok(text),
            (other, _) => Err(unexpected(&other)),
        }
    }

    /// A photo, ready for the model, made in the child `place` holds (see
    /// [`picture::prepare`]).
    pub async fn picture(&self, place: Place, bytes: Vec<u8>) -> Result<Prepared, SandboxError> {
        match self.run_in(place, Job::Picture, bytes, None).await? {
            (Answer::Picture { width, height, .. }, jpeg) => Ok(Prepared { jpeg, width, height }),
            (other, _) => Err(unexpected(&other)),
        }
    }

    /// The main text of `page`, at most `budget_chars` characters, by `deadline`. A page the
    /// Readability extractor cannot get through within the limits is read again with its tags
    /// stripped, which any page survives.
    pub async fn page(
        &self,
        chat: &str,
        page: &Page,
        budget_chars: usize,
        deadline: Instant,
    ) -> Result<Extracted, SandboxError> {
        let job = |readability| Job::Page {
            html: page.kind == PageKind::Html,
            url: page.url.to_string(),
            budget_chars,
            readability,
        };
        let body = || page.body.as_bytes().to_vec();
        let first = self.run(chat, job(true), body(), Some(deadline)).await;
        let answer = match first {
            Err(SandboxError::Died(_) | SandboxError::TimedOut)
                if page.kind == PageKind::Html && Instant::now() < deadline =>
            {
                tracing::info!(url = %page.url, "page too much for the readable extractor; stripping its tags");
                self.run(chat, job(false), body(), Some(deadline)).await?
            }
            other => other?,
        };
        match answer {
            (Answer::Page { title, site, text, truncated }, _) => {
                Ok(Extracted { title, site, text, truncated })
            }
            (other, _) => Err(unexpected(&other)),
        }
    }

    /// Runs `job` over `bytes` in a child, waiting for `chat`'s turn and a free slot first;
    /// everything is over by `deadline` when one is given, else within [`QUEUE_WAIT`] and the
    /// wall-clock limit.
    async fn run(
        &self,
        chat: &str,
        job: Job,
        bytes: Vec<u8>,
        deadline: Option<Instant>,
    ) -> Result<(Answer, Vec<u8>), SandboxError> {
        let queue_deadline = deadline.unwrap_or_else(|| Instant::now() + QUEUE_WAIT);
        match self.place_by(chat, queue_deadline).await {
            Ok(place) => self.run_in(place, job, bytes, deadline).await,
            Err(e) => {
                crate::platform::metrics::parse(job_name(&job), e.outcome());
                tracing::warn!(job = job_name(&job), error = %e, "untrusted content could not be parsed");
                Err(e)
            }
        }
    }

    /// Runs `job` over `bytes` in the child `place` holds; over by `deadline` when one is
    /// given, else within the wall-clock limit.
    async fn run_in(
        &self,
        place: Place,
        job: Job,
        bytes: Vec<u8>,
        deadline: Option<Instant>,
    ) -> Result<(Answer, Vec<u8>), SandboxError> {
        let name = job_name(&job);
        let wall = Instant::now() + self.settings.wall;
        let end = deadline.map_or(wall, |d| d.min(wall));
        let result = match tokio::time::timeout_at(end, self.in_child(job, bytes)).await {
            Ok(answered) => answered,
            // Dropping the child's future kills it (`kill_on_drop`).
            Err(_) => Err(SandboxError::TimedOut),
        };
        drop(place);
        let outcome = match &result {
            Ok((Answer::Refused(_), _)) => "refused",
            Ok(_) => "ok",
            Err(e) => e.outcome(),
        };
        crate::platform::metrics::parse(name, outcome);
        match result {
            Ok((Answer::Refused(refusal), _)) => Err(SandboxError::Refused(refusal)),
            Err(SandboxError::Refused(_)) | Ok(_) => result,
            Err(e) => {
                tracing::warn!(job = name, error = %e, "untrusted content could not be parsed");
                Err(e)
            }
        }
    }

    /// Starts a child, hands it the job and reads its answer.
    async fn in_child(&self, job: Job, bytes: Vec<u8>) -> Result<(Answer, Vec<u8>), SandboxError> {
        let settings = &self.settings;
        let mut child = tokio::process::Command::new(&settings.program)
            .arg(child::COMMAND)
            .args(settings.limits.to_args())
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                SandboxError::Failed(format!("cannot start {}: {e}", settings.program.display()))
            })?;
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(SandboxError::Failed("the child's pipes are missing".into()));
        };
        let head = wire::frame(&Request { job, len: bytes.len() as u64 }, &[]);
        let write = async move {
            // A child that dies early closes its end: what it made of the job is in its status.
            if stdin.write_all(&head).await.is_ok() {
                let _ = stdin.write_all(&bytes).await;
            }
        };
        let answer_cap = wire::MAX_LINE + wire::MAX_PAYLOAD as usize;
        let (_, out, err) =
            tokio::join!(write, read_capped(stdout, answer_cap), read_capped(stderr, STDERR_KEPT));
        if out.len() > answer_cap {
            let _ = child.start_kill();
        }
        let status = child.wait().await.map_err(|e| SandboxError::Failed(e.to_string()))?;
        if !status.success() {
            let said = String::from_utf8_lossy(&err);
            return Err(died(status, said.trim()));
        }
        let mut answer = std::io::Cursor::new(out);
        let head: Answer =
            wire::read_line(&mut answer).map_err(|e| SandboxError::Failed(e.to_string()))?;
        let payload = match &head {
            Answer::Picture { len, .. } => wire::read_payload(&mut answer, *len, wire::MAX_PAYLOAD)
                .map_err(|e| SandboxError::Failed(e.to_string()))?,
            _ => Vec::new(),
        };
        Ok((head, payload))
    }
}

/// Reads everything from `pipe` (so the child never blocks on it), keeping at most `cap + 1`
/// bytes: more than `cap` tells the caller the child said too much.
async fn read_capped(mut pipe: impl AsyncRead + Unpin, cap: usize) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return kept,
            Ok(n) => {
                let room = (cap + 1).saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
                if kept.len() > cap {
                    return kept;
                }
            }
        }
    }
}

/// What a child's failed exit means: out of CPU time is a timeout; anything else a death.
fn died(status: std::process::ExitStatus, said: &str) -> SandboxError {
    use std::os::unix::process::ExitStatusExt;
    const SIGXCPU: i32 = 24;
    match status.signal() {
        Some(SIGXCPU) => SandboxError::TimedOut,
        Some(signal) => SandboxError::Died(format!("signal {signal}: {said}")),
        None => SandboxError::Died(format!("{status}: {said}")),
    }
}

fn unexpected(answer: &Answer) -> SandboxError {
    SandboxError::Failed(format!("an answer of the wrong kind: {answer:?}"))
}

fn job_name(job: &Job) -> &'static str {
    match job {
        Job::Pdf => "pdf",
        Job::TextFile => "text_file",
        Job::Picture => "picture",
        Job::Page { .. } => "page",
    }
}
