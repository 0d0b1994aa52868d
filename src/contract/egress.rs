//! Outgoing requests in a tainted turn: once untrusted content entered a turn, a page could have
//! the model put private data (memories, chat history) into a URL it fetches or a query it
//! searches. [`allowed`] decides, as a pure function of the request, what the family wrote and
//! the links a search returned this turn, whether such a request may run without a tap:
//!
//! - a page fetch runs if its URL is one the family wrote (this turn's message or an earlier
//!   message of theirs in the history the model was given) or one a search returned this turn;
//! - a search runs if its whole query is a piece of what the family wrote (compared without
//!   case and whitespace), so the model cannot compose new text into it.
//!
//! Anything else is held for the family's confirmation like a state change (`crate::features::held_calls`).

use url::Url;

/// A request to the outside world whose target or content the model chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outgoing {
    /// Fetch this URL.
    Fetch(String),
    /// Send this query to the search provider.
    Search(String),
}

impl Outgoing {
    /// What would be sent: the URL or the query.
    pub fn target(&self) -> &str {
        match self {
            Outgoing::Fetch(url) | Outgoing::Search(url) => url,
        }
    }
}

/// True if `request` may run in a tainted turn without the family's confirmation. `family` is
/// what the family wrote (the turn's message and their earlier messages given to the model);
/// `search_links` are the result URLs searches returned in this turn.
pub fn allowed(request: &Outgoing, family: &str, search_links: &[String]) -> bool {
    match request {
        Outgoing::Fetch(url) => {
            let Some(wanted) = normalize(url) else { return false };
            urls_in(family)
                .chain(search_links.iter().map(String::as_str))
                .any(|candidate| normalize(candidate).is_some_and(|c| c == wanted))
        }
        Outgoing::Search(query) => {
            let query = squeeze(query);
            !query.is_empty() && squeeze(family).contains(&query)
        }
    }
}

/// A URL in a comparable form: parsed (host lower-cased, default port dropped, non-ASCII
/// percent-encoded) and without its fragment, which is never sent. `None` unless http(s).
fn normalize(url: &str) -> Option<String> {
    let mut parsed = Url::parse(url.trim()).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    parsed.set_fragment(None);
    Some(parsed.into())
}

/// The http(s) links in free text: from the scheme to the first space, quote, bracket or
/// full-width punctuation, without trailing sentence punctuation.
fn urls_in(text: &str) -> impl Iterator<Item = &str> {
    let lower = text.to_ascii_lowercase();
    let starts: Vec<usize> = lower
        .match_indices("http")
        .map(|(i, _)| i)
        .filter(|&i| lower[i..].starts_with("http://") || lower[i..].starts_with("https://"))
        .collect();
    starts.into_iter().map(move |start| {
        let rest = &text[start..];
        let end = rest.find(ends_url).unwrap_or(rest.len());
        rest[..end].trim_end_matches(['.', ',', ';', ':', '!', '?'])
    })
}

fn ends_url(c: char) -> bool {
    c.is_whitespace() || "<>\"'`()[]{}，。、！？；：「」『』（）【】《》〈〉".contains(c)
}

/// Lower case without whitespace, for comparing search queries with what the family wrote.
fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).flat_map(char::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetch(url: &str) -> Outgoing {
        Outgoing::Fetch(url.into())
    }

    fn search(query: &str) -> Outgoing {
        Outgoing::Search(query.into())
    }

    const FAMILY: &str =
        "小幫手 幫我看 https://news.example.com/a?id=7，謝謝\n[媽媽] 奶奶對花生過敏";

    #[test]
    fn a_url_the_family_wrote_may_be_fetched() {
        assert!(allowed(&fetch("https://news.example.com/a?id=7"), FAMILY, &[]));
        assert!(allowed(&fetch(" https://NEWS.example.com:443/a?id=7#top "), FAMILY, &[]));
    }

    #[test]
    fn a_url_with_data_added_is_not_the_family_s_url() {
        for url in [
            "https://news.example.com/a?id=7&d=grandma-peanut-allergy",
            "https://news.example.com/a?id=8",
            "https://news.example.com/a",
            "https://evil.example.net/exfil?d=grandma-peanut-allergy",
        ] {
            assert!(!allowed(&fetch(url), FAMILY, &[]), "{url}");
        }
    }

    #[test]
    fn a_url_a_search_returned_this_turn_may_be_fetched() {
        let links = vec!["https://news1.example.com/story/1".to_string()];
        assert!(allowed(&fetch("https://news1.example.com/story/1"), "颱風", &links));
        assert!(!allowed(&fetch("https://news1.example.com/story/1?x=1"), "颱風", &links));
    }

    #[test]
    fn non_ascii_links_match_their_percent_encoded_form() {
        let family = "看看 https://zh.wikipedia.org/wiki/颱風。";
        assert!(allowed(&fetch("https://zh.wikipedia.org/wiki/%E9%A2%B1%E9%A2%A8"), family, &[]));
        assert!(allowed(&fetch("https://zh.wikipedia.org/wiki/颱風"), family, &[]));
    }

    #[test]
    fn only_web_addresses_are_ever_free() {
        let family = "file:///etc/passwd ftp://example.com/x";
        assert!(!allowed(&fetch("file:///etc/passwd"), family, &[]));
        assert!(!allowed(&fetch("not a url"), "not a url", &[]));
    }

    #[test]
    fn a_search_for_what_the_family_wrote_may_run() {
        assert!(allowed(&search("奶奶對花生過敏"), FAMILY, &[]));
        assert!(allowed(&search("奶奶 對花生 過敏"), FAMILY, &[]));
        assert!(allowed(&search("Taipei Marathon"), "when is the taipei marathon?", &[]));
    }

    #[test]
    fn a_search_the_model_composed_is_held() {
        assert!(!allowed(&search("grandma peanut allergy"), FAMILY, &[]));
        assert!(!allowed(&search("奶奶對花生過敏 site:evil.example.net"), FAMILY, &[]));
        assert!(!allowed(&search("   "), FAMILY, &[]));
    }
}
