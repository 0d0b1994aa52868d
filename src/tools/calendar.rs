//! `calendar`: the family calendar — add an event (「下週六中午阿公生日，欣葉」), move or cancel it,
//! read the agenda of some days (「這週末有什麼事」), or give the asker the private link that puts
//! the chat's calendar on their phone (「把行事曆加到我的手機」). The verbs are
//! [`crate::features::calendar::ops`]; a repeating event repeats by the reminders' rules, in a
//! compact form (a yearly lunar date as "MM-DD").

use jiff::civil::Date;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Card, CardButton, CardRow, Tone, Tool, ToolCtx, ToolError};
use crate::features::calendar::ops::feed::{Feeds, Given};
use crate::features::calendar::ops::remind::day_before_offered;
use crate::features::calendar::ops::{Agenda, CalendarOps, EventRequest, EventView, Saved};
use crate::features::reminders::recurrence::Freq;
use crate::features::reminders::request::{LunarRequest, RepetitionRequest};
use crate::platform::i18n::Lang;

/// What to do.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Put an event on the calendar.
    Add,
    /// Move or change one (by id).
    Move,
    /// Cancel one (by id).
    Cancel,
    /// What happens from start to end.
    Agenda,
    /// The asker's private link for their phone's calendar.
    Phone,
}

/// How an event repeats.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Repeat {
    /// Every week on start's weekday.
    Weekly,
    /// Every month on start's day.
    Monthly,
    /// Every year on start's date.
    Yearly,
    /// Every year on the lunar date `lunar`.
    LunarYearly,
    /// Every workday of Taiwan's calendar.
    Workdays,
}

/// Arguments of `calendar`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// What to do.
    pub action: Action,
    /// move/cancel: from the agenda.
    pub id: Option<i64>,
    /// In the user's words.
    pub title: Option<String>,
    /// YYYY-MM-DD (all day) or YYYY-MM-DDTHH:MM; agenda: from (null: today); cancel: that day's only.
    pub start: Option<String>,
    /// Same form; agenda: to (null: 6 days on).
    pub end: Option<String>,
    /// Where.
    pub place: Option<String>,
    /// Who goes.
    pub who: Option<String>,
    /// null: once.
    pub repeat: Option<Repeat>,
    /// lunar_yearly: MM-DD (八月十五 → 08-15).
    pub lunar: Option<String>,
}

/// What `calendar` answers.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Output {
    /// An event added or moved, with its clashes.
    Saved(Saved),
    /// An event cancelled, or one time of it.
    Cancelled {
        /// It (at that time).
        cancelled: EventView,
        /// Only that time: the rest of the series stays.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        only_that_time: bool,
    },
    /// An agenda.
    Agenda(Agenda),
    /// Where the asker's feed link went.
    Phone {
        /// Here, sent privately, or not sent and why.
        link: Given,
        /// What to tell them.
        note: &'static str,
    },
}

/// The calendar tool.
pub struct Calendar {
    ops: CalendarOps,
    feeds: Feeds,
}

impl Calendar {
    /// The tool over the chats' calendars and their feeds.
    pub fn new(ops: CalendarOps, feeds: Feeds) -> Self {
        Self { ops, feeds }
    }
}

/// The event `args` describe.
fn request(args: &Args) -> Result<EventRequest, ToolError> {
    let repetition = match args.repeat {
        None => None,
        Some(repeat) => Some(repetition(repeat, args.lunar.as_deref())?),
    };
    Ok(EventRequest {
        title: args.title.clone().unwrap_or_default(),
        start: args.start.clone().unwrap_or_default(),
        end: args.end.clone(),
        place: args.place.clone(),
        people: args.who.clone(),
        notes: None,
        repetition,
        uid: None,
    })
}

/// The reminders' rule of `repeat` (with the lunar "MM-DD" of a yearly lunar date).
fn repetition(repeat: Repeat, lunar: Option<&str>) -> Result<RepetitionRequest, ToolError> {
    let freq = match repeat {
        Repeat::Weekly => Freq::Weekly,
        Repeat::Monthly => Freq::Monthly,
        Repeat::Yearly => Freq::Yearly,
        Repeat::LunarYearly => Freq::LunarYearly,
        Repeat::Workdays => Freq::Workdays,
    };
    let lunar = match (repeat, lunar.map(str::trim)) {
        (Repeat::LunarYearly, Some(date)) => {
            let parsed = date
                .split_once('-')
                .and_then(|(m, d)| Some((m.parse::<u8>().ok()?, d.parse::<u8>().ok()?)));
            let Some((month, day)) = parsed else {
                return Err(ToolError::InvalidArgs(format!(
                    "lunar {date:?}: use MM-DD (八月十五 → 08-15)"
                )));
            };
            Some(LunarRequest {
                days: vec![day],
                month: Some(month),
                leap: false,
                days_before: None,
            })
        }
        (Repeat::LunarYearly, None) => {
            return Err(ToolError::InvalidArgs("lunar_yearly needs lunar: the lunar MM-DD".into()));
        }
        _ => None,
    };
    Ok(RepetitionRequest { freq, lunar, ..RepetitionRequest::default() })
}

/// A day of the agenda's range: `text` as a date (a time's date), or `default`.
fn day(text: Option<&str>, default: Date) -> Result<Date, ToolError> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(default),
        Some(text) => crate::features::calendar::Moment::parse(text)
            .map(|m| m.date())
            .ok_or_else(|| ToolError::InvalidArgs(format!("{text:?}: use YYYY-MM-DD"))),
    }
}

