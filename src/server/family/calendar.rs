//! The family page's 行事曆 tab: a month at a glance (a grid of its days, the days with events
//! marked and linked to them) above the month's agenda, each event with its own 改時間 and 取消;
//! a form that adds an event; and the member's own link for their phone's calendar. Every change
//! is the calendar's own operation ([`CalendarOps`]) as the session's member, so it is recorded
//! as theirs and told to the chat; a month outside what the agenda reads is refused like any
//! bad input.

use std::sync::Arc;

use axum::Form;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::Response;
use jiff::civil::Date;
use maud::{Markup, html};
use serde::Deserialize;

use super::{Peer, Refusal, Session, back, check_csrf, failed, session};
use crate::contract::{ErrorKind, ToolError};
use crate::features::calendar::ops::feed::Feeds;
use crate::features::calendar::ops::{CalendarOps, EventRequest, EventView};
use crate::features::reminders::recurrence::Freq;
use crate::features::reminders::request::RepetitionRequest;
use crate::platform::i18n::Lang;
use crate::server::app::Hearth;

/// The weekdays' headings, Sunday first as Taiwan's calendars print them.
const WEEK: [(&str, &str); 7] = [
    ("日", "Su"),
    ("一", "Mo"),
    ("二", "Tu"),
    ("三", "We"),
    ("四", "Th"),
    ("五", "Fr"),
    ("六", "Sa"),
];

/// The repetitions the form offers: value, Chinese, English.
const REPEATS: &[(&str, &str, &str)] = &[
    ("", "不重複", "Once"),
    ("weekly", "每週", "Weekly"),
    ("monthly", "每月", "Monthly"),
    ("yearly", "每年", "Yearly"),
    ("workdays", "每個上班日", "Every workday"),
];

/// The first day of the month `asked` names ("YYYY-MM"), else of `today`'s month; a month
/// more than two years away is `today`'s.
fn month_of(asked: Option<&str>, today: Date) -> Date {
    let this = today.first_of_month();
    let asked = asked.and_then(|m| format!("{m}-01").parse::<Date>().ok());
    match asked {
        Some(first) if (first - this).get_days().abs() <= 2 * 366 => first,
        _ => this,
    }
}

