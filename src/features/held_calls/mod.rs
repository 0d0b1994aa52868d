//! Held calls: the second line of defence against prompt injection. Once untrusted web content
//! entered a turn, a state-changing tool call the model makes in that turn is not run: the
//! agent [`hold`]s it in the store and the family gets a card with a confirm button (a postback
//! signed for the conversation). A tap there runs the stored call through the registry with the
//! tap's context ([`ConfirmCall`]); the store lookup is keyed by the tap's conversation too,
//! so a call held in one chat can never run in another. Held calls expire after [`EXPIRY`].
//! Outgoing requests the model chose in such a turn (`crate::contract::egress`) are held the same way,
//! and their card shows the whole URL or query that would be sent. A tool its MCP server
//! declares destructive is held this way on every call, tainted turn or not.

pub mod combined;
pub mod ops;

use ops::HeldCallOps;

use futures::future::BoxFuture;
use jiff::SignedDuration;
use serde_json::{Value, json};

use serde::{Deserialize, Serialize};

use crate::contract::Answer;
use crate::contract::egress::Outgoing;
use crate::contract::registry::{Outcome, Registry, ToolReply};
use crate::contract::{Card, CardRow, ErrorKind, ToolCtx};
use crate::features::button::Action;
use crate::features::deps::Deps;
use crate::llm::hold::{CallHolder, Held};
use crate::platform::i18n::Lang;
use crate::platform::text::truncate_graphemes;
use crate::store::Store;

/// ✅: run held call `id` here, once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ConfirmCall {
    /// The held call.
    pub id: i64,
}

/// ✖️: drop held call `id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DiscardCall {
    /// The held call.
    pub id: i64,
}

impl Action for ConfirmCall {
    const NAME: &'static str = "confirm_call";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        confirm_tapped(&HeldCallOps::from_deps(deps), &deps.tools, ctx, self.id).await
    }
}

impl Action for DiscardCall {
    const NAME: &'static str = "discard_call";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        discard_tapped(&HeldCallOps::from_deps(deps), ctx, self.id).await
    }
}
/// How long a held call can be confirmed.
pub const EXPIRY: SignedDuration = SignedDuration::from_hours(1);
/// Arguments shown on the card at most.
const MAX_ARG_ROWS: usize = 6;

/// Characters of a held URL or query shown on the card at most (LINE shows 2000).
const MAX_TARGET_CHARS: usize = 1000;

/// Holds calls in the store, with a confirmation card: what the tool loop gives held calls to.
pub struct HeldCalls {
    ops: HeldCallOps,
}

impl HeldCalls {
    /// HeldCalls kept in `store`.
    pub fn new(store: Store) -> Self {
        Self { ops: HeldCallOps::new(store) }
    }
}

impl CallHolder for HeldCalls {
    fn hold<'a>(
        &'a self,
        ctx: &'a ToolCtx,
        tool: &'a str,
        args: &'a str,
        why: Held<'a>,
    ) -> BoxFuture<'a, ToolReply> {
        Box::pin(hold(&self.ops, ctx, tool, args, why))
    }
}

/// Holds the call `tool(args)` for confirmation; the reply tells the model it was not done and
/// carries the confirmation card.
pub async fn hold(
    held: &HeldCallOps,
    ctx: &ToolCtx,
    tool: &str,
    args: &str,
    why: Held<'_>,
) -> ToolReply {
    let id = match held.hold(ctx, tool, args).await {
        Ok(id) => id,
        Err(e) => {
            tracing::error!(error = %e, tool, "could not hold a call for confirmation");
            return ToolReply::error(
                ErrorKind::NotAllowed,
                "this action was requested after reading web content and needs the family's confirmation, which is unavailable right now; it was not done",
            );
        }
    };
    tracing::info!(tool, id, conversation = %ctx.conversation, ?why, "call held for confirmation");
    let message = match why {
        Held::Destructive => "NOT done yet. The service marks this action as destructive, so it waits for the family: they see a card with a confirm button and it happens only if someone taps it. Say so briefly; never claim it was done.".to_string(),
        Held::StateChange | Held::Outgoing(_) => {
            let what = if matches!(why, Held::StateChange) {
                "This action"
            } else {
                "This request to an outside address"
            };
            format!("NOT done. {what} was requested after untrusted web content entered the conversation, so it was not carried out. The family sees a card with a confirm button; it happens only if someone taps it. Say so briefly; never claim it was done.")
        }
    };
    ToolReply {
        content: json!({
            "status": "needs_confirmation",
            "tool": tool,
            "message": message,
        }),
        card: Some(card(ctx.lang, tool, args, id, why)),
        chips: Vec::new(),
        outcome: Outcome::NeedsConfirmation,
        links: Vec::new(),
        error: None,
        untrusted: false,
    }
}

