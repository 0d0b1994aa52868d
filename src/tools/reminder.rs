//! `reminder`: creates a reminder in this conversation — once, or repeating (also on the lunar
//! calendar, or on Taiwan's workdays) — and confirms what was understood (the exact local time,
//! the repetition in words, the next dates of a lunar or workday rule) on a card.

use std::sync::Arc;

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use crate::contract::{Card, CardRow, Chip, Styled, Tone, Tool, ToolCtx, ToolError};
use crate::features::button::Action;
use crate::features::reminders::actions::CancelReminder;
use crate::features::reminders::calendar_rule::{is_calendar_rule, lunar_rule, start_not_before};
use crate::features::reminders::describe::{
    calendar_notes, local_time, repetition, upcoming, zone_label,
};
use crate::features::reminders::picker;
use crate::features::reminders::recurrence::{Freq, Schedule};
use crate::features::reminders::spend::{self, Plan, Spend};
use crate::platform::i18n::Lang;
use crate::platform::text::grapheme_len;
use crate::push::quota::QuotaTracker;
use crate::sources::calendar::WorkCalendar;
use crate::store::{NewReminder, Recurrence, Store};

pub use crate::features::reminders::operations::MAX_TEXT;

/// The most days a yearly lunar reminder may come before its date.
const MAX_DAYS_BEFORE: u8 = 30;

/// How a reminder repeats.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Repeat {
    /// Only once (the earlier form's word; a once reminder has no repetition).
    #[default]
    #[schemars(skip)]
    Once,
    /// Every day (or every `interval` days).
    Daily,
    /// Every week on `weekdays`.
    Weekly,
    /// Every month on `day_of_month`.
    Monthly,
    /// Every year on the first date's month and day.
    Yearly,
    /// Every lunar month on `lunar_days` (初一、十五 offerings, 每月農曆初一).
    LunarMonthly,
    /// Every year on a lunar date: `lunar_month` and one of `lunar_days` (lunar birthdays, 農曆八月十五).
    LunarYearly,
    /// Every workday of Taiwan's official calendar: national holidays off, make-up workdays (補班) on ("每個上班日").
    Workdays,
}

/// A day of the week.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
#[schemars(description = "")]
pub enum Day {
    /// Monday.
    Mon,
    /// Tuesday.
    Tue,
    /// Wednesday.
    Wed,
    /// Thursday.
    Thu,
    /// Friday.
    Fri,
    /// Saturday.
    Sat,
    /// Sunday.
    Sun,
}

// The earlier flat form of the arguments (`repeat` a word, its details beside it) is still read.
/// Arguments of `reminder`: the common case is `text` and `at` (or `in_minutes`), the rest null.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// Short, in the user's words (帶便當).
    pub text: String,
    /// Local "YYYY-MM-DDTHH:MM". No hour said: 早上 08:00, 中午 12:00, 下午 15:00, 晚上 20:00, else 09:00. Lunar and workdays: today's date with the time.
    pub at: Option<String>,
    /// 半小時後 → 30.
    pub in_minutes: Option<u32>,
    /// null: once.
    #[serde(default, deserialize_with = "repetition_given")]
    pub repeat: Option<Repetition>,
    /// null: the asker; a member's name (提醒爸爸 → 爸爸); "everyone" (提醒大家).
    #[schemars(extend("x-group-only" = true))]
    pub for_member: Option<String>,
    /// IANA zone, only if another place's time is named.
    pub timezone: Option<String>,
    /// true only after the user accepted a quota warning.
    pub accept_cost: Option<bool>,
    /// The earlier flat form's details (not offered to the model).
    #[serde(flatten)]
    #[schemars(skip)]
    pub flat: FlatForm,
}

/// How a reminder repeats.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema, PartialEq)]
pub struct Repetition {
    /// lunar_yearly: a lunar date each year.
    pub every: Repeat,
    /// 2: every other.
    pub interval: Option<u32>,
    /// null: at's weekday.
    pub weekdays: Option<Vec<Day>>,
    /// 1-31, -1: the last day; null: at's day.
    pub day_of_month: Option<i32>,
    /// The lunar date as said.
    pub lunar: Option<LunarDate>,
    /// The last date YYYY-MM-DD.
    pub until: Option<String>,
    /// Times in all.
    pub count: Option<u32>,
}

