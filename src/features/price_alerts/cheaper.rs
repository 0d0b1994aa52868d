//! The cheaper ways offered when an every-time alert would push the month over LINE's quota:
//! which apply (a pure choice from where the alert would go and what the chat has), and how the
//! refusal card and its chips say them.

use serde::Serialize;

use crate::contract::Chip;
use crate::platform::i18n::Lang;

/// A cheaper way to be told about a price.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cheaper {
    /// The asker's own alert, in their 1:1 chat with hearth (one message a fire).
    OneToOne,
    /// Alert once, then end.
    Once,
    /// Alert once; the chat's daily digest, which it already has, shows the price's moves.
    OnceAndDigest,
}

/// The cheaper ways for an alert set in a group or room (`multi_person`) that would go to that
/// chat (`to_chat`), when the asker's own alert could go to their 1:1 chat (`direct_possible`)
/// and whether the chat already has a daily digest (`has_digest`).
pub fn ways(
    multi_person: bool,
    to_chat: bool,
    direct_possible: bool,
    has_digest: bool,
) -> Vec<Cheaper> {
    let mut out = Vec::new();
    if multi_person && to_chat && direct_possible {
        out.push(Cheaper::OneToOne);
    }
    out.push(if has_digest { Cheaper::OnceAndDigest } else { Cheaper::Once });
    out
}

/// The cheaper ways in one line, for the refusal card.
pub fn line(ways: &[Cheaper], lang: Lang) -> String {
    let words: Vec<&str> = ways
        .iter()
        .map(|w| match w {
            Cheaper::OneToOne => {
                lang.pick("改成只私訊通知你（每次 1 則）", "just you in 1:1 (1 each time)")
            }
            Cheaper::Once => lang.pick("只通知一次", "alert once only"),
            Cheaper::OnceAndDigest => lang.pick(
                "只通知一次，平常的漲跌看每日摘要",
                "alert once and see the moves in the daily digest",
            ),
        })
        .collect();
    words.join(lang.pick("，或", "; or "))
}

/// The chips of a refused alert on `what` ("台積電 漲到 1,500"): each cheaper way, then
/// creating it anyway.
pub fn chips(ways: &[Cheaper], what: &str, lang: Lang) -> Vec<Chip> {
    let chip = |zh_label: &str, en_label: &str, zh: &str, en: &str| {
        let text = match lang {
            Lang::ZhTw => format!("{zh}：{what}"),
            Lang::En => format!("{en}: {what}"),
        };
        Chip::new(lang.pick(zh_label, en_label), text)
    };
    let mut out: Vec<Chip> = ways
        .iter()
        .map(|w| match w {
            Cheaper::OneToOne => chip(
                "改成只私訊通知我",
                "Just me in 1:1",
                "價格通知改成只私訊通知我，每次都通知",
                "Make it my own alert in 1:1, every time",
            ),
            Cheaper::Once => chip(
                "只通知一次",
                "Alert once",
                "價格通知改成只通知一次",
                "Make it a one-time alert",
            ),
            Cheaper::OnceAndDigest => chip(
                "只通知一次＋每日摘要",
                "Once + daily digest",
                "價格通知改成只通知一次，平常的漲跌在每日摘要看",
                "Make it a one-time alert; I'll see the moves in the daily digest",
            ),
        })
        .collect();
    out.push(chip(
        "仍然建立",
        "Create anyway",
        "超過額度也沒關係，照樣建立每次都通知的價格通知",
        "Create the every-time alert anyway",
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_alert_whose_asker_is_a_friend_can_move_to_their_1to1_chat() {
        assert_eq!(ways(true, true, true, false), vec![Cheaper::OneToOne, Cheaper::Once]);
        assert_eq!(ways(true, true, false, false), vec![Cheaper::Once], "not a friend");
        assert_eq!(ways(true, false, true, false), vec![Cheaper::Once], "already 1:1");
        assert_eq!(ways(false, true, true, false), vec![Cheaper::Once], "a 1:1 chat");
    }

    #[test]
    fn a_chat_with_a_daily_digest_is_offered_the_digest_for_the_moves() {
        assert_eq!(ways(true, true, true, true), vec![Cheaper::OneToOne, Cheaper::OnceAndDigest]);
        assert_eq!(ways(false, true, false, true), vec![Cheaper::OnceAndDigest]);
    }

    #[test]
    fn the_chips_say_each_way_about_the_alert_and_end_with_create_anyway() {
        let chips = chips(&[Cheaper::OneToOne, Cheaper::Once], "台積電 漲到 1,500", Lang::ZhTw);
        let labels: Vec<&str> = chips.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["改成只私訊通知我", "只通知一次", "仍然建立"]);
        assert!(chips.iter().all(|c| c.text.ends_with("：台積電 漲到 1,500")), "{chips:?}");
        assert_eq!(
            line(&[Cheaper::OneToOne, Cheaper::Once], Lang::ZhTw),
            "改成只私訊通知你（每次 1 則），或只通知一次"
        );
    }
}
