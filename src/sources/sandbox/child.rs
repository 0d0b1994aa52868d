//! The child's side: `hearth` started with [`COMMAND`] as its first argument puts the operating
//! system's limits on itself (address space, CPU time, no files written, no core dump) before it
//! reads a byte, then parses the one request on its standard input and writes the answer on its
//! standard output. It runs before any runtime, logger or setting is set up, with an empty
//! environment, so a parser that misbehaves has nothing to reach and nothing to take down but
//! itself.

use std::io::{BufReader, Write};
use std::process::ExitCode;

use rlimit::Resource;

use super::wire::{self, Answer, Job, Refusal, Request};
use super::{document, picture};
use crate::sources::extract;
use crate::sources::fetch::PageKind;

/// The first argument that makes `hearth` a parsing child (not a command anyone types).
pub const COMMAND: &str = "__parse-untrusted";

/// Stack of the thread a job runs on: Readability's output recurses once per level of a page's
/// nesting, which [`extract::shape::MAX_DEPTH`] bounds well within this.
const STACK_BYTES: usize = 64 << 20;
/// Descriptors the child may have open (it opens none of its own).
const MAX_FILES: u64 = 16;

/// The operating system's limits on one child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChildLimits {
    /// Address space, in bytes.
    pub memory_bytes: u64,
    /// CPU time, in seconds.
    pub cpu_secs: u64,
}

impl ChildLimits {
    /// The limits as the child's arguments (after [`COMMAND`]).
    pub fn to_args(self) -> [String; 2] {
        [self.memory_bytes.to_string(), self.cpu_secs.to_string()]
    }

    fn from_args(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<Self> {
        let mut number = || args.next()?.to_str()?.parse::<u64>().ok();
        Some(Self { memory_bytes: number()?, cpu_secs: number()? })
    }

    /// Puts the limits on this process (never above a lower hard limit it inherited, from
    /// `ulimit` or a service manager); an error leaves it unlimited, so the caller must not
    /// parse anything then.
    fn apply(self) -> std::io::Result<()> {
        let lower = |resource: Resource, wanted: u64| -> std::io::Result<(u64, u64)> {
            let (_, hard) = rlimit::getrlimit(resource)?;
            Ok((wanted.min(hard), hard.min(wanted.saturating_add(1))))
        };
        let (memory, _) = lower(Resource::AS, self.memory_bytes)?;
        rlimit::setrlimit(Resource::AS, memory, memory)?;
        // SIGXCPU at the soft limit, SIGKILL a second later if it is caught.
        let (soft, hard) = lower(Resource::CPU, self.cpu_secs.max(1))?;
        rlimit::setrlimit(Resource::CPU, soft, hard)?;
        rlimit::setrlimit(Resource::FSIZE, 0, 0)?;
        rlimit::setrlimit(Resource::CORE, 0, 0)?;
        let (files, _) = lower(Resource::NOFILE, MAX_FILES)?;
        rlimit::setrlimit(Resource::NOFILE, files, files)?;
        Ok(())
    }
}

/// When this process was started as a parsing child: does the job and returns the exit code.
/// `None` for every other command line.
pub fn run_if_child() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != COMMAND {
        return None;
    }
    let Some(limits) = ChildLimits::from_args(args) else {
        eprintln!("{COMMAND}: expected the memory and CPU limits");
        return Some(ExitCode::from(2));
    };
    if let Err(e) = limits.apply() {
        eprintln!("{COMMAND}: cannot set the limits: {e}");
        return Some(ExitCode::from(3));
    }
    Some(serve_one())
}

/// Reads the request, runs it on a thread with a large stack, writes the answer.
fn serve_one() -> ExitCode {
    let mut input = BufReader::new(std::io::stdin().lock());
    let request = wire::read_line::<Request>(&mut input).and_then(|request| {
        Ok((wire::read_payload(&mut input, request.len, wire::MAX_INPUT)?, request.job))
    });
    let (bytes, job) = match request {
        Ok(read) => read,
        Err(e) => {
            eprintln!("{COMMAND}: {e}");
            return ExitCode::from(4);
        }
    };
    let worker = std::thread::Builder::new()
        .name("parse".into())
        .stack_size(STACK_BYTES)
        .spawn(move || answer(job, &bytes));
    let Ok(Ok((answer, payload))) = worker.map(|w| w.join()) else {
        eprintln!("{COMMAND}: the parser failed");
        return ExitCode::from(5);
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(&wire::frame(&answer, &payload)).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(6),
    }
}

/// The job's answer and its payload.
pub fn answer(job: Job, bytes: &[u8]) -> (Answer, Vec<u8>) {
    let refused = |refusal| (Answer::Refused(refusal), Vec::new());
    match job {
        Job::Pdf => match document::read_pdf(bytes) {
            Ok(text) => (Answer::Text(text), Vec::new()),
            Err(e) => refused(e.into()),
        },
        Job::TextFile => match document::read_text(bytes) {
            Ok(text) => (Answer::Text(text), Vec::new()),
            Err(e) => refused(e.into()),
        },
        Job::Picture => match picture::prepare(bytes) {
            Ok(p) => {
                let len = p.jpeg.len() as u64;
                (Answer::Picture { width: p.width, height: p.height, len }, p.jpeg)
            }
            Err(e) => refused(Refusal::Unreadable(e.to_string())),
        },
        Job::Page { html, url, budget_chars, readability } => {
            let body = String::from_utf8_lossy(bytes);
            let kind = if html { PageKind::Html } else { PageKind::Text };
            let found = extract::extract_blocking(kind, &body, &url, budget_chars, readability);
            let page = Answer::Page {
                title: found.title,
                site: found.site,
                text: found.text,
                truncated: found.truncated,
            };
            (page, Vec::new())
        }
    }
}

impl From<document::DocError> for Refusal {
    fn from(error: document::DocError) -> Self {
        match error {
            document::DocError::NoText => Refusal::NoText,
            document::DocError::TooManyPages(n) => Refusal::TooManyPages(n),
            document::DocError::Damaged(why) => Refusal::Unreadable(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limits_travel_as_arguments() {
        let limits = ChildLimits { memory_bytes: 512 << 20, cpu_secs: 10 };
        let args = limits.to_args().map(std::ffi::OsString::from);
        assert_eq!(ChildLimits::from_args(args.into_iter()), Some(limits));
        assert_eq!(ChildLimits::from_args(std::iter::once("x".into())), None);
    }

    #[test]
    fn a_text_file_is_answered_with_its_text_and_an_empty_one_refused() {
        assert_eq!(
            answer(Job::TextFile, "家長會 12/5".as_bytes()).0,
            Answer::Text("家長會 12/5".into())
        );
        assert_eq!(answer(Job::TextFile, b"  ").0, Answer::Refused(Refusal::NoText));
        assert!(matches!(
            answer(Job::Pdf, b"not a pdf").0,
            Answer::Refused(Refusal::Unreadable(_))
        ));
    }
}
