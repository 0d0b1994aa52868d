//! `reminder`: creates a reminder in this conversation — once, or repeating (also on the lunar
//! calendar, or on Taiwan's workdays) — and confirms what was understood (the exact local time,
//! the repetition in words, the next dates of a lunar or workday rule) on a card.

use jiff::Timestamp;
use jiff::civil::Weekday;
use jiff::tz::TimeZone;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Card, CardRow, Chip, Styled, Tone, Tool, ToolCtx, ToolError};
use crate::features::button::Action;
use crate::features::reminders::actions::CancelReminder;
use crate::features::reminders::describe::{
    calendar_notes, local_time, repetition, upcoming, zone_label,
};
use crate::features::reminders::ops::create::ReminderCreation;
use crate::features::reminders::ops::quota_cost::{self, QuotaCost};
use crate::features::reminders::picker;
use crate::features::reminders::recurrence::Freq;
use crate::features::reminders::request::{
    LunarRequest, ReminderRequest, RepetitionRequest, WhenRequest,
};
use crate::platform::i18n::Lang;

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
    pub spend: Option<QuotaCost>,
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
    creation: ReminderCreation,
}

impl Reminder {
    /// The tool over the reminders' creation.
    pub fn new(creation: ReminderCreation) -> Self {
        Self { creation }
    }
}

impl From<Day> for Weekday {
    fn from(day: Day) -> Self {
        match day {
            Day::Mon => Weekday::Monday,
            Day::Tue => Weekday::Tuesday,
            Day::Wed => Weekday::Wednesday,
            Day::Thu => Weekday::Thursday,
            Day::Fri => Weekday::Friday,
            Day::Sat => Weekday::Saturday,
            Day::Sun => Weekday::Sunday,
        }
    }
}

impl From<Repeat> for Freq {
    fn from(every: Repeat) -> Self {
        match every {
            Repeat::Once => Freq::Once,
            Repeat::Daily => Freq::Daily,
            Repeat::Weekly => Freq::Weekly,
            Repeat::Monthly => Freq::Monthly,
            Repeat::Yearly => Freq::Yearly,
            Repeat::LunarMonthly => Freq::LunarMonthly,
            Repeat::LunarYearly => Freq::LunarYearly,
            Repeat::Workdays => Freq::Workdays,
        }
    }
}

impl From<Repetition> for RepetitionRequest {
    fn from(rule: Repetition) -> Self {
        Self {
            freq: rule.every.into(),
            interval: rule.interval,
            weekdays: rule.weekdays.map(|days| days.into_iter().map(Weekday::from).collect()),
            day_of_month: rule.day_of_month,
            lunar: rule.lunar.map(|lunar| LunarRequest {
                days: lunar.days,
                month: lunar.month,
                leap: lunar.leap.unwrap_or(false),
                days_before: lunar.days_before,
            }),
            until: rule.until,
            count: rule.count,
        }
    }
}

impl From<&Args> for ReminderRequest {
    fn from(args: &Args) -> Self {
        Self {
            text: args.text.clone(),
            when: WhenRequest {
                at: args.at.clone(),
                in_minutes: args.in_minutes,
                timezone: args.timezone.clone(),
                repetition: args.repetition().map(RepetitionRequest::from),
            },
            for_member: args.for_member.clone(),
            for_everyone: args.for_everyone(),
            accept_cost: args.accept_cost == Some(true),
        }
    }
}

impl Tool for Reminder {
    const NAME: &'static str = "reminder";
    const DESCRIPTION: &'static str = "A reminder (提醒我…, 'remind me to…') pushed at its time. Once: text and at (or in_minutes). Repeating: daily, weekly, monthly, yearly, lunar (初一/十五, a lunar birthday) or Taiwan workdays (每個上班日); lunar dates as said, never converted. A fact to know: memory; a price level: price_alert; an elder's medicine to confirm: care.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    fn check(&self, ctx: &ToolCtx, args: &Args) -> Result<(), ToolError> {
        self.creation.check(ctx, &ReminderRequest::from(args)).map(|_| ())
    }

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let created = self.creation.create(ctx, &ReminderRequest::from(&args)).await?;
        let (schedule, first, lang) = (&created.schedule, created.first, ctx.lang);
        Ok(Output {
            id: created.id,
            first_time: local_time(first, &schedule.tz, lang),
            timezone: zone_label(&schedule.tz, lang),
            repeats: repetition(schedule, lang),
            delivered_privately_to: created.delivered_privately.then(|| {
                created.mention.clone().unwrap_or_else(|| lang.pick("你", "you").to_string())
            }),
            upcoming: upcoming(schedule, lang),
            notes: calendar_notes(schedule, first, lang),
            first_at: Some((first, schedule.tz.clone())),
            mention: created.mention,
            spend: created.spend,
            text: created.text,
        })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let Some(id) = out.id else {
            return Some(quota_cost::over_quota_card(
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
                CardRow::new(lang.pick("額度", "Quota"), quota_cost::line(spend, lang))
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
