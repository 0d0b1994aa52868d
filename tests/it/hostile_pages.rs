//! Hostile pages cannot crash hearth or hold a worker past the fetch time limit: pages nested
//! 5,000 and 100,000 levels deep (inline and block), a 2 MB page on one line, 200,000 empty
//! elements and a page that makes the HTML parser rebuild tags, read by the sandbox's children
//! directly and by `summarize_url` end to end. The LLM gets a summary or an error as data, in
//! time, and hearth keeps answering.

use std::time::Duration;

use crate::common::FakeWeb;
use crate::common::fake_web::hostile::{self, DEEP_TEXT, KINDS};
use crate::common::harness::{Harness, MOM, texts_of};
use hearth::sources::extract::extract_blocking;
use hearth::sources::extract::shape::MAX_DEPTH;
use hearth::sources::fetch::{Page, PageKind};
use hearth::sources::sandbox::SandboxError;
use serde_json::json;
use tokio::time::Instant;

/// The fetch time limit these tests run with.
const LIMIT: Duration = Duration::from_secs(5);
/// What a turn may take beyond it (the fakes, the harness).
const SLACK: Duration = Duration::from_secs(3);

fn page(kind: &str) -> Page {
    Page {
        url: format!("https://example.com/hostile/{kind}").parse().expect("url"),
        kind: PageKind::Html,
        body: hostile::page(kind).expect("a hostile page"),
        truncated: false,
    }
}

#[test]
fn deep_pages_take_the_flat_path_even_on_a_small_stack() {
    for kind in ["nested-inline-5000", "nested-block-5000", "nested-inline-100000"] {
        let body = hostile::page(kind).expect("page");
        let out = std::thread::Builder::new()
            .stack_size(1024 * 1024)
            .spawn(move || {
                extract_blocking(PageKind::Html, &body, "https://example.com/", 6000, true)
            })
            .expect("thread")
            .join()
            .expect("no panic");
        assert!(out.text.contains(DEEP_TEXT), "{kind}: {out:?}");
    }
}

#[tokio::test]
async fn the_sandbox_reads_every_hostile_page_or_gives_up_in_time() {
    let sandbox = crate::common::sandbox();
    for kind in KINDS {
        let started = Instant::now();
        let result = sandbox.page("Cfamily", &page(kind), 6000, started + LIMIT).await;
        assert!(started.elapsed() <= LIMIT + Duration::from_millis(500), "{kind}");
        match result {
            Ok(out) => {
                assert!(out.text.chars().count() <= 6001, "{kind}");
                if !kind.starts_with("single-line") {
                    assert!(out.text.contains(DEEP_TEXT), "{kind}: {out:?}");
                }
            }
            Err(e) => assert_eq!(e, SandboxError::TimedOut, "{kind}"),
        }
    }
}

#[tokio::test]
async fn pages_just_within_the_depth_limit_are_read_by_the_readable_extractor() {
    let sandbox = crate::common::sandbox();
    for (open, close) in [("<b>", "</b>"), ("<div>", "</div>"), ("<span><div>", "</div></span>")] {
        let levels = (MAX_DEPTH - 8) / open.matches('<').count();
        let html = format!(
            "<html><body><article>{}<p>{DEEP_TEXT}</p>{}</article></body></html>",
            open.repeat(levels),
            close.repeat(levels)
        );
        let page = Page { body: html, ..page("nested-inline-5000") };
        let out = sandbox.page("Cfamily", &page, 6000, Instant::now() + LIMIT).await.expect(open);
        assert!(out.text.contains(DEEP_TEXT), "{open}: {out:?}");
    }
}

#[tokio::test]
async fn an_extraction_past_its_deadline_is_an_error_not_a_wait() {
    let sandbox = crate::common::sandbox();
    let started = Instant::now();
    let deadline = started + Duration::from_millis(1);
    let result = sandbox.page("Cfamily", &page("single-line-2mb"), 6000, deadline).await;
    assert!(matches!(result, Err(SandboxError::TimedOut | SandboxError::Busy)), "{result:?}");
    assert!(started.elapsed() < Duration::from_millis(500));
}

#[tokio::test]
async fn summarize_url_survives_hostile_pages_and_the_llm_gets_data_in_time() {
    let web = FakeWeb::start().await;
    let h = Harness::start_with(
        |c| {
            c.web.allow_private_fetch = true;
            c.web.fetch_timeout_secs = LIMIT.as_secs();
        },
        None,
    )
    .await;
    h.line.set_profile(MOM, "媽媽");
    for (n, kind) in KINDS.iter().enumerate() {
        let url = format!("{}/hostile/{kind}", web.url());
        h.llm.reply_tool_calls(&[("summarize_url", json!({"url": url}))]);
        h.llm.reply_text("好的");
        let started = Instant::now();
        h.send(vec![h.dm(MOM, &format!("{url} 這篇在講什麼"))]).await;
        assert!(started.elapsed() <= LIMIT + SLACK, "{kind}: {:?}", started.elapsed());
        let result = &crate::common::harness::tool_results(&h.llm.requests()[2 * n + 1])[0];
        match result["text"].as_str() {
            Some(text) if !kind.starts_with("single-line") => {
                assert!(text.contains(DEEP_TEXT), "{kind}: {text}")
            }
            Some(_) => {}
            None => {
                let message = result["error"]["message"].as_str().unwrap_or_default();
                assert!(message.contains("too large or complex"), "{kind}: {result}");
            }
        }
        assert_eq!(web.hits(&format!("/hostile/{kind}")), 1);
    }
    h.llm.reply_text("還在");
    h.send(vec![h.dm(MOM, "你還在嗎")]).await;
    let replies = h.line.replies();
    assert_eq!(replies.len(), KINDS.len() + 1, "every turn answered");
    assert!(texts_of(&replies[KINDS.len()].body).contains("還在"));
}
