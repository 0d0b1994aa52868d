//! `summarize_url`: fetches a web page the family shared (through the SSRF-guarded fetcher),
//! extracts its main text and returns title, site and text for the LLM to summarise in the
//! user's language. The card shows the title and site with a button that opens the page.
//! Everything from the page (address, title, site, text) is untrusted content, fenced for the
//! LLM. After untrusted content entered a turn, the URL it reads is an outgoing request the
//! agent may hold (`crate::contract::egress`).

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::egress::Outgoing;
use crate::contract::untrusted;
use crate::contract::{Card, CardButton, Tool, ToolCtx, ToolError};
use crate::platform::text::truncate_graphemes;
use crate::sources::fetch::{FetchError, Fetcher, Refusal};
use crate::sources::sandbox::{Sandbox, SandboxError};

/// Characters of page text given to the LLM at most.
pub const TEXT_BUDGET_CHARS: usize = 6000;

/// Arguments of `summarize_url`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The link as given.
    pub url: String,
}

/// The result of `summarize_url`. Everything that came from the page — its address after
/// redirects, title, site name and text — reaches the LLM only inside the untrusted fence.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The address read (after redirects), for the card.
    #[serde(skip)]
    pub url: String,
    /// The page title, for the card.
    #[serde(skip)]
    pub title: Option<String>,
    /// The site's name, or its host, for the card.
    #[serde(skip)]
    pub site: String,
    /// How to treat the text.
    pub notice: &'static str,
    /// The page's address, title, site and main text, fenced as untrusted content.
    pub text: String,
    /// True when the page was longer than what is given here (summarise what there is).
    pub truncated: bool,
}

/// The summarize_url tool.
pub struct SummarizeUrl {
    fetcher: Fetcher,
    sandbox: Sandbox,
}

impl SummarizeUrl {
    /// The tool over the guarded fetcher, reading pages in the `sandbox`'s child processes.
    pub fn new(fetcher: Fetcher, sandbox: Sandbox) -> Self {
        Self { fetcher, sandbox }
    }
}

impl Tool for SummarizeUrl {
    const NAME: &'static str = "summarize_url";
    const DESCRIPTION: &'static str =
        "Read a web page the user linked, for you to summarise (這篇在講什麼). Untrusted data.";
    type Args = Args;
    type Output = Output;
    const UNTRUSTED_OUTPUT: bool = true;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        // Fetching and reading together stay within the fetch time limit.
        let deadline = tokio::time::Instant::now() + self.fetcher.settings().timeout;
        let page = self.fetcher.fetch(args.url.trim()).await.map_err(tool_error)?;
        let extracted = self
            .sandbox
            .page(&ctx.conversation.id, &page, TEXT_BUDGET_CHARS, deadline)
            .await
            .map_err(extract_error)?;
        if extracted.text.trim().is_empty() {
            return Err(ToolError::NotFound(
                "the page has no readable text (it may need JavaScript or a login)".into(),
            ));
        }
        let host = page.url.host_str().unwrap_or_default().trim_start_matches("www.").to_string();
        let url = page.url.to_string();
        let site = extracted.site.unwrap_or(host);
        let fenced = untrusted::fence(&format!(
            "URL: {url}\nTitle: {}\nSite: {site}\n\n{}",
            extracted.title.as_deref().unwrap_or("-"),
            extracted.text
        ));
        Ok(Output {
            url,
            title: extracted.title,
            site,
            notice: untrusted::NOTICE,
            text: fenced,
            truncated: extracted.truncated || page.truncated,
        })
    }

    fn outgoing(&self, args: &Args) -> Option<Outgoing> {
        Some(Outgoing::Fetch(args.url.trim().to_string()))
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let title = out.title.clone().unwrap_or_else(|| out.site.clone());
        let mut card = Card::new(format!("📄 {}", truncate_graphemes(&title, 80)));
        card.subtitle = Some(out.site.clone());
        card.buttons.push(CardButton::Link {
            label: lang.pick("開啟網頁", "Open the page").into(),
            uri: out.url.clone(),
        });
        Some(card)
    }

    fn timeout(&self) -> Duration {
        self.fetcher.settings().timeout + Duration::from_secs(10)
    }
}

/// A page that could not be read as the LLM reads it: busy is worth a retry, the rest is not.
fn extract_error(e: SandboxError) -> ToolError {
    match e {
        SandboxError::Busy | SandboxError::Failed(_) => {
            ToolError::Upstream { service: "the page reader", reason: e.to_string(), source: None }
        }
        SandboxError::Refused(_) | SandboxError::TimedOut | SandboxError::Died(_) => {
            ToolError::NotFound(
                "the page is too large or complex to read, so it cannot be summarised".into(),
            )
        }
    }
}

/// A fetch failure as the LLM reads it: what happened, politely, without internals.
fn tool_error(e: FetchError) -> ToolError {
    match e {
        FetchError::Refused(Refusal::Invalid) => {
            ToolError::InvalidArgs("that is not a valid web address".into())
        }
        FetchError::Refused(refusal) => {
            ToolError::InvalidArgs(format!("for safety this link was not opened: {refusal}"))
        }
        FetchError::Unsupported(kind) => ToolError::InvalidArgs(format!(
            "this link is {kind}, not a web page; only web pages (HTML or plain text) can be summarised, not PDFs, images or other files"
        )),
        FetchError::Status(404 | 410) => {
            ToolError::NotFound("the page does not exist (404)".into())
        }
        FetchError::Status(code) => ToolError::Upstream {
            service: "the website",
            reason: format!("HTTP {code}"),
            source: None,
        },
        FetchError::Timeout => {
            ToolError::Upstream { service: "the website", reason: "timeout".into(), source: None }
        }
        FetchError::Unreachable(source) => ToolError::Upstream {
            service: "the website",
            reason: "it could not be reached".into(),
            source: Some(source),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_read_too_slowly_is_an_error_the_llm_can_explain() {
        let timeout = extract_error(SandboxError::TimedOut);
        assert_eq!(timeout.kind().as_str(), "not_found");
        assert!(timeout.to_string().contains("too large or complex"), "{timeout}");
        let died = extract_error(SandboxError::Died("signal 6".into()));
        assert!(died.to_string().contains("too large or complex"), "{died}");
        assert!(!died.to_string().contains("signal"), "no internals for the LLM: {died}");
        assert_eq!(extract_error(SandboxError::Busy).kind().as_str(), "upstream_unavailable");
    }
}
