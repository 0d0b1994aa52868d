//! The feed of changes: every verb ([`crate::features::verbs`]) records, once, what a member
//! changed, who and from where — 「媽媽 在網頁上勾掉了 牛奶 · 10:02」 — and the family page
//! shows a chat's latest. Recording never fails the change it follows: a feed that cannot be
//! written is logged, and the change stands.

use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::contract::{Surface, ToolCtx};
use crate::features::verbs::{self, Verb};
use crate::platform::i18n::Lang;
use crate::store::{ChangeRow, NewChange, Store};

/// How many changes the family page shows.
pub const SHOWN: i64 = 20;

/// Records that `ctx`'s member did `verb` to `what` in `chat` (the chat whose things changed:
/// a care plan's chat, for a dose confirmed from her own 1:1 chat).
pub async fn record_in(store: &Store, ctx: &ToolCtx, chat: &str, verb: &Verb, what: &str) {
    let change = NewChange {
        conversation_id: chat,
        user_id: ctx.user_id.as_deref(),
        member_name: ctx.display_name.as_deref(),
        surface: ctx.surface.as_str(),
        verb: verb.name,
        what,
        at_ms: ctx.now().as_millisecond(),
    };
    if let Err(e) = store.changes().record(change).await {
        tracing::warn!(error = %e, verb = verb.name, "the change was made but not recorded in the feed");
    }
}

/// Records that `ctx`'s member did `verb` to `what` in their chat.
pub async fn record(store: &Store, ctx: &ToolCtx, verb: &Verb, what: &str) {
    record_in(store, ctx, &ctx.conversation.id, verb, what).await;
}

/// The latest changes of `chat`, newest first, as the family reads them.
pub async fn recent(
    store: &Store,
    chat: &str,
    tz: &TimeZone,
    lang: Lang,
) -> Result<Vec<String>, crate::store::StoreError> {
    let rows = store.changes().recent(chat, SHOWN).await?;
    Ok(rows.iter().map(|row| line(row, tz, lang)).collect())
}

/// One change as the family reads it: 「媽媽 在網頁上勾掉了 牛奶 · 12/07 10:02」.
pub fn line(row: &ChangeRow, tz: &TimeZone, lang: Lang) -> String {
    let who = row.member_name.clone().unwrap_or_else(|| lang.pick("家人", "Someone").to_string());
    let how = Surface::parse(&row.surface).map(|s| s.said(lang)).unwrap_or_default();
    let did = verbs::named(&row.verb).map(|v| v.said(lang)).unwrap_or(row.verb.as_str());
    let when = Timestamp::from_millisecond(row.at_ms)
        .map(|t| t.to_zoned_datetime(tz.clone()).strftime("%m/%d %H:%M").to_string())
        .unwrap_or_default();
    match lang {
        Lang::ZhTw => format!("{who} {how}{did} {} · {when}", row.what),
        Lang::En => format!("{who} {did} {} {how} · {when}", row.what),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(surface: &str, verb: &str) -> ChangeRow {
        ChangeRow {
            id: 1,
            user_id: Some("U1".into()),
            member_name: Some("媽媽".into()),
            surface: surface.into(),
            verb: verb.into(),
            what: "牛奶".into(),
            // 10:02 on 7 December 2026 in Taipei.
            at_ms: "2026-12-07T02:02:00Z".parse::<Timestamp>().expect("instant").as_millisecond(),
        }
    }

    #[test]
    fn a_change_reads_as_who_did_what_from_where_and_when() {
        let tz = TimeZone::get("Asia/Taipei").expect("zone");
        assert_eq!(
            line(&row("page", "list_check"), &tz, Lang::ZhTw),
            "媽媽 在網頁上勾掉了 牛奶 · 12/07 10:02"
        );
        assert_eq!(
            line(&row("button", "list_check"), &tz, Lang::En),
            "媽媽 checked off 牛奶 with a button · 12/07 10:02"
        );
        let unnamed = ChangeRow { member_name: None, ..row("chat", "list_add") };
        assert_eq!(line(&unnamed, &tz, Lang::ZhTw), "家人 在聊天中加入了 牛奶 · 12/07 10:02");
    }
}