/// A lunar date of a repeating reminder.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema, PartialEq)]
pub struct LunarDate {
    /// 初一、十五 → [1, 15].
    pub days: Vec<u8>,
    /// 1-12 (正月 = 1).
    pub month: Option<u8>,
    /// 閏四月 → true.
    pub leap: Option<bool>,
    /// Days before the date (前一天 → 1).
    pub days_before: Option<u8>,
}

/// The earlier flat form of the arguments: `repeat` was a word and its details stood beside it.
#[derive(Debug, Default, Deserialize)]
pub struct FlatForm {
    interval: Option<u32>,
    weekdays: Option<Vec<Day>>,
    day_of_month: Option<i32>,
    until: Option<String>,
    count: Option<u32>,
    lunar_days: Option<Vec<u8>>,
    lunar_month: Option<u8>,
    leap_month: Option<bool>,
    everyone: Option<bool>,
}

/// `repeat` as an object, or as the earlier form's word (`"daily"`; `"once"` is no repetition).
fn repetition_given<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Repetition>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Given {
        Rule(Repetition),
        Word(Repeat),
    }
    Ok(match Option::<Given>::deserialize(d)? {
        None | Some(Given::Word(Repeat::Once)) => None,
        Some(Given::Rule(rule)) => Some(rule),
        Some(Given::Word(every)) => Some(Repetition { every, ..Repetition::default() }),
    })
}

impl Args {
    /// The repetition, with the earlier flat form's details filled in; `None` for once.
    pub fn repetition(&self) -> Option<Repetition> {
        let f = &self.flat;
        let given = f.interval.is_some()
            || f.weekdays.is_some()
            || f.day_of_month.is_some()
            || f.until.is_some()
            || f.count.is_some()
            || f.lunar_days.is_some();
        let mut rule = match &self.repeat {
            Some(rule) => rule.clone(),
            None if given => Repetition::default(),
            None => return None,
        };
        rule.interval = rule.interval.or(f.interval);
        rule.weekdays = rule.weekdays.take().or_else(|| f.weekdays.clone());
        rule.day_of_month = rule.day_of_month.or(f.day_of_month);
        rule.until = rule.until.take().or_else(|| f.until.clone());
        rule.count = rule.count.or(f.count);
        if rule.lunar.is_none() && (f.lunar_days.is_some() || f.lunar_month.is_some()) {
            rule.lunar = Some(LunarDate {
                days: f.lunar_days.clone().unwrap_or_default(),
                month: f.lunar_month,
                leap: f.leap_month,
                days_before: None,
            });
        }
        Some(rule)
    }

    /// True when the reminder is for the whole group ("everyone", or the earlier `everyone`).
    pub fn for_everyone(&self) -> bool {
        let named = self.for_member.as_deref().map(str::trim).map(str::to_lowercase);
        self.flat.everyone == Some(true)
            || named.is_some_and(|n| {
                matches!(n.as_str(), "everyone" | "all" | "大家" | "全家" | "所有人" | "全部")
            })
    }
}

/// The result of `reminder`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The reminder's id; `null` when it was not created because it would exceed this month's LINE message quota (see `spend`): tell the user and offer the cheaper way (a personal reminder in their 1:1 chat, fewer repetitions) or `accept_cost`.
    pub id: Option<i64>,
    /// What it is about.
    pub text: String,
    /// The first time, local, with weekday.
    pub first_time: String,
    /// The zone, in words.
    pub timezone: String,
    /// The repetition in words, if it repeats.
    pub repeats: Option<String>,
    /// Who will be @mentioned, in a group.
    pub mention: Option<String>,
    /// Set in a group but pushed to this person's 1:1 chat with hearth (tell them it arrives there).
    pub delivered_privately_to: Option<String>,
    /// For repeating reminders: what they cost of the monthly LINE message quota.
    pub spend: Option<Spend>,
    /// Lunar and workday rules: the next times, local (tell the family these dates).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub upcoming: Vec<String>,
    /// Lunar and workday rules: what the family should know (leap months, years the working calendar does not know yet).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The first occurrence and the reminder's zone, for the card's 📅 change-time button.
    #[serde(skip)]
    pub first_at: Option<(Timestamp, TimeZone)>,
}

