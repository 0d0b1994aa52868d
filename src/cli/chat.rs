//! `hearth chat`: the same agent in a terminal, as a 1:1 chat. Cards are printed as text and
//! chips as numbered choices (type the number to send one). Needs only the LLM settings.
//! `/image PATH [question]` and `/voice PATH` send a local photo or voice recording as if it came
//! from LINE: the photo scaled down for the vision model, the recording transcribed.

use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::contract::{Chip, ToolCtx};
use crate::features::memory::ops::MemoryOps;
use crate::llm::openai::ChatMessage;
use crate::platform::conversation::Conversation;
use crate::platform::i18n::{Failure, Lang};
use crate::turn::Turns;

/// Runs the terminal chat until end of input.
pub async fn run(app: Arc<Turns>) -> std::io::Result<()> {
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
        let (user, logged, heard) = match local_media(&app, &text).await {
            Ok(Some(input)) => input,
            Ok(None) => (ChatMessage::User { content: text.clone() }, text.clone(), None),
            Err(problem) => {
                out.write_all(format!("{problem}\n> ").as_bytes()).await?;
                out.flush().await?;
                continue;
            }
        };
        let words = logged.replace("[photo]", "");
        let ctx = ToolCtx {
            conversation: Conversation::user("terminal"),
            user_id: None,
            display_name: None,
            tz: app.tz.clone(),
            lang: Lang::detect(&words),
            clock: app.clock.clone(),
            surface: crate::contract::Surface::Chat,
        };
        let chat = MemoryOps::from_deps(&app.deps).chat_part(&ctx, &words).await;
        let shared = user.has_image();
        let messages =
            crate::llm::prompt::messages(&ctx, &app.prompt_setting(), chat, history.clone(), user);
        let rendered = match app.agent.answer(&ctx, messages, tainted || shared).await {
            Ok(mut answer) => {
                tainted |= answer.tainted;
                if let Some(heard) = &heard {
                    answer.text = crate::features::media::with_heard(&answer.text, heard, ctx.lang);
                }
                history.push(ChatMessage::User { content: logged });
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

/// A `/image PATH [question]` or `/voice PATH` line as the user message it stands for, the
/// text kept in the session's history, and (for voice) what was heard; `None` for other lines,
/// an error sentence when the file cannot be used.
async fn local_media(
    app: &Turns,
    line: &str,
) -> Result<Option<(ChatMessage, String, Option<String>)>, String> {
    let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
    let (path, question) = rest.trim().split_once(' ').unwrap_or((rest.trim(), ""));
    let read = |path: &str| {
        let path = path.to_string();
        async move { tokio::fs::read(&path).await.map_err(|e| format!("{path}: {e}")) }
    };
    match command {
        "/image" => {
            let sandbox = &app.media.sandbox;
            let place = sandbox.place("terminal").await.map_err(|e| e.to_string())?;
            let bytes = read(path).await?;
            let prepared = sandbox.picture(place, bytes).await.map_err(|e| e.to_string())?;
            let words = if question.trim().is_empty() {
                crate::turn::media::PHOTO_ALONE.to_string()
            } else {
                question.trim().to_string()
            };
            let user =
                crate::features::media::with_parts(words.clone(), vec![prepared.data_url()], None);
            Ok(Some((user, format!("[photo] {}", question.trim()), None)))
        }
        "/voice" => {
            let Some(transcriber) = &app.media.transcriber else {
                return Err("voice is off (HEARTH_TRANSCRIBE_MODEL is empty)".into());
            };
            let bytes = read(path).await?;
            let mime = if path.ends_with(".wav") { "audio/wav" } else { "audio/mp4" };
            let name = std::path::Path::new(path)
                .file_name()
                .map_or("voice.m4a".into(), |n| n.to_string_lossy().into_owned());
            let heard =
                transcriber.transcribe(bytes, &name, mime).await.map_err(|e| e.to_string())?;
            Ok(Some((ChatMessage::User { content: heard.clone() }, heard.clone(), Some(heard))))
        }
        _ => Ok(None),
    }
}

/// An answer as terminal text.
pub fn render(text: &str, cards: &[crate::contract::Card], chips: &[Chip]) -> String {
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