impl Tool for Calendar {
    const NAME: &'static str = "calendar";
    const DESCRIPTION: &'static str = "The group's calendar (生日聚餐, 鋼琴課): add, move, cancel, agenda (這週末有什麼事), phone (the asker's private link for their phone). A push at a time: reminder.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;
    const IN_ONE_TO_ONE: bool = false;

    fn changes_state(&self, args: &Args) -> bool {
        matches!(args.action, Action::Add | Action::Move | Action::Cancel)
    }

    fn check(&self, ctx: &ToolCtx, args: &Args) -> Result<(), ToolError> {
        if !ctx.conversation.is_multi_person() {
            return Err(ToolError::InvalidArgs(
                "the family calendar is the group's: ask in the family group".into(),
            ));
        }
        match args.action {
            Action::Move | Action::Cancel if args.id.is_none() => {
                Err(ToolError::InvalidArgs("say which event: its id from the agenda".into()))
            }
            Action::Add | Action::Move => request(args).map(|_| ()),
            _ => Ok(()),
        }
    }

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        self.check(ctx, &args)?;
        let id = args.id.unwrap_or_default();
        match args.action {
            Action::Add => Ok(Output::Saved(self.ops.add(ctx, &request(&args)?).await?)),
            Action::Move => Ok(Output::Saved(self.ops.change(ctx, id, &request(&args)?).await?)),
            Action::Cancel => {
                let today = ctx.local_now().date();
                let (cancelled, only_that_time) = match args.start.as_deref() {
                    Some(start) if !start.trim().is_empty() => {
                        let called_off = self.ops.skip(ctx, id, day(Some(start), today)?).await?;
                        let only = called_off.repeats();
                        (called_off, only)
                    }
                    _ => (self.ops.cancel(ctx, id).await?, false),
                };
                Ok(Output::Cancelled { cancelled, only_that_time })
            }
            Action::Agenda => {
                let today = ctx.local_now().date();
                let from = day(args.start.as_deref(), today)?;
                let week = from.checked_add(jiff::ToSpan::days(6)).unwrap_or(from);
                let to = day(args.end.as_deref(), week)?;
                Ok(Output::Agenda(self.ops.agenda(ctx, from, to).await?))
            }
            Action::Phone => {
                let link = self.feeds.give(ctx).await?;
                let note = match link {
                    Given::Here(_) => {
                        "Give the asker the webcal link (iPhone, most calendars) and the https one for Google Calendar's 'From URL'. It is theirs alone."
                    }
                    Given::SentPrivately => {
                        "The link went to the asker's 1:1 chat with hearth: say so, and never post a link here."
                    }
                    Given::AddFriendFirst => {
                        "Not sent: the asker must add hearth as a friend first (tap its picture, Add friend), then ask again. Links are only sent privately."
                    }
                    Given::NotSent => {
                        "The link could not be sent privately now; ask again later. It is never posted in the group."
                    }
                };
                Ok(Output::Phone { link, note })
            }
        }
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        match out {
            Output::Saved(saved) => Some(saved_card(saved, lang)),
            Output::Agenda(agenda) if !agenda.events.is_empty() => {
                let mut card = Card::new(lang.pick("📅 行程", "📅 Agenda"));
                card.subtitle = Some(format!("{} – {}", agenda.from, agenda.to));
                card.rows = agenda.events.iter().take(12).map(agenda_row).collect();
                if agenda.events.len() > 12 {
                    card.footnote = Some(match lang {
                        Lang::ZhTw => format!("還有 {} 項", agenda.events.len() - 12),
                        Lang::En => format!("and {} more", agenda.events.len() - 12),
                    });
                }
                Some(crate::features::family_page::with_open_button(card, lang))
            }
            _ => None,
        }
    }
}

/// One event of an agenda: when, what, where and who.
fn agenda_row(event: &EventView) -> CardRow {
    let mut line = event.title.clone();
    if !event.place.is_empty() {
        line.push_str(&format!(" @ {}", event.place));
    }
    if !event.people.is_empty() {
        line.push_str(&format!(" · {}", event.people));
    }
    CardRow::new(event.when(), line)
}

/// The card of an event added or moved: when, where, who, what it meets; the place on a map
/// and the family page.
fn saved_card(saved: &Saved, lang: Lang) -> Card {
    let event = &saved.event;
    let mut card = Card::new(format!("📅 {}", event.title));
    let mut at = event.when();
    if let Some(end) = event.end.as_deref() {
        let same_day = end.get(..10) == event.start.get(..10);
        let shown = if same_day {
            end.get(11..16).unwrap_or(end).to_string()
        } else {
            end.get(5..).unwrap_or(end).replace('-', "/").replace('T', " ")
        };
        at.push_str(&format!(" – {shown}"));
    }
    card.rows.push(CardRow::new(lang.pick("時間", "When"), at));
    if !event.place.is_empty() {
        card.rows.push(CardRow::new(lang.pick("地點", "Where"), event.place.clone()));
    }
    if !event.people.is_empty() {
        card.rows.push(CardRow::new(lang.pick("誰", "Who"), event.people.clone()));
    }
    for other in &saved.clashes_with {
        let row = CardRow::new(
            lang.pick("⚠️ 同時有", "⚠️ Also then"),
            format!("{} {}", other.when(), other.title),
        );
        card.rows.push(row.toned(Some(Tone::Warning)));
    }
    let timed = event.start.len() > 10;
    let day_before = day_before_offered(event.freq);
    card.buttons
        .extend(crate::features::calendar::actions::buttons(event.id, timed, day_before, lang));
    if !event.place.is_empty() {
        let query: String = url::form_urlencoded::byte_serialize(event.place.as_bytes()).collect();
        card.buttons.push(CardButton::Link {
            label: lang.pick("🗺️ 地圖", "🗺️ Map").into(),
            uri: format!("https://www.google.com/maps/search/?api=1&query={query}"),
        });
    }
    crate::features::family_page::with_open_button(card, lang)
}