/// The reminder tool.
pub struct Reminder {
    store: Store,
    nudge: Arc<Notify>,
    quota: QuotaTracker,
    work_calendar: WorkCalendar,
}

impl Reminder {
    /// The tool over the store; `nudge` wakes the scheduler for a reminder due soon;
    /// `quota` tells what pushes cost and who has hearth as a friend; workday reminders
    /// follow `work_calendar`.
    pub fn new(
        store: Store,
        nudge: Arc<Notify>,
        quota: QuotaTracker,
        work_calendar: WorkCalendar,
    ) -> Self {
        Self { store, nudge, quota, work_calendar }
    }
}

/// The other person a reminder asked for in a 1:1 chat is for (a model not shown that the
/// argument is for groups may still pass it): nobody there but the person speaking can be
/// reminded. `None` for a group, for no name, or for the speaker themselves.
fn someone_else_in_a_1to1_chat<'a>(ctx: &ToolCtx, args: &'a Args) -> Option<&'a str> {
    if ctx.conversation.is_multi_person() {
        return None;
    }
    let name = args.for_member.as_deref().map(str::trim).map(|n| n.trim_start_matches('@'))?;
    let speaker = ctx.display_name.as_deref().map(str::trim);
    let own = name.is_empty()
        || matches!(name, "me" | "myself" | "我" | "自己" | "我自己" | "本人")
        || Some(name) == speaker;
    (!own).then_some(name)
}

fn invalid(msg: impl Into<String>) -> ToolError {
    ToolError::InvalidArgs(msg.into())
}

/// The validated schedule for `args`, relative to `now` in `default_tz`; workdays follow
/// `work_calendar`.
pub fn schedule_from(
    args: &Args,
    now: Timestamp,
    default_tz: &TimeZone,
    work_calendar: &WorkCalendar,
) -> Result<Schedule, ToolError> {
    let tz = time_zone(args, default_tz)?;
    let rule = args.repetition().unwrap_or_default();
    let (freq, interval, weekdays, month_day) = repeat_rule(&rule)?;
    let lunar_date = rule.lunar.clone().unwrap_or_default();
    let days_before = match lunar_date.days_before.unwrap_or(0) {
        0 => 0,
        n if freq != Freq::LunarYearly => {
            return Err(invalid(format!(
                "days_before ({n}) is only for a yearly lunar date (lunar_yearly)"
            )));
        }
        n if n > MAX_DAYS_BEFORE => {
            return Err(invalid(format!("days_before is at most {MAX_DAYS_BEFORE}")));
        }
        n => n,
    };
    let lunar =
        lunar_rule(freq, &lunar_date.days, lunar_date.month, lunar_date.leap.unwrap_or(false))
            .map_err(|e| invalid(e.to_string()))?;
    let mut anchor = anchor(args, now, &tz)?;
    if is_calendar_rule(freq) {
        anchor = start_not_before(anchor, now, &tz);
    }
    let count = match rule.count {
        Some(c) if !(1..=1000).contains(&c) => {
            return Err(invalid("count must be between 1 and 1000"));
        }
        other => other,
    };
    let until = until(&rule, &tz)?;
    let schedule = Schedule {
        tz,
        anchor,
        rule: Recurrence {
            freq,
            interval,
            weekdays,
            month_day,
            until,
            count,
            lunar_days: lunar.days,
            lunar_month: lunar.month,
            days_before,
        },
        work_calendar: work_calendar.clone(),
    };
    still_ahead(schedule, now)
}

/// The reminder's time zone: the one named in `args`, else the conversation's.
fn time_zone(args: &Args, default_tz: &TimeZone) -> Result<TimeZone, ToolError> {
    match &args.timezone {
        Some(name) => TimeZone::get(name.trim()).map_err(|_| {
            invalid(format!("unknown time zone {name:?}; use an IANA name like Asia/Taipei"))
        }),
        None => Ok(default_tz.clone()),
    }
}

