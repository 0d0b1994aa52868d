//! An event card's ⏰ buttons: the evening before, two hours before
//! ([`super::ops::remind`]). A tap acts on the chat it was tapped in only (the data is signed for
//! it), through the same verb a later tool or page would call.

use serde::{Deserialize, Serialize};

use super::ops::CalendarOps;
use super::ops::remind::{DAY_BEFORE, TWO_HOURS};
use crate::contract::{Answer, CardButton, ToolCtx, ToolError};
use crate::features::button::{Action, text};
use crate::features::deps::Deps;
use crate::platform::i18n::Lang;

/// ⏰: a reminder `minutes` before event `event`, `12-1440` on a button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct RemindBeforeEvent {
    /// The event.
    pub event: i64,
    /// How long before it: [`DAY_BEFORE`] or [`TWO_HOURS`].
    pub minutes: i64,
}

impl From<RemindBeforeEvent> for String {
    fn from(r: RemindBeforeEvent) -> String {
        format!("{}-{}", r.event, r.minutes)
    }
}

impl TryFrom<String> for RemindBeforeEvent {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        let parsed = s.split_once('-').and_then(|(event, minutes)| {
            let minutes = minutes.parse().ok().filter(|m| [DAY_BEFORE, TWO_HOURS].contains(m))?;
            Some(Self { event: event.parse().ok()?, minutes })
        });
        parsed.ok_or_else(|| format!("not an event's ⏰: {s:?}"))
    }
}

impl Action for RemindBeforeEvent {
    const NAME: &'static str = "event_remind";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        let lang = ctx.lang;
        match CalendarOps::from_deps(deps).remind_before(ctx, self.event, self.minutes).await {
            Ok(set) => {
                let at = set.at.get(5..).unwrap_or(&set.at).replace('-', "/").replace('T', " ");
                text(&match lang {
                    Lang::ZhTw => format!("⏰ 好，{at} 會提醒：{}", set.text),
                    Lang::En => format!("⏰ Done: at {at} I'll remind you: {}", set.text),
                })
            }
            Err(ToolError::NotFound(_)) => text(lang.pick(
                "這個行程已經取消了，所以沒有設提醒。",
                "That event was cancelled, so no reminder was set.",
            )),
            Err(ToolError::InvalidArgs(why)) => {
                tracing::info!(%why, "an event's ⏰ was not set");
                text(lang.pick(
                    "這個時間已經過了，或這個行程不能這樣提醒 🙏",
                    "That time has passed, or this event cannot be reminded that way 🙏",
                ))
            }
            Err(e) => {
                tracing::warn!(error = %e, "an event's ⏰ was not set");
                text(lang.pick(
                    "提醒沒有設成功，請再按一次 🙏",
                    "The reminder was not set; please tap again 🙏",
                ))
            }
        }
    }
}

/// The ⏰ buttons of an event: the evening before (`day_before`: not for a workday event), and
/// two hours before one at a time.
pub fn buttons(event: i64, timed: bool, day_before: bool, lang: Lang) -> Vec<CardButton> {
    let mut buttons = Vec::new();
    if day_before {
        buttons.push(RemindBeforeEvent { event, minutes: DAY_BEFORE }.button(
            lang.pick("⏰ 前一天提醒", "⏰ The day before"),
            lang.pick("前一天提醒我", "Remind us the day before"),
        ));
    }
    if timed {
        buttons.push(RemindBeforeEvent { event, minutes: TWO_HOURS }.button(
            lang.pick("⏰ 兩小時前", "⏰ Two hours before"),
            lang.pick("兩小時前提醒我", "Remind us two hours before"),
        ));
    }
    buttons
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buttons_data_is_the_event_and_a_known_time_before_it() {
        let data: String = RemindBeforeEvent { event: 12, minutes: DAY_BEFORE }.into();
        assert_eq!(data, "12-1440");
        assert_eq!(
            RemindBeforeEvent::try_from(data),
            Ok(RemindBeforeEvent { event: 12, minutes: DAY_BEFORE })
        );
        assert!(RemindBeforeEvent::try_from("12-5".to_string()).is_err(), "only the two offered");
        assert!(RemindBeforeEvent::try_from("x-120".to_string()).is_err());
    }
}
