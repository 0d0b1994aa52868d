//! `recap`: the family's messages of this conversation over a window the LLM picks ("the last
//! hour", "today", "the last 50 messages"), attributed by display name, for the LLM to
//! summarise. Only `ctx`'s conversation is read; hearth's own answers are left out. The result
//! is bounded: at most [`MAX_MESSAGES`] messages and about [`MAX_CHARS`] characters, newest kept.

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Tool, ToolCtx, ToolError};
use crate::features::memory::LoggedMessage;
use crate::features::memory::ops::MemoryOps;
use crate::platform::i18n::Lang;

/// The most messages one recap returns.
pub const MAX_MESSAGES: u32 = 200;
/// About the most characters of message text one recap returns.
pub const MAX_CHARS: usize = 12_000;
/// Messages returned when the request names no window.
const DEFAULT_MESSAGES: u32 = 50;
/// The longest look back, in minutes (31 days).
const MAX_MINUTES: u32 = 31 * 24 * 60;
/// One long message is cut to this many characters.
const MAX_MESSAGE_CHARS: usize = 500;

/// Arguments of `recap`. Give at most one of `since_minutes` and `since_local_time`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Args {
    /// "the last hour" → 60.
    pub since_minutes: Option<u32>,
    /// "today", "since this morning": local start YYYY-MM-DDTHH:MM.
    pub since_local_time: Option<String>,
    /// "the last 50 messages" → 50.
    pub last_messages: Option<u32>,
}

/// One message of the window.
#[derive(Debug, Clone, Serialize)]
pub struct Line {
    /// Who said it (display name).
    pub speaker: String,
    /// When, local time `MM/DD HH:MM`.
    pub time: String,
    /// What they said.
    pub text: String,
}

/// The result of `recap`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The start of the window, local time, or null for "the latest messages".
    pub from: Option<String>,
    /// Now, local time.
    pub to: String,
    /// The messages, oldest first.
    pub messages: Vec<Line>,
    /// True when older messages of the window were left out to stay within the size limit.
    pub older_messages_left_out: bool,
    /// How to use this.
    pub note: &'static str,
}

/// The window a request asks for: messages said at or after `since_ms`, at most `limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The start, Unix ms (0 when only a count was asked for).
    pub since_ms: i64,
    /// Whether the start was given (otherwise the window is "the latest `limit` messages").
    pub bounded: bool,
    /// The most messages returned.
    pub limit: u32,
}

impl Window {
    /// The window for `args` at `now` in `tz`; absurd values are refused.
    pub fn from_args(args: &Args, now: Timestamp, tz: &TimeZone) -> Result<Window, ToolError> {
        let invalid = |m: &str| Err(ToolError::InvalidArgs(m.into()));
        let since = match (args.since_minutes, args.since_local_time.as_deref()) {
            (Some(_), Some(_)) => {
                return invalid("give since_minutes or since_local_time, not both");
            }
            (Some(m), None) => {
                if m == 0 || m > MAX_MINUTES {
                    return invalid("since_minutes must be between 1 and 44640 (31 days)");
                }
                let back = SignedDuration::from_mins(i64::from(m));
                Some(now.saturating_sub(back).unwrap_or(now))
            }
            (None, Some(local)) => Some(parse_local(local, now, tz)?),
            (None, None) => None,
        };
        let limit = match args.last_messages {
            Some(0) => return invalid("last_messages must be at least 1"),
            Some(n) if n > 10_000 => {
                return invalid("last_messages must be at most 10000 (at most 200 are returned)");
            }
            Some(n) => n.min(MAX_MESSAGES),
            None if since.is_some() => MAX_MESSAGES,
            None => DEFAULT_MESSAGES,
        };
        Ok(Window {
            since_ms: since.map_or(0, |t| t.as_millisecond()),
            bounded: since.is_some(),
            limit,
        })
    }
}

fn parse_local(local: &str, now: Timestamp, tz: &TimeZone) -> Result<Timestamp, ToolError> {
    let text = local.trim();
    let civil = text
        .parse::<DateTime>()
        .or_else(|_| text.parse::<Date>().map(|d| d.to_datetime(jiff::civil::Time::midnight())))
        .map_err(|_| {
            ToolError::InvalidArgs(format!(
                "since_local_time {text:?} is not a local time like 2026-11-30T08:00"
            ))
        })?;
    let at = civil
        .to_zoned_datetime(tz.clone())
        .map_err(|_| ToolError::InvalidArgs(format!("{text:?} is not a valid local time")))?
        .timestamp();
    if at > now {
        return Err(ToolError::InvalidArgs(format!(
            "since_local_time {text:?} is in the future; recap looks back from now"
        )));
    }
    if now.duration_since(at) > SignedDuration::from_mins(i64::from(MAX_MINUTES)) {
        return Err(ToolError::InvalidArgs("recap looks back at most 31 days".into()));
    }
    Ok(at)
}

/// The window's messages (newest first, as the store returns them) as lines, oldest first,
/// keeping the newest within [`MAX_CHARS`]; the flag says whether any were dropped.
pub fn lines(rows: Vec<LoggedMessage>, tz: &TimeZone, lang: Lang) -> (Vec<Line>, bool) {
    let mut kept = Vec::new();
    let mut used = 0;
    let mut dropped = false;
    for row in rows {
        let text = crate::platform::text::truncate_graphemes(row.text.trim(), MAX_MESSAGE_CHARS);
        used += text.chars().count();
        if used > MAX_CHARS {
            dropped = true;
            break;
        }
        let time = Timestamp::from_millisecond(row.at_ms)
            .map(|t| t.to_zoned_datetime(tz.clone()).strftime("%m/%d %H:%M").to_string())
            .unwrap_or_default();
        let speaker = row.speaker.unwrap_or_else(|| lang.pick("某人", "someone").to_string());
        kept.push(Line { speaker, time, text });
    }
    kept.reverse();
    (kept, dropped)
}