/// The first local time: `at` as given, or `in_minutes` from `now` (to the minute).
fn anchor(args: &Args, now: Timestamp, tz: &TimeZone) -> Result<DateTime, ToolError> {
    match (&args.at, args.in_minutes) {
        (Some(_), Some(_)) => Err(invalid("give either at or in_minutes, not both")),
        (None, None) => Err(invalid("say when: at (local date-time) or in_minutes")),
        (None, Some(m)) => {
            if !(1..=525_600).contains(&m) {
                return Err(invalid("in_minutes must be between 1 and 525600 (a year)"));
            }
            let at = now
                .saturating_add(SignedDuration::from_mins(i64::from(m)))
                .map_err(|_| invalid("time out of range"))?;
            let local = at.to_zoned_datetime(tz.clone()).datetime();
            Ok(local.round(jiff::Unit::Minute).unwrap_or(local))
        }
        (Some(at), None) => local_date_time(at).ok_or_else(|| {
            invalid(format!(
                "{at:?} is not a valid local date-time; use YYYY-MM-DDTHH:MM with a real date"
            ))
        }),
    }
}

/// A local date-time "YYYY-MM-DDTHH:MM"; a date alone means 09:00 that day (no hour said).
fn local_date_time(at: &str) -> Option<DateTime> {
    let at = at.trim();
    if !at.contains(':') {
        let date = at.parse::<Date>().ok()?;
        return Some(date.to_datetime(jiff::civil::time(9, 0, 0, 0)));
    }
    at.parse::<DateTime>().ok()
}

/// How it repeats: the frequency, the interval, the weekday mask and the day of the month.
fn repeat_rule(args: &Repetition) -> Result<(Freq, u32, u8, Option<i8>), ToolError> {
    let freq = match args.every {
        Repeat::Once => Freq::Once,
        Repeat::Daily => Freq::Daily,
        Repeat::Weekly => Freq::Weekly,
        Repeat::Monthly => Freq::Monthly,
        Repeat::Yearly => Freq::Yearly,
        Repeat::LunarMonthly => Freq::LunarMonthly,
        Repeat::LunarYearly => Freq::LunarYearly,
        Repeat::Workdays => Freq::Workdays,
    };
    let interval = args.interval.unwrap_or(1);
    if !(1..=100).contains(&interval) {
        return Err(invalid("interval must be between 1 and 100"));
    }
    if interval != 1 && is_calendar_rule(freq) {
        return Err(invalid("lunar and workday reminders repeat every time; interval must be 1"));
    }
    let weekdays = match &args.weekdays {
        Some(days) if !days.is_empty() => {
            if freq != Freq::Weekly {
                return Err(invalid("weekdays only apply to weekly reminders"));
            }
            days.iter().fold(0u8, |mask, d| mask | (1 << (*d as u8)))
        }
        _ => 0,
    };
    let month_day = match args.day_of_month {
        None => None,
        Some(_) if freq != Freq::Monthly => {
            return Err(invalid("day_of_month only applies to monthly reminders"));
        }
        Some(d) if d == -1 || (1..=31).contains(&d) => Some(d as i8),
        Some(_) => return Err(invalid("day_of_month must be 1-31, or -1 for the last day")),
    };
    Ok((freq, interval, weekdays, month_day))
}

/// The end of the `until` date, local time, if one is given.
fn until(args: &Repetition, tz: &TimeZone) -> Result<Option<Timestamp>, ToolError> {
    let Some(u) = &args.until else { return Ok(None) };
    let date: Date =
        u.trim().parse().map_err(|_| invalid(format!("{u:?} is not a valid date (YYYY-MM-DD)")))?;
    let end = date
        .to_datetime(jiff::civil::Time::MAX)
        .to_zoned_datetime(tz.clone())
        .map_err(|_| invalid("until is out of range"))?;
    Ok(Some(end.timestamp()))
}

/// `schedule`, if its first occurrence is after `now`.
fn still_ahead(schedule: Schedule, now: Timestamp) -> Result<Schedule, ToolError> {
    let first = schedule.occurrences().next().map(|(_, t)| t);
    match first {
        None => Err(invalid("that repetition never happens (check until, count and the days)")),
        Some(t) if t <= now => {
            let now_local =
                now.to_zoned_datetime(schedule.tz.clone()).strftime("%Y-%m-%dT%H:%M").to_string();
            Err(invalid(format!(
                "that time has already passed (it is now {now_local} local time); ask for a future time"
            )))
        }
        Some(_) => Ok(schedule),
    }
}

