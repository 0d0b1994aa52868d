//! One card for several held calls: when a turn that read a photo or a file holds two or more
//! calls (the reminders read from a photo of a school notice, say), the family gets one card
//! listing each — what, when, how
//! often — with one ✅ that does them all and one ✖️, instead of a card per call. The buttons
//! carry the held calls' ids, signed for the chat like every button; a tap runs each call
//! through [`super::confirm_tapped`], so each still runs once, only in its own chat and only
//! within the hour.

use serde::{Deserialize, Serialize};

use crate::contract::Answer;
use crate::contract::{Card, CardButton, CardRow, ToolCtx};
use crate::features::button::Action;
use crate::features::deps::Deps;
use crate::features::held_calls::ops::HeldCallOps;
use crate::line::postback::is_token;
use crate::platform::i18n::Lang;
use crate::platform::text::truncate_graphemes;

/// ✅ on a combined card: run held calls `ids` (`12-13-14`) here, each once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ConfirmCalls {
    /// The held calls' ids joined with `-`.
    pub ids: String,
}

/// ✖️ on a combined card: drop held calls `ids`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DiscardCalls {
    /// The held calls' ids joined with `-`.
    pub ids: String,
}

impl Action for ConfirmCalls {
    const NAME: &'static str = "confirm_calls";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        let held = HeldCallOps::from_deps(deps);
        let mut answer = Answer::default();
        let mut texts: Vec<String> = Vec::new();
        for id in ids(&self.ids) {
            let done = super::confirm_tapped(&held, &deps.tools, ctx, id).await;
            if !texts.contains(&done.text) {
                texts.push(done.text);
            }
            answer.cards.extend(done.cards);
            answer.tainted |= done.tainted;
        }
        answer.cards.truncate(12);
        answer.text = texts.join("\n");
        answer
    }
}

impl Action for DiscardCalls {
    const NAME: &'static str = "discard_calls";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        let held = HeldCallOps::from_deps(deps);
        for id in ids(&self.ids) {
            if let Err(e) = held.take(ctx, id).await {
                tracing::warn!(error = %e, "could not drop a held call");
            }
        }
        Answer {
            text: ctx.lang.pick("好的，都不執行。", "OK, none of them.").into(),
            ..Answer::default()
        }
    }
}

/// The ids of a button's data; malformed parts are skipped.
fn ids(joined: &str) -> Vec<i64> {
    joined.split('-').filter_map(|id| id.parse().ok()).collect()
}

/// The held call a card confirms, when it is a held call's card.
fn held_id(card: &Card) -> Option<i64> {
    card.buttons.iter().find_map(|b| match b {
        CardButton::Postback { action, id, .. } if action == super::ConfirmCall::NAME => {
            id.parse().ok()
        }
        _ => None,
    })
}

/// `cards` with the cards of held calls merged into one when there are two or more (and their
/// ids fit a button); other cards are kept, in order, the combined card where the first held
/// one was.
pub fn combine(cards: Vec<Card>, lang: Lang) -> Vec<Card> {
    let held: Vec<(i64, &Card)> =
        cards.iter().filter_map(|c| held_id(c).map(|id| (id, c))).collect();
    let joined = held.iter().map(|(id, _)| id.to_string()).collect::<Vec<_>>().join("-");
    if held.len() < 2 || !is_token(&joined) {
        return cards;
    }
    let tool = tool_of(held[0].1);
    let one_tool = held.iter().all(|(_, c)| tool_of(c) == tool);
    let title = TITLES.iter().find(|(name, _, _)| one_tool && tool == Some(*name));
    let (zh, en) =
        title.map_or(("⚠️ 要執行這些動作嗎？", "⚠️ Do these?"), |t| (t.1, t.2));
    let mut merged = Card::new(lang.pick(zh, en));
    merged.subtitle = Some(
        lang.pick(
            "這些是讀了照片、檔案或網頁內容之後才提出的，確定是你們要的再按確認。",
            "These were asked for after reading a photo, a file or web content; confirm only if you want them.",
        )
        .into(),
    );
    for (n, (_, card)) in held.iter().enumerate() {
        let details: Vec<&str> = card.rows.iter().skip(1).map(|r| r.value.as_str()).collect();
        let label = format!("{}. {}", n + 1, tool_of(card).unwrap_or(""));
        merged.rows.push(CardRow::new(label, truncate_graphemes(&details.join(" · "), 200)));
    }
    merged.buttons.push(ConfirmCalls { ids: joined.clone() }.button(
        lang.pick("✅ 全部確認", "✅ Confirm all"),
        lang.pick("✅ 全部確認", "✅ Confirm all"),
    ));
    merged.buttons.push(DiscardCalls { ids: joined }.button(
        lang.pick("✖️ 都不用了", "✖️ None of them"),
        lang.pick("✖️ 都不用了", "✖️ None of them"),
    ));
    merged.footnote = Some(lang.pick("1 小時內有效", "Valid for 1 hour").into());
    let first = cards.iter().position(|c| held_id(c).is_some()).unwrap_or(0);
    let mut out: Vec<Card> = Vec::with_capacity(cards.len());
    for (i, card) in cards.into_iter().enumerate() {
        if i == first {
            out.push(merged.clone());
        }
        if held_id(&card).is_none() {
            out.push(card);
        }
    }
    out
}

/// The title of a combined card whose calls are all of one tool (the reminders or the events
/// read from a school notice): tool, Chinese, English.
const TITLES: &[(&str, &str, &str)] = &[
    ("reminder", "⚠️ 要設定這些提醒嗎？", "⚠️ Set these reminders?"),
    ("calendar", "⚠️ 要把這些寫進行事曆嗎？", "⚠️ Put these on the calendar?"),
];

/// The tool a held call's card names (its first row).
fn tool_of(card: &Card) -> Option<&str> {
    card.rows.first().map(|r| r.value.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(id: i64, text: &str) -> Card {
        let mut card = Card::new("⚠️");
        card.rows.push(CardRow::new("動作", "reminder"));
        card.rows.push(CardRow::new("text", text));
        card.rows.push(CardRow::new("at", "2026-12-05T19:00"));
        card.buttons.push(super::super::ConfirmCall { id }.button("✅", "✅"));
        card
    }

    #[test]
    fn two_held_reminders_become_one_card_listing_each() {
        let cards =
            combine(vec![Card::new("weather"), held(7, "家長會"), held(8, "繳費")], Lang::ZhTw);
        assert_eq!(cards.len(), 2);
        assert_eq!(cards[0].title, "weather");
        assert_eq!(cards[1].title, "⚠️ 要設定這些提醒嗎？");
        assert_eq!(cards[1].rows[0].value, "家長會 · 2026-12-05T19:00");
        assert!(matches!(&cards[1].buttons[0],
            CardButton::Postback { action, id, .. } if action == "confirm_calls" && id == "7-8"));
    }

    #[test]
    fn one_held_call_keeps_its_own_card() {
        let cards = combine(vec![held(7, "家長會")], Lang::ZhTw);
        assert!(matches!(&cards[0].buttons[0],
            CardButton::Postback { action, .. } if action == "confirm_call"));
    }

    #[test]
    fn ids_that_do_not_parse_are_skipped() {
        assert_eq!(ids("1-x-3"), vec![1, 3]);
    }
}