/// The confirmation card: what would be done (for a request, the whole URL or query that would
/// be sent), with confirm and "no thanks" buttons.
fn card(lang: Lang, tool: &str, args: &str, id: i64, why: Held<'_>) -> Card {
    let mut card = match why {
        Held::StateChange | Held::Destructive => {
            Card::new(lang.pick("⚠️ 要執行這個動作嗎？", "⚠️ Do this?"))
        }
        Held::Outgoing(Outgoing::Fetch(_)) => {
            Card::new(lang.pick("⚠️ 要連到這個網址嗎？", "⚠️ Open this address?"))
        }
        Held::Outgoing(Outgoing::Search(_)) => {
            Card::new(lang.pick("⚠️ 要搜尋這個嗎？", "⚠️ Search for this?"))
        }
    };
    card.subtitle = Some(
        match why {
            Held::Destructive => lang.pick(
                "這個動作可能無法復原，確定是你們要的再按確認。",
                "This may not be undoable; confirm only if you want it.",
            ),
            Held::StateChange => lang.pick(
                "這是讀了網頁內容之後才提出的，確定是你們要的再按確認。",
                "This was asked for after reading web content; confirm only if you want it.",
            ),
            Held::Outgoing(_) => lang.pick(
                "這是讀了網頁內容之後才提出的，內容可能夾帶你們的資料；確定沒問題再按確認。",
                "This was asked for after reading web content and could carry your data out; confirm only if it looks right.",
            ),
        }
        .into(),
    );
    card.rows.push(CardRow::new(lang.pick("動作", "Action"), tool));
    if let Held::Outgoing(request) = why {
        let label = match request {
            Outgoing::Fetch(_) => lang.pick("網址", "URL"),
            Outgoing::Search(_) => lang.pick("搜尋", "Search"),
        };
        card.rows.push(CardRow::new(label, truncate_graphemes(request.target(), MAX_TARGET_CHARS)));
    } else if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(args) {
        for (key, value) in map.iter().filter(|(_, v)| !v.is_null()).take(MAX_ARG_ROWS) {
            let shown = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            card.rows.push(CardRow::new(key.clone(), truncate_graphemes(&shown, 120)));
        }
    }
    card.buttons.push(
        ConfirmCall { id }
            .button(lang.pick("✅ 確認執行", "✅ Confirm"), lang.pick("✅ 確認", "✅ Confirm")),
    );
    card.buttons.push(
        DiscardCall { id }
            .button(lang.pick("✖️ 不用了", "✖️ No thanks"), lang.pick("✖️ 不用了", "✖️ No thanks")),
    );
    card.footnote = Some(lang.pick("1 小時內有效", "Valid for 1 hour").into());
    card
}

/// ✅ tapped (verified for this conversation): runs the held call here, once, through `tools`.
async fn confirm_tapped(held: &HeldCallOps, tools: &Registry, ctx: &ToolCtx, id: i64) -> Answer {
    let lang = ctx.lang;
    let gone = || Answer {
        text: lang
            .pick(
                "這個確認已經處理過或過期了，沒有做任何變更。",
                "That confirmation was already used or has expired; nothing changed.",
            )
            .into(),
        ..Answer::default()
    };
    let call = match held.take(ctx, id).await {
        Ok(Some(call)) => call,
        Ok(None) => return gone(),
        Err(e) => {
            tracing::error!(error = %e, "could not read a held call");
            return Answer {
                text: lang
                    .pick(
                        "抱歉，現在沒辦法執行，請再試一次。",
                        "Sorry, I couldn't do it; please try again.",
                    )
                    .into(),
                ..Answer::default()
            };
        }
    };
    if ctx.now().as_millisecond() - call.created_at > EXPIRY.as_millis() as i64 {
        return gone();
    }
    let ctx = ToolCtx { lang: call.lang, ..ctx.clone() };
    let lang = ctx.lang;
    let reply = tools.dispatch(&call.tool, &call.args, &ctx).await;
    tracing::info!(tool = call.tool, id, outcome = ?reply.outcome, "held call confirmed");
    match reply.outcome {
        Outcome::Ok => Answer {
            text: lang.pick("✅ 已確認並完成。", "✅ Confirmed and done.").into(),
            cards: reply.card.into_iter().collect(),
            chips: reply.chips,
            tainted: tools.untrusted_output(&call.tool),
        },
        _ => {
            let message = reply.error.map(|e| e.message).unwrap_or_default();
            Answer {
                text: format!("{}{message}", lang.pick("沒辦法完成：", "Couldn't do it: ")),
                ..Answer::default()
            }
        }
    }
}

/// ✖️ tapped: the held call is dropped.
async fn discard_tapped(held: &HeldCallOps, ctx: &ToolCtx, id: i64) -> Answer {
    if let Err(e) = held.take(ctx, id).await {
        tracing::warn!(error = %e, "could not drop a held call");
    }
    Answer {
        text: ctx.lang.pick("好的，不執行。", "OK, not doing it.").into(),
        ..Answer::default()
    }
}
