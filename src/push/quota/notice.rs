//! What a reply says about the quota: the once-a-month notice at 80 %, and the items that were
//! due while the month was out ("你錯過的提醒：…"), carried by the chat's next reply.

use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::platform::i18n::Lang;

/// The short notice that `used` of `limit` messages are gone this month.
pub fn warning(used: i64, limit: i64, lang: Lang) -> String {
    match lang {
        Lang::ZhTw => format!(
            "⚠️ 本月 LINE 免費訊息已用 {used}/{limit} 則。用完後，提醒會在你下次找我時一起補上。"
        ),
        Lang::En => format!(
            "⚠️ {used} of this month's {limit} free LINE messages are used. Once they run out, reminders come with my next answer here."
        ),
    }
}

/// The list of held items (summary and when it was due), oldest first; `None` when there are
/// none.
pub fn missed(items: &[(String, Timestamp)], tz: &TimeZone, lang: Lang) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let mut text = lang.pick("你錯過的提醒：", "Reminders you missed:").to_string();
    for (summary, at) in items {
        let at = at.to_zoned_datetime(tz.clone()).strftime("%m/%d %H:%M").to_string();
        text.push_str(&format!("\n• {summary}（{at}）"));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missed_items_are_listed_with_their_local_due_time() {
        let tz = TimeZone::get("Asia/Taipei").expect("zone");
        let at: Timestamp = "2026-12-01T00:00:00Z".parse().expect("t");
        let items = vec![("⏰ 吃藥".to_string(), at)];
        assert_eq!(
            missed(&items, &tz, Lang::ZhTw).as_deref(),
            Some("你錯過的提醒：\n• ⏰ 吃藥（12/01 08:00）")
        );
        assert_eq!(missed(&[], &tz, Lang::ZhTw), None);
    }

    #[test]
    fn the_warning_says_how_much_is_used() {
        assert!(warning(160, 200, Lang::ZhTw).contains("160/200"));
        assert!(warning(160, 200, Lang::En).contains("160 of this month's 200"));
    }
}
