//! `hearth chat`: the same agent in a terminal, as a 1:1 chat. Cards are printed as text and
//! chips as numbered choices (type the number to send one). Needs only the LLM settings.

use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::app::Hearth;
use crate::i18n::{Failure, Lang};
use crate::llm::openai::ChatMessage;
use crate::source::Conversation;
use crate::tool::{Chip, ToolCtx};

/// Runs the terminal chat until end of input.
pub async fn run(app: Arc<Hearth>) -> std::io::Result<()> {
    let mut out = tokio::io::stdout();
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut history: Vec<ChatMessage> = Vec::new();
    let mut chips: Vec<Chip> = Vec::new();
    // Once an answer was written after untrusted content, the session stays tainted.
    let mut tainted = false;
    out.write_all(
        "hearth chat — 輸入問題，Ctrl-D 結束 / type a question, Ctrl-D to quit\n> ".as_bytes(),
    )
    .await?;
    out.flush().await?;
    while let Some(line) = lines.next_line().await? {
        let input = line.trim();
        if input.is_empty() {
            out.write_all(b"> ").await?;
            out.flush().await?;
            continue;
        }
        let text = match input.parse::<usize>().ok().and_then(|n| chips.get(n.wrapping_sub(1))) {
            Some(chip) => chip.text.clone(),
            None => input.to_string(),
        };
        let ctx = ToolCtx {
            conversation: Conversation::user("terminal"),
            user_id: None,
            display_name: None,
            tz: app.tz.clone(),
            lang: Lang::detect(&text),
            clock: app.clock.clone(),
        };
        let mut messages = vec![ChatMessage::System {
            content: crate::memory::system_prompt(&app.store, &ctx, &text, &app.prompt_setting())
                .await,
        }];
        messages.extend(history.iter().cloned());
        messages.push(ChatMessage::User { content: text.clone() });
        let rendered = match app.agent.answer(&ctx, messages, tainted).await {
            Ok(answer) => {
                tainted |= answer.tainted;
                history.push(ChatMessage::User { content: text });
                history.push(ChatMessage::Assistant {
                    content: Some(answer.text.clone()),
                    tool_calls: vec![],
                });
                chips = answer.chips.clone();
                render(&answer.text, &answer.cards, &chips)
            }
            Err(e) => {
                tracing::warn!(error = %e, "turn failed");
                chips.clear();
                Failure::Unavailable.message(ctx.lang).to_string()
            }
        };
        let keep = history.len().saturating_sub(20);
        history.drain(..keep);
        out.write_all(format!("{rendered}\n> ").as_bytes()).await?;
        out.flush().await?;
    }
    Ok(())
}

/// An answer as terminal text.
pub fn render(text: &str, cards: &[crate::tool::Card], chips: &[Chip]) -> String {
    let mut out = text.trim().to_string();
    for card in cards {
        out.push_str("\n\n");
        out.push_str(&card.to_text());
    }
    if !chips.is_empty() {
        out.push('\n');
        for (i, chip) in chips.iter().enumerate() {
            out.push_str(&format!("\n  [{}] {}", i + 1, chip.label));
        }
    }
    out
}
