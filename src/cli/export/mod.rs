//! `hearth export --chat ID`: one JSON document of everything hearth keeps for a chat, readable
//! by a person — its reminders (with their repetition in words and next time), lists and their
//! items, memories, price alerts, daily digest, quiet hours, spoken answers, care plans
//! ([`care`]) and the family's messages still in the chat log. The format is documented in `docs/export.md`; `format` and `version` name it.

mod care;

use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde::Serialize;

use crate::features::reminders::describe;
use crate::platform::i18n::Lang;
use crate::sources::calendar::WorkCalendar;
use crate::store::{Direction, Frequency, ReminderStatus, Store, StoreError};

/// What the document calls itself.
pub const FORMAT: &str = "hearth-export";
/// The version of its shape.
pub const VERSION: u32 = 1;
/// The most chat-log messages exported (the log keeps `HEARTH_LOG_RETENTION_DAYS` anyway).
const MAX_MESSAGES: u32 = 50_000;

/// Everything kept for one chat.
#[derive(Debug, Serialize)]
pub struct Export {
    /// Always [`FORMAT`].
    pub format: &'static str,
    /// Always [`VERSION`].
    pub version: u32,
    /// The chat's LINE id.
    pub chat: String,
    /// When the export was made (the times below are local to `time_zone`).
    pub exported_at: String,
    /// The zone of the local times.
    pub time_zone: String,
    /// Active and paused reminders.
    pub reminders: Vec<ExportedReminder>,
    /// The shared lists, with their items.
    pub lists: Vec<ExportedList>,
    /// What the chat asked hearth to remember.
    pub memories: Vec<ExportedMemory>,
    /// Active price alerts.
    pub price_alerts: Vec<ExportedAlert>,
    /// The daily digest, if set.
    pub digest: Option<ExportedDigest>,
    /// Quiet hours, if set.
    pub quiet_hours: Option<ExportedQuietHours>,
    /// Whether answers are also spoken, if the chat (or a member of it) asked.
    pub spoken_answers: Option<ExportedSpoken>,
    /// Care plans set in this chat, with their doses and readings (left out when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub care_plans: Vec<care::ExportedCarePlan>,
    /// The family's messages still in the chat log, oldest first (hearth's answers are not
    /// kept there).
    pub messages: Vec<ExportedMessage>,
}

impl Export {
    /// True when nothing at all is kept for the chat.
    pub fn is_empty(&self) -> bool {
        self.reminders.is_empty()
            && self.lists.is_empty()
            && self.memories.is_empty()
            && self.price_alerts.is_empty()
            && self.digest.is_none()
            && self.quiet_hours.is_none()
            && self.spoken_answers.is_none()
            && self.care_plans.is_empty()
            && self.messages.is_empty()
    }
}

/// A reminder.
#[derive(Debug, Serialize)]
pub struct ExportedReminder {
    /// Its id.
    pub id: i64,
    /// What it is about.
    pub text: String,
    /// How it repeats, in words; `None` for once.
    pub repeats: Option<String>,
    /// Its next time, local.
    pub next: Option<String>,
    /// Whom it @mentions, in a group.
    pub for_member: Option<String>,
    /// `active` or `paused`.
    pub status: &'static str,
}

/// A list and its items.
#[derive(Debug, Serialize)]
pub struct ExportedList {
    /// Its name.
    pub name: String,
    /// Its items, in order.
    pub items: Vec<ExportedItem>,
}

/// An item of a list.
#[derive(Debug, Serialize)]
pub struct ExportedItem {
    /// The thing.
    pub name: String,
    /// How many.
    pub quantity: i64,
    /// Who added it.
    pub added_by: Option<String>,
    /// Who checked it off, when it is.
    pub checked_by: Option<String>,
    /// Checked off.
    pub checked: bool,
}

/// A memory.
#[derive(Debug, Serialize)]
pub struct ExportedMemory {
    /// Its number.
    pub id: i64,
    /// The fact.
    pub text: String,
    /// Who asked hearth to remember it.
    pub said_by: Option<String>,
    /// When, local.
    pub at: String,
}

/// A price alert.
#[derive(Debug, Serialize)]
pub struct ExportedAlert {
    /// Its id.
    pub id: i64,
    /// The symbol watched.
    pub symbol: String,
    /// Its name, when known.
    pub name: Option<String>,
    /// `rises_to` or `falls_to`.
    pub direction: &'static str,
    /// The level.
    pub level: f64,
    /// `once` or `every_time`.
    pub frequency: Frequency,
}