/// The tab: `month` ("YYYY-MM", else this month's).
pub async fn tab(app: &Hearth, s: &Session, month: Option<&str>) -> Markup {
    let (lang, csrf) = (s.row.lang, &s.row.csrf);
    let ctx = s.ctx(app).await;
    let today = ctx.local_now().date();
    let first = month_of(month, today);
    let last = first.last_of_month();
    let agenda = CalendarOps::from_deps(&app.turns.deps).agenda(&ctx, first, last).await;
    let feed = Feeds::from_deps(&app.turns.deps).existing(&ctx).await;
    let events = match agenda {
        Ok(agenda) => agenda.events,
        Err(e) => {
            tracing::error!(error = %e, "family page: the calendar is unavailable");
            return html! { p.warn { (lang.pick("暫時讀不到行事曆。", "The calendar cannot be read right now.")) } };
        }
    };
    let on = |day: Date| events.iter().filter(move |e| starts_on(e) == Some(day));
    let (before, after) = (first.yesterday().ok(), last.tomorrow().ok());
    let month_link =
        |day: Option<Date>| day.map(|d| d.strftime("/family?tab=calendar&month=%Y-%m").to_string());
    html! {
        section.card.month {
            div.row {
                @if let Some(href) = month_link(before) { a.button href=(href) { "‹" } }
                h2 { (first.strftime(lang.pick("%Y 年 %-m 月", "%B %Y")).to_string()) }
                @if let Some(href) = month_link(after) { a.button href=(href) { "›" } }
            }
            table.month {
                tr { @for (zh, en) in WEEK { th { (lang.pick(zh, en)) } } }
                @for week in weeks(first) {
                    tr {
                        @for day in week {
                            @match day {
                                None => td {},
                                Some(day) => {
                                    @let n = on(day).count();
                                    td class=(day_class(day, today, n)) {
                                        @if n > 0 { a href={ "#d-" (day) } { (day.day()) span.dot { "•" } } }
                                        @else { (day.day()) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        @if events.is_empty() {
            p.empty { (lang.pick("這個月沒有活動。", "Nothing this month.")) }
        }
        @for day in days_of(&events) {
            section.card id={ "d-" (day) } {
                h3 { (crate::platform::format::short_date(day, lang)) }
                @for event in on(day) { (event_row(event, csrf, lang)) }
            }
        }
        section.card {
            h2 { (lang.pick("➕ 新增活動", "➕ Add an event")) }
            (add_form(csrf, today, lang))
        }
        section.card {
            h2 { (lang.pick("📱 加到我的手機", "📱 On my phone")) }
            @match feed {
                Ok(Some(link)) => {
                    p.sub { (lang.pick("這個連結只給你，請不要轉傳。", "This link is yours alone: do not forward it.")) }
                    p { a.button href=(link.webcal) { (lang.pick("📅 加到行事曆 App", "📅 Add to my calendar app")) } }
                    p.sub { (lang.pick("Google 日曆（透過網址新增）：", "Google Calendar (From URL):")) }
                    input.link type="text" readonly value=(link.https);
                }
                _ => {
                    form.inline method="post" action="/family/calendar" {
                        input type="hidden" name="csrf" value=(csrf);
                        input type="hidden" name="op" value="phone";
                        button type="submit" { (lang.pick("📱 給我手機用的連結", "📱 Give me my phone's link")) }
                    }
                }
            }
        }
    }
}

/// The day `event` (an occurrence on the agenda) starts.
fn starts_on(event: &EventView) -> Option<Date> {
    event.start.get(..10)?.parse().ok()
}

/// The days of `events`, in order, once each.
fn days_of(events: &[EventView]) -> Vec<Date> {
    let mut days: Vec<Date> = events.iter().filter_map(starts_on).collect();
    days.dedup();
    days
}

fn day_class(day: Date, today: Date, events: usize) -> &'static str {
    match (day == today, events > 0) {
        (true, true) => "today has",
        (true, false) => "today",
        (false, true) => "has",
        (false, false) => "",
    }
}

/// The month of `first` as weeks, Sunday first, blank where the month has no day.
fn weeks(first: Date) -> Vec<[Option<Date>; 7]> {
    let lead = first.weekday().to_sunday_zero_offset() as usize;
    let mut weeks = Vec::new();
    let mut week = [None; 7];
    let mut column = lead;
    let mut day = Some(first);
    while let Some(d) = day.filter(|d| d.month() == first.month()) {
        week[column] = Some(d);
        column += 1;
        if column == 7 {
            weeks.push(week);
            (week, column) = ([None; 7], 0);
        }
        day = d.tomorrow().ok();
    }
    if column > 0 {
        weeks.push(week);
    }
    weeks
}

/// One event of the agenda: when, what, where, who, and its 改時間 and 取消 (of a repeating
/// event: 改這一次, 取消這一次 and 取消（每一次）).
fn event_row(event: &EventView, csrf: &str, lang: Lang) -> Markup {
    let timed = event.start.len() > 10;
    let day = event.start.get(..10).unwrap_or(&event.start);
    html! {
        div.event {
            p.headline {
                span.time { (event.start.get(11..16).unwrap_or(lang.pick("整天", "All day"))) }
                " " (event.title)
            }
            p.sub {
                @if !event.place.is_empty() { "📍 " (event.place) " " }
                @if !event.people.is_empty() { "👥 " (event.people) " " }
                @if event.repeats() { "🔁 " (lang.pick("重複", "repeats")) }
            }
            // A repeating event's row is one time of it: moved or called off alone.
            form.add method="post" action="/family/calendar" {
                input type="hidden" name="csrf" value=(csrf);
                input type="hidden" name="op" value=(if event.repeats() { "move_one" } else { "move" });
                input type="hidden" name="id" value=(event.id);
                input type="hidden" name="day" value=(day);
                label { (lang.pick("改到", "Move to")) " "
                    @if timed { input type="datetime-local" name="start" value=(event.start) required; }
                    @else { input type="date" name="start" value=(event.start) required; }
                }
                button type="submit" {
                    @if event.repeats() { (lang.pick("📅 改這一次", "📅 Move this time")) }
                    @else { (lang.pick("📅 改時間", "📅 Move")) }
                }
            }
            @if event.repeats() {
                form.inline method="post" action="/family/calendar" {
                    input type="hidden" name="csrf" value=(csrf);
                    input type="hidden" name="op" value="skip";
                    input type="hidden" name="id" value=(event.id);
                    input type="hidden" name="day" value=(day);
                    button.danger type="submit" { (lang.pick("❌ 取消這一次", "❌ Cancel this time")) }
                }
            }
            form.inline method="post" action="/family/calendar" {
                input type="hidden" name="csrf" value=(csrf);
                input type="hidden" name="op" value="cancel";
                input type="hidden" name="id" value=(event.id);
                button.danger type="submit" {
                    @if event.repeats() { (lang.pick("❌ 取消（每一次）", "❌ Cancel (every time)")) }
                    @else { (lang.pick("❌ 取消", "❌ Cancel")) }
                }
            }
        }
    }
}

fn add_form(csrf: &str, today: Date, lang: Lang) -> Markup {
    html! {
        form.add method="post" action="/family/calendar" {
            input type="hidden" name="csrf" value=(csrf);
            input type="hidden" name="op" value="add";
            input type="text" name="title" required maxlength="200" placeholder=(lang.pick("什麼活動？", "What?"));
            label { (lang.pick("日期", "Day")) " " input type="date" name="day" value=(today) required; }
            label { (lang.pick("開始", "From")) " " input type="time" name="time"; }
            label { (lang.pick("結束", "To")) " " input type="time" name="end_time"; }
            label { (lang.pick("到（多天）", "Until (days)")) " " input type="date" name="end_day"; }
            input type="text" name="place" maxlength="200" placeholder=(lang.pick("地點", "Where"));
            input type="text" name="who" maxlength="200" placeholder=(lang.pick("誰要去", "Who"));
            label { (lang.pick("重複", "Repeats")) " "
                select name="repeat" { @for (value, zh, en) in REPEATS { option value=(value) { (lang.pick(zh, en)) } } }
            }
            button type="submit" { (lang.pick("加入行事曆", "Add")) }
        }
    }
}

/// A change of the calendar from the page.
#[derive(Deserialize)]
pub struct CalendarForm {
    csrf: String,
    /// add, move, move_one, skip, cancel, phone.
    op: String,
    /// The event (move, move_one, skip, cancel).
    id: Option<i64>,
    title: Option<String>,
    /// The day (add), or the day of the time moved or called off (move_one, skip): "YYYY-MM-DD".
    day: Option<String>,
    /// The time it starts (add), "HH:MM"; none: all day.
    time: Option<String>,
    end_time: Option<String>,
    end_day: Option<String>,
    place: Option<String>,
    who: Option<String>,
    repeat: Option<String>,
    /// The new start (move): "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM".
    start: Option<String>,
}

/// `POST /family/calendar`: add, move or cancel an event, or make the member's phone link.
pub async fn change(
    State(app): State<Arc<Hearth>>,
    Extension(peer): Extension<Peer>,
    headers: HeaderMap,
    Form(form): Form<CalendarForm>,
) -> Result<Response, Refusal> {
    let session = session(&app, &headers, peer).await?;
    check_csrf(&session, &form.csrf)?;
    let lang = session.row.lang;
    let said = match carry_out(&app, &session, form).await {
        Ok(done) => done,
        Err(e) => {
            if e.kind() == ErrorKind::Internal {
                tracing::error!(error = %e, "family page: could not change the calendar");
            }
            failed(lang, e.kind()).to_string()
        }
    };
    Ok(back(&app, &session, "calendar", &said))
}

/// Carries out the form through the calendar's own operations, as the session's member: what
/// happened, or why nothing did.
async fn carry_out(app: &Hearth, s: &Session, form: CalendarForm) -> Result<String, ToolError> {
    let ctx = s.ctx(app).await;
    let lang = ctx.lang;
    let ops = CalendarOps::from_deps(&app.turns.deps);
    let given = |v: Option<String>| v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    let id = || form.id.ok_or_else(|| ToolError::InvalidArgs("which event".into()));
    match form.op.as_str() {
        "add" => {
            let request = added(&form)?;
            let saved = ops.add(&ctx, &request).await?;
            let clash = saved.clashes_with.first().map(|c| c.title.clone());
            Ok(match clash {
                Some(other) => {
                    format!("{}{other}", lang.pick("已加入。那時候也有：", "Added. Also then: "))
                }
                None => lang.pick("已加入行事曆。", "Added to the calendar.").into(),
            })
        }
        "move" | "move_one" => {
            let request = EventRequest {
                start: given(form.start.clone()).unwrap_or_default(),
                ..EventRequest::default()
            };
            if request.start.is_empty() {
                return Err(ToolError::InvalidArgs("the new start".into()));
            }
            let saved = match form.op.as_str() {
                "move_one" => ops.move_one(&ctx, id()?, the_day(&form)?, &request).await?,
                _ => ops.change(&ctx, id()?, &request).await?,
            };
            Ok(format!("{}{}", lang.pick("已改到 ", "Moved to "), saved.event.when()))
        }
        "skip" => {
            let called_off = ops.skip(&ctx, id()?, the_day(&form)?).await?;
            Ok(match lang {
                Lang::ZhTw => format!("已取消 {} 這一次。", called_off.when()),
                Lang::En => format!("Cancelled the one on {}.", called_off.when()),
            })
        }
        "cancel" => {
            ops.cancel(&ctx, id()?).await?;
            Ok(lang.pick("已取消。", "Cancelled.").into())
        }
        "phone" => {
            Feeds::from_deps(&app.turns.deps).link(&ctx).await?;
            Ok(lang.pick("你的手機連結在下面。", "Your phone's link is below.").into())
        }
        _ => Err(ToolError::InvalidArgs("unknown change".into())),
    }
}

/// The day of the time a form moves or calls off.
fn the_day(form: &CalendarForm) -> Result<Date, ToolError> {
    let day = form.day.as_deref().map(str::trim).and_then(|d| d.parse().ok());
    day.ok_or_else(|| ToolError::InvalidArgs("which day: YYYY-MM-DD".into()))
}

/// The event the add form describes.
fn added(form: &CalendarForm) -> Result<EventRequest, ToolError> {
    let given = |v: &Option<String>| {
        v.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
    };
    let day = given(&form.day).ok_or_else(|| ToolError::InvalidArgs("the day".into()))?;
    let (time, end_time, end_day) =
        (given(&form.time), given(&form.end_time), given(&form.end_day));
    let start = match &time {
        Some(time) => format!("{day}T{time}"),
        None => day.clone(),
    };
    let end = match (&time, end_time, end_day) {
        (Some(_), Some(end), end_day) => Some(format!("{}T{end}", end_day.unwrap_or(day))),
        (None, _, Some(end_day)) => Some(end_day),
        _ => None,
    };
    let freq = match given(&form.repeat).as_deref() {
        None => None,
        Some("weekly") => Some(Freq::Weekly),
        Some("monthly") => Some(Freq::Monthly),
        Some("yearly") => Some(Freq::Yearly),
        Some("workdays") => Some(Freq::Workdays),
        Some(other) => return Err(ToolError::InvalidArgs(format!("repeat {other:?}"))),
    };
    Ok(EventRequest {
        title: given(&form.title).unwrap_or_default(),
        start,
        end,
        place: given(&form.place),
        people: given(&form.who),
        notes: None,
        repetition: freq.map(|freq| RepetitionRequest { freq, ..RepetitionRequest::default() }),
        uid: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(fields: &[(&str, &str)]) -> CalendarForm {
        let field =
            |name: &str| fields.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string());
        CalendarForm {
            csrf: "x".into(),
            op: "add".into(),
            id: None,
            title: field("title"),
            day: field("day"),
            time: field("time"),
            end_time: field("end_time"),
            end_day: field("end_day"),
            place: field("place"),
            who: field("who"),
            repeat: field("repeat"),
            start: None,
        }
    }

    #[test]
    fn the_add_form_makes_a_timed_an_all_day_or_a_several_day_event() {
        let timed = added(&form(&[
            ("title", "鋼琴課"),
            ("day", "2026-12-09"),
            ("time", "16:00"),
            ("end_time", "17:00"),
            ("repeat", "weekly"),
        ]))
        .expect("timed");
        assert_eq!(
            (timed.start.as_str(), timed.end.as_deref()),
            ("2026-12-09T16:00", Some("2026-12-09T17:00"))
        );
        assert_eq!(timed.repetition.map(|r| r.freq), Some(Freq::Weekly));
        let trip = added(&form(&[
            ("title", "墾丁"),
            ("day", "2026-12-25"),
            ("end_day", "2026-12-27"),
            ("time", ""),
        ]))
        .expect("trip");
        assert_eq!((trip.start.as_str(), trip.end.as_deref()), ("2026-12-25", Some("2026-12-27")));
        assert!(
            added(&form(&[("title", "x"), ("day", "2026-12-25"), ("repeat", "hourly")])).is_err()
        );
        assert!(added(&form(&[("title", "x")])).is_err(), "a day is needed");
    }

    #[test]
    fn a_month_is_drawn_sunday_first_with_blanks_around_it() {
        let weeks = weeks("2026-12-01".parse().expect("date"));
        assert_eq!(weeks.len(), 5);
        assert_eq!(weeks[0][..2], [None, None], "1 December 2026 is a Tuesday");
        assert_eq!(weeks[0][2].map(|d| d.day()), Some(1));
        assert_eq!(weeks[4][4].map(|d| d.day()), Some(31));
        assert_eq!(weeks[4][5], None);
    }

    #[test]
    fn a_month_asked_for_is_kept_within_two_years_and_a_bad_one_is_this_month() {
        let today: Date = "2026-12-07".parse().expect("date");
        assert_eq!(month_of(Some("2027-02"), today).to_string(), "2027-02-01");
        assert_eq!(month_of(Some("2031-02"), today).to_string(), "2026-12-01");
        assert_eq!(month_of(Some("<script>"), today).to_string(), "2026-12-01");
        assert_eq!(month_of(None, today).to_string(), "2026-12-01");
    }
}