impl Tool for Reminder {
    const NAME: &'static str = "reminder";
    const DESCRIPTION: &'static str = "A reminder (提醒我…, 'remind me to…') pushed at its time. Once: text and at (or in_minutes). Repeating: daily, weekly, monthly, yearly, lunar (初一/十五, a lunar birthday) or Taiwan workdays (每個上班日); lunar dates as said, never converted. A fact to know: memory; a price level: price_alert; an elder's medicine to confirm: care.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    fn check(&self, ctx: &ToolCtx, args: &Args) -> Result<(), ToolError> {
        let text = args.text.trim();
        if text.is_empty() {
            return Err(invalid("the reminder needs a text"));
        }
        if grapheme_len(text) > MAX_TEXT {
            return Err(invalid(format!(
                "the reminder text is too long (at most {MAX_TEXT} characters)"
            )));
        }
        if let Some(other) = someone_else_in_a_1to1_chat(ctx, args) {
            return Err(invalid(format!(
                "in this 1:1 chat a reminder can only be for the person speaking; to remind {other}, set it in the family group, where hearth can @mention them"
            )));
        }
        let schedule = schedule_from(args, ctx.now(), &ctx.tz, &self.work_calendar)?;
        schedule.occurrences().next().map(|_| ()).ok_or_else(|| invalid("no occurrence"))
    }

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        self.check(ctx, &args)?;
        let text = args.text.trim();
        let now = ctx.now();
        let schedule = schedule_from(&args, now, &ctx.tz, &self.work_calendar)?;
        let everyone = args.for_everyone() && ctx.conversation.is_multi_person();
        let (mention_id, mention_name) = match everyone {
            true => (None, None),
            false => self.mention(ctx, args.for_member.as_deref()).await?,
        };
        let deliver_to = self.quota.route(&ctx.conversation, mention_id.as_deref(), everyone).await;
        let target = deliver_to.as_deref().unwrap_or(&ctx.conversation.id);
        let spend = match schedule.rule.freq {
            Freq::Once => None,
            _ => {
                let plan = Plan::Reminder(&schedule);
                Some(spend::estimate(&self.quota, plan, &self.work_calendar, target, now).await?)
            }
        };
        let (_, first) = schedule.occurrences().next().ok_or_else(|| invalid("no occurrence"))?;
        let out = Output {
            id: None,
            text: text.to_string(),
            first_time: local_time(first, &schedule.tz, ctx.lang),
            timezone: zone_label(&schedule.tz, ctx.lang),
            repeats: repetition(&schedule, ctx.lang),
            mention: mention_name.clone(),
            delivered_privately_to: deliver_to.as_ref().map(|_| {
                mention_name.clone().unwrap_or_else(|| ctx.lang.pick("你", "you").to_string())
            }),
            spend,
            upcoming: upcoming(&schedule, ctx.lang),
            notes: calendar_notes(&schedule, first, ctx.lang),
            first_at: Some((first, schedule.tz.clone())),
        };
        if spend.is_some_and(|s| s.over_quota) && args.accept_cost != Some(true) {
            return Ok(out);
        }
        let tz_name = schedule.tz.iana_name().unwrap_or("UTC").to_string();
        let anchor_local = schedule.anchor.strftime("%Y-%m-%dT%H:%M").to_string();
        let row = self
            .store
            .create_reminder(&NewReminder {
                conversation_id: &ctx.conversation.id,
                created_by: ctx.user_id.as_deref(),
                mention_user_id: mention_id.as_deref(),
                mention_name: mention_name.as_deref(),
                text,
                tz: &tz_name,
                anchor_local: &anchor_local,
                rule: schedule.rule,
                first_fire_at: first.as_millisecond(),
                created_at: now.as_millisecond(),
                deliver_to: deliver_to.as_deref(),
            })
            .await?;
        self.nudge.notify_one();
        Ok(Output { id: Some(row.id), ..out })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let Some(id) = out.id else {
            return Some(spend::over_quota_card(
                lang.pick(
                    "⚠️ 這個提醒會超過本月訊息額度",
                    "⚠️ This would exceed this month's messages",
                ),
                &out.text,
                out.spend.as_ref(),
                lang.pick(
                    "改成只私訊提醒你（每次 1 則），或減少次數",
                    "remind just you in 1:1 (1 each time), or less often",
                ),
                lang,
            ));
        };
        let mut card = Card::new(lang.pick("⏰ 提醒已設定", "⏰ Reminder set"));
        card.headline = Some(Styled { text: out.text.clone(), tone: None });
        card.rows.push(CardRow::new(
            lang.pick("時間", "When"),
            format!("{}（{}）", out.first_time, out.timezone),
        ));
        if let Some(r) = &out.repeats {
            card.rows.push(CardRow::new(lang.pick("重複", "Repeats"), r.clone()));
        }
        if !out.upcoming.is_empty() {
            card.rows.push(CardRow::new(lang.pick("接下來", "Next"), out.upcoming.join("\n")));
        }
        if let Some(m) = &out.mention {
            card.rows.push(CardRow::new(lang.pick("提醒對象", "For"), format!("@{m}")));
        }
        if out.delivered_privately_to.is_some() {
            card.rows.push(CardRow::new(
                lang.pick("送到", "Arrives"),
                lang.pick("私訊（一對一聊天）", "in your 1:1 chat with me"),
            ));
        }
        if let Some(spend) = &out.spend {
            card.rows.push(
                CardRow::new(lang.pick("額度", "Quota"), spend::line(spend, lang))
                    .toned(spend.over_quota.then_some(Tone::Warning)),
            );
        }
        if !out.notes.is_empty() {
            card.footnote = Some(out.notes.join("\n"));
        }
        if let Some((first, tz)) = &out.first_at {
            card.buttons.push(picker::reminder_button(id, ctx.now(), *first, tz, lang));
        }
        card.buttons.push(CancelReminder { id }.button(
            lang.pick("❌ 取消這個提醒", "❌ Cancel"),
            lang.pick("❌ 取消提醒", "❌ Cancel reminder"),
        ));
        Some(card)
    }

    fn quick_replies(&self, ctx: &ToolCtx, out: &Output) -> Vec<Chip> {
        if out.id.is_some() {
            return Vec::new();
        }
        let lang = ctx.lang;
        let mut chips = Vec::new();
        if ctx.conversation.is_multi_person() {
            let text = match lang {
                Lang::ZhTw => format!("提醒改成只私訊提醒我：{}", out.text),
                Lang::En => format!("Make it a reminder just for me in 1:1: {}", out.text),
            };
            chips.push(Chip::new(lang.pick("改成只私訊提醒我", "Just remind me 1:1"), text));
        }
        chips.push(Chip::new(
            lang.pick("仍然建立", "Create anyway"),
            match lang {
                Lang::ZhTw => format!("超過額度也沒關係，照樣建立提醒：{}", out.text),
                Lang::En => format!("Create the reminder anyway: {}", out.text),
            },
        ));
        chips
    }
}

impl Reminder {
    /// Who to @mention on delivery: only in groups; the named member or the asker.
    async fn mention(
        &self,
        ctx: &ToolCtx,
        for_member: Option<&str>,
    ) -> Result<(Option<String>, Option<String>), ToolError> {
        if !ctx.conversation.is_multi_person() {
            return Ok((None, None));
        }
        let name = for_member
            .map(str::trim)
            .filter(|n| !n.is_empty() && !matches!(*n, "me" | "我" | "自己"));
        match name {
            None => Ok((ctx.user_id.clone(), ctx.display_name.clone())),
            Some(name) => {
                let found = self
                    .store
                    .find_member(&ctx.conversation.id, name.trim_start_matches('@'))
                    .await?;
                let (id, display) = found.ok_or_else(|| {
                    invalid(format!(
                        "I don't know a member called {name:?} in this group yet; they need to have written here once"
                    ))
                })?;
                Ok((Some(id), Some(display)))
            }
        }
    }
}