/// The daily digest.
#[derive(Debug, Serialize)]
pub struct ExportedDigest {
    /// Its daily time, HH:MM.
    pub time: String,
    /// The weather's place.
    pub place: Option<String>,
    /// Only on days with something to say.
    pub only_when_something: bool,
}

/// Quiet hours.
#[derive(Debug, Serialize)]
pub struct ExportedQuietHours {
    /// Start, HH:MM.
    pub start: String,
    /// End, HH:MM.
    pub end: String,
}

/// Spoken answers (「用講的回答我」): for the whole chat, or for some of its members.
#[derive(Debug, Serialize)]
pub struct ExportedSpoken {
    /// Every answer in the chat is spoken.
    pub whole_chat: bool,
    /// The members who asked for themselves (their names when hearth knows them).
    pub members: Vec<String>,
}

/// A message of the chat log.
#[derive(Debug, Serialize)]
pub struct ExportedMessage {
    /// Who said it.
    pub speaker: Option<String>,
    /// When, local.
    pub at: String,
    /// What.
    pub text: String,
}

/// A local time as `2026-12-03T08:00+08:00`.
fn local(ms: i64, tz: &TimeZone) -> String {
    Timestamp::from_millisecond(ms)
        .map(|t| t.to_zoned_datetime(tz.clone()).strftime("%Y-%m-%dT%H:%M%:z").to_string())
        .unwrap_or_default()
}

/// Everything `store` keeps for `chat`, its local times in `tz`, reminders described in `lang`
/// (workday ones following `work_calendar`), as of `now`.
pub async fn export(
    store: &Store,
    chat: &str,
    tz: &TimeZone,
    lang: Lang,
    work_calendar: &WorkCalendar,
    now: Timestamp,
) -> Result<Export, StoreError> {
    let reminders = store
        .reminders()
        .list(chat)
        .await?
        .into_iter()
        .map(|r| ExportedReminder {
            id: r.id,
            repeats: r.schedule(work_calendar).and_then(|s| describe::repetition(&s, lang)),
            next: r.next_fire_at.map(|at| local(at, tz)),
            for_member: r.mention_name.clone(),
            status: if r.status == ReminderStatus::Paused { "paused" } else { "active" },
            text: r.text,
        })
        .collect();
    let mut lists = Vec::new();
    for summary in store.lists().of_chat(chat).await? {
        let Some((list, items)) = store.lists().list_by_id(chat, summary.id).await? else {
            continue;
        };
        lists.push(ExportedList {
            // As the family sees it: the shopping list's name is its title (購物清單).
            name: crate::features::lists::ListName { key: list.key, name: list.name }.display(lang),
            items: items
                .into_iter()
                .map(|i| ExportedItem {
                    checked: i.checked_at.is_some(),
                    name: i.name,
                    quantity: i.quantity,
                    added_by: i.added_by_name,
                    checked_by: i.checked_by_name,
                })
                .collect(),
        });
    }
    let memories = store
        .memory()
        .memories(chat)
        .await?
        .into_iter()
        .map(|m| ExportedMemory {
            id: m.id,
            at: local(m.created_at, tz),
            said_by: m.speaker,
            text: m.text,
        })
        .collect();
    let price_alerts = store
        .price_alerts()
        .list(chat)
        .await?
        .into_iter()
        .map(|a| ExportedAlert {
            id: a.id,
            symbol: a.symbol,
            name: a.name,
            direction: match a.direction {
                Direction::Up => "rises_to",
                Direction::Down => "falls_to",
            },
            level: a.level,
            frequency: a.frequency,
        })
        .collect();
    let digest = store.digests().get(chat).await?.map(|d| ExportedDigest {
        time: d.local_time,
        place: d.place,
        only_when_something: d.only_when_something,
    });
    let quiet_hours = store
        .chats()
        .quiet_hours(chat)
        .await?
        .map(|q| ExportedQuietHours { start: q.start_local, end: q.end_local });
    let spoken_answers = spoken(store, chat).await?;
    let mut messages: Vec<ExportedMessage> = store
        .memory()
        .log_window(chat, 0, MAX_MESSAGES)
        .await?
        .into_iter()
        .map(|m| ExportedMessage { speaker: m.speaker, at: local(m.at_ms, tz), text: m.text })
        .collect();
    messages.reverse();
    Ok(Export {
        format: FORMAT,
        version: VERSION,
        chat: chat.to_string(),
        exported_at: local(now.as_millisecond(), tz),
        time_zone: tz.iana_name().unwrap_or("UTC").to_string(),
        reminders,
        lists,
        memories,
        price_alerts,
        digest,
        quiet_hours,
        spoken_answers,
        care_plans: care::plans(store, chat, tz).await?,
        messages,
    })
}

