//! Operations hardening: LINE's rate limits (429 with `Retry-After`), per-chat caps under
//! parallel tool calls, slow clients and shutdown, and who may read `/metrics`.

mod common;

use std::time::Duration;

use common::harness::{Harness, MOM, texts_of};
use common::{PushMode, ReplyMode};

#[tokio::test]
async fn a_rate_limited_reply_is_retried_once_and_the_family_gets_the_answer_by_reply() {
    let h = Harness::start().await;
    h.llm.reply_text("明天會下雨");
    h.line.set_reply_mode(ReplyMode::RateLimitedTimes { times: 1, retry_after: None });
    assert_eq!(h.send(vec![h.dm(MOM, "明天天氣？")]).await, 200);
    let replies = h.line.replies();
    assert_eq!(replies.len(), 2, "one 429, then one retry");
    assert_eq!(replies[0].status, 429);
    assert_eq!(replies[1].status, 200);
    assert_eq!(texts_of(&replies[1].body), "明天會下雨");
    assert!(h.line.pushes().is_empty(), "the fresh token was enough");
}

#[tokio::test]
async fn a_rate_limited_push_waits_as_long_as_retry_after_asks() {
    let h = Harness::start().await;
    h.llm.reply_text("明天會下雨");
    h.line.set_expire_all_reply_tokens(true);
    h.line.set_push_mode(PushMode::RateLimitedTimes { times: 1, retry_after: 2 });
    assert_eq!(h.send(vec![h.dm(MOM, "明天天氣？")]).await, 200);
    let pushes = h.line.pushes();
    assert_eq!(pushes.len(), 2, "one 429, then one retry");
    assert_eq!((pushes[0].status, pushes[1].status), (429, 200));
    let waited = pushes[1].received_at.duration_since(pushes[0].received_at);
    assert!(waited >= Duration::from_secs(2), "retried after {waited:?}, before Retry-After: 2");
    assert_eq!(pushes[0].header("x-line-retry-key"), pushes[1].header("x-line-retry-key"));
}