/// The recap tool.
pub struct Recap {
    memory: MemoryOps,
}

impl Recap {
    /// The tool over the chat log, read through the memories' operations.
    pub fn new(memory: MemoryOps) -> Self {
        Self { memory }
    }
}

impl Tool for Recap {
    const NAME: &'static str = "recap";
    const DESCRIPTION: &'static str = "THIS chat's recent messages, to summarise (剛剛大家講了什麼, 'what did I miss?'); only this chat's exist for you. One window; be brief, name people.";
    type Args = Args;
    type Output = Output;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let now = ctx.now();
        let window = Window::from_args(&args, now, &ctx.tz)?;
        let fetch = if window.bounded { window.limit + 1 } else { window.limit };
        let mut rows = self.memory.log_window(ctx, window.since_ms, fetch).await?;
        let more_in_window = rows.len() > window.limit as usize;
        rows.truncate(window.limit as usize);
        if rows.is_empty() {
            return Err(ToolError::NotFound(
                "no messages from the family in this chat in that window (hearth keeps the chat log only for a limited time)".into(),
            ));
        }
        let (messages, dropped) = lines(rows, &ctx.tz, ctx.lang);
        let local = |t: Timestamp| {
            t.to_zoned_datetime(ctx.tz.clone()).strftime("%Y-%m-%d %H:%M").to_string()
        };
        Ok(Output {
            from: window
                .bounded
                .then(|| Timestamp::from_millisecond(window.since_ms).map(local).ok())
                .flatten(),
            to: local(now),
            messages,
            older_messages_left_out: more_in_window || dropped,
            note: "Summarise these for the family in their language, attributing to speakers by name. If older messages were left out, say the recap covers the latest part.",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().expect("instant")
    }

    fn taipei() -> TimeZone {
        TimeZone::get("Asia/Taipei").expect("zone")
    }

    fn now() -> Timestamp {
        at("2026-11-30T12:00:00Z") // 20:00 in Taipei
    }

    #[test]
    fn minutes_today_and_counts_become_windows() {
        let w = Window::from_args(
            &Args { since_minutes: Some(60), ..Args::default() },
            now(),
            &taipei(),
        )
        .expect("valid");
        assert_eq!(w.since_ms, at("2026-11-30T11:00:00Z").as_millisecond());
        assert!(w.bounded && w.limit == MAX_MESSAGES);
        let today = Args { since_local_time: Some("2026-11-30T00:00".into()), ..Args::default() };
        let w = Window::from_args(&today, now(), &taipei()).expect("valid");
        assert_eq!(w.since_ms, at("2026-11-29T16:00:00Z").as_millisecond());
        let date_only = Args { since_local_time: Some("2026-11-30".into()), ..Args::default() };
        assert_eq!(Window::from_args(&date_only, now(), &taipei()).expect("valid"), w);
        let last = Args { last_messages: Some(50), ..Args::default() };
        let w = Window::from_args(&last, now(), &taipei()).expect("valid");
        assert!(!w.bounded && w.limit == 50);
        let none = Window::from_args(&Args::default(), now(), &taipei()).expect("valid");
        assert_eq!(none.limit, DEFAULT_MESSAGES);
        let many = Args { last_messages: Some(500), ..Args::default() };
        assert_eq!(Window::from_args(&many, now(), &taipei()).expect("valid").limit, MAX_MESSAGES);
    }

    #[test]
    fn absurd_windows_are_refused() {
        let bad = [
            Args { since_minutes: Some(0), ..Args::default() },
            Args { since_minutes: Some(MAX_MINUTES + 1), ..Args::default() },
            Args { last_messages: Some(0), ..Args::default() },
            Args { last_messages: Some(1_000_000), ..Args::default() },
            Args { since_local_time: Some("yesterday".into()), ..Args::default() },
            Args { since_local_time: Some("2026-12-01T08:00".into()), ..Args::default() },
            Args { since_local_time: Some("2020-01-01T08:00".into()), ..Args::default() },
            Args {
                since_minutes: Some(60),
                since_local_time: Some("2026-11-30T08:00".into()),
                ..Args::default()
            },
        ];
        for args in bad {
            assert!(
                matches!(
                    Window::from_args(&args, now(), &taipei()),
                    Err(ToolError::InvalidArgs(_))
                ),
                "{args:?}"
            );
        }
    }

    #[test]
    fn lines_keep_the_newest_within_the_size_limit_oldest_first() {
        let rows: Vec<LoggedMessage> = (0..100)
            .rev()
            .map(|i| LoggedMessage {
                speaker: (i % 2 == 0).then(|| "媽媽".to_string()),
                from_bot: false,
                text: format!("{i:03}{}", "字".repeat(400)),
                at_ms: now().as_millisecond() - (100 - i) * 60_000,
                tainted: false,
            })
            .collect();
        let (lines, dropped) = lines(rows, &taipei(), Lang::ZhTw);
        assert!(dropped);
        assert!(lines.iter().map(|l| l.text.chars().count()).sum::<usize>() <= MAX_CHARS);
        assert!(lines.last().is_some_and(|l| l.text.starts_with("099")), "newest kept, last");
        assert!(lines[0].text.starts_with("071"), "{}", &lines[0].text[..3]);
        assert_eq!(lines.last().map(|l| l.time.as_str()), Some("11/30 19:59"));
        assert!(lines.iter().any(|l| l.speaker == "某人"));
    }
}