/// Who asked for spoken answers in `chat`, members by name when known; `None` when nobody.
async fn spoken(store: &Store, chat: &str) -> Result<Option<ExportedSpoken>, StoreError> {
    let askers = store.chats().spoken_askers(chat).await?;
    if askers.is_empty() {
        return Ok(None);
    }
    let mut members = Vec::new();
    for user in askers.iter().filter(|u| !u.is_empty()) {
        let name = store.chat_log().member_name(chat, user).await?.map(|(name, _)| name);
        members.push(name.unwrap_or_else(|| user.clone()));
    }
    Ok(Some(ExportedSpoken { whole_chat: askers.iter().any(String::is_empty), members }))
}

/// Writes `bytes` to `path`, a new file. Anything already at `path` is refused unless `force`;
/// with `force`, a regular file or a symbolic link is replaced — a new file is written beside
/// it and renamed into place, so neither a symbolic link nor another hard link of the file is
/// written through — and anything else (a folder, a FIFO, a device) is refused.
pub fn write_new(path: &std::path::Path, bytes: &[u8], force: bool) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind, Write};
    let found = std::fs::symlink_metadata(path).ok().map(|m| m.file_type());
    let write = |at: &std::path::Path| -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(at)?;
        file.write_all(bytes)?;
        file.sync_all()
    };
    match found {
        None => write(path).map_err(|e| match e.kind() {
            ErrorKind::AlreadyExists => {
                Error::new(ErrorKind::AlreadyExists, "the file exists (use --force to replace it)")
            }
            _ => e,
        }),
        Some(kind) if !force => Err(Error::new(
            ErrorKind::AlreadyExists,
            if kind.is_symlink() {
                "it is a symbolic link (use --force to replace the link itself)"
            } else {
                "the file exists (use --force to replace it)"
            },
        )),
        Some(kind) if !kind.is_file() && !kind.is_symlink() => Err(Error::new(
            ErrorKind::InvalidInput,
            "it is not a regular file: nothing is written there, even with --force",
        )),
        Some(_) => {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let partial = path.with_file_name(format!(
                ".{}.{}.partial",
                name.unwrap_or_default(),
                std::process::id()
            ));
            let _ = std::fs::remove_file(&partial);
            let written = write(&partial).and_then(|()| std::fs::rename(&partial, path));
            if written.is_err() {
                let _ = std::fs::remove_file(&partial);
            }
            written
        }
    }
}

#[cfg(test)]
mod tests {
    use super::write_new;

    fn folder(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("hearth-export-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("folder");
        dir
    }

    #[test]
    fn forcing_replaces_a_hard_linked_file_without_writing_through_the_other_link() {
        let dir = folder("hardlink");
        let (out, other) = (dir.join("out.json"), dir.join("other.json"));
        std::fs::write(&other, b"the other file").expect("write");
        std::fs::hard_link(&other, &out).expect("link");
        assert!(write_new(&out, b"{}", false).is_err(), "refused without --force");
        write_new(&out, b"{}", true).expect("replaced");
        assert_eq!(std::fs::read(&out).expect("read"), b"{}");
        assert_eq!(std::fs::read(&other).expect("read"), b"the other file");
        let left: Vec<_> = std::fs::read_dir(&dir).expect("list").collect();
        assert_eq!(left.len(), 2, "no partial file is left");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_fifo_or_a_folder_is_refused_at_once_even_with_force() {
        let dir = folder("fifo");
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
        assert!(made.success());
        let refused = write_new(&fifo, b"{}", true).expect_err("a FIFO is refused");
        assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
        assert!(write_new(&dir, b"{}", true).is_err(), "a folder is refused");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_symbolic_link_is_replaced_itself_never_written_through() {
        let dir = folder("symlink");
        let (out, target) = (dir.join("out.json"), dir.join("target.json"));
        std::fs::write(&target, b"kept").expect("write");
        std::os::unix::fs::symlink(&target, &out).expect("symlink");
        assert!(write_new(&out, b"{}", false).is_err());
        write_new(&out, b"{}", true).expect("replaced");
        assert!(!std::fs::symlink_metadata(&out).expect("meta").file_type().is_symlink());
        assert_eq!(std::fs::read(&target).expect("read"), b"kept");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
