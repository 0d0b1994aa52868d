//! The Atom feed of CAP entries, read as a stream whatever its size: each `<entry>` is read on
//! its own and either kept or dropped at once, so a busy week (NCDR's feed covers seven days:
//! 944 entries on an ordinary July day, thousands in a typhoon week) costs its bytes and the
//! entries hearth wants, never a tree of the whole feed. Only [`MAX_ENTRIES`] of those the caller
//! wants are kept: those it wants first (a suspension), then the newest, so thousands of newer
//! entries of a kind that can wait (or of none, taken as newest) never push out one that cannot. The feed is bounded by its bytes (and the time it takes to
//! arrive), never by how many entries it lists.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use jiff::Timestamp;

use super::xml::{self, Element, Limits};
use super::{CapError, timestamp};

/// The most entries kept of one read of the feed (the newest of those wanted).
pub const MAX_ENTRIES: usize = 1_000;
/// The largest feed read, in bytes (about 20,000 entries of NCDR's).
pub const MAX_FEED_BYTES: usize = 16 << 20;
/// The most elements of one entry (NCDR's have about ten).
const MAX_ENTRY_ELEMENTS: usize = 200;

/// One entry of the feed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct FeedEntry {
    /// The CAP identifier.
    pub id: String,
    /// The CAP document's address.
    pub link: String,
    /// The kind of alert (停班停課, 颱風, 降雨, 地震), when the feed says.
    pub title: Option<String>,
    /// When the entry was last updated.
    pub updated: Option<Timestamp>,
}

/// How much the caller wants an entry of the feed, decided from the entry alone (its kind and
/// time), before any document is fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Wanted {
    /// Not at all: dropped as it is read.
    No,
    /// Kept if room is left among the newest.
    Yes,
    /// Kept before any other, however many newer ones the feed lists.
    First,
}

fn entry_of(e: &Element) -> Option<FeedEntry> {
    let link = e
        .all("link")
        .find(|l| l.attribute("rel").is_none_or(|r| r == "alternate"))
        .and_then(|l| l.attribute("href"))?;
    Some(FeedEntry {
        id: e.text_of("id")?.to_string(),
        link: link.to_string(),
        title: e
            .text_of("title")
            .or_else(|| e.child("category").and_then(|c| c.attribute("term")))
            .map(str::to_string),
        updated: timestamp(e.text_of("updated")),
    })
}

/// Reads an Atom feed of CAP entries: [`MAX_ENTRIES`] of those `wanted`, those wanted
/// [`Wanted::First`] first, then the newest (an entry without a time counts as newest; between
/// equal times, the feed's order).
pub fn parse_feed(
    bytes: &[u8],
    wanted: &(dyn Fn(&FeedEntry) -> Wanted + Sync),
) -> Result<Vec<FeedEntry>, CapError> {
    let limits =
        Limits { max_bytes: MAX_FEED_BYTES, max_elements: MAX_ENTRY_ELEMENTS, ..Limits::default() };
    // A min-heap on (how wanted, time, place in the feed reversed): its top is the least wanted
    // of the oldest kept.
    let mut newest = BinaryHeap::new();
    let mut said = String::new();
    let mut seq = 0usize;
    let root = xml::stream_children(bytes, limits, &mut |root, child| {
        if root != "feed" {
            // A message instead of a feed (NCDR's 「請先登入會員。」): kept to say what it was.
            if said.chars().count() < 80 {
                said.push_str(&child.text);
            }
            return;
        }
        let Some(entry) = (child.name == "entry").then(|| entry_of(&child)).flatten() else {
            return;
        };
        let how = wanted(&entry);
        if how == Wanted::No {
            return;
        }
        seq += 1;
        let when = entry.updated.unwrap_or(Timestamp::MAX);
        newest.push(Reverse((how, when, Reverse(seq), entry)));
        if newest.len() > MAX_ENTRIES {
            newest.pop();
        }
    })?;
    if root.name != "feed" {
        return Err(CapError::Refused(root.text.chars().chain(said.chars()).take(80).collect()));
    }
    let mut entries: Vec<_> = newest.into_iter().map(|Reverse(kept)| kept).collect();
    entries.sort_by(|a, b| b.cmp(a));
    Ok(entries.into_iter().map(|(_, _, _, entry)| entry).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn everything(_: &FeedEntry) -> Wanted {
        Wanted::Yes
    }

    fn feed(entries: usize) -> String {
        let mut xml = String::from(
            r#"<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:cap="urn:oasis:names:tc:emergency:cap:1.1"><id>https://alerts.ncdr.nat.gov.tw/RSS.aspx</id>"#,
        );
        // Newest first, as NCDR lists them: one a minute.
        for n in (0..entries).rev() {
            let at = Timestamp::from_second(1_796_000_000 + 60 * n as i64).expect("time");
            let title = if n % 2 == 0 { "停班停課" } else { "雷雨" };
            xml.push_str(&format!(
                r#"<entry><id>e-{n}</id><title>{title}</title><updated>{at}</updated><author><name>NCDR</name></author><link rel="alternate" href="https://alerts.ncdr.nat.gov.tw/Capstorage/e-{n}.cap"/><summary type="html">{title}</summary><category term="{title}"/><cap:status>Actual</cap:status></entry>"#
            ));
        }
        xml.push_str("</feed>");
        xml
    }

    #[test]
    fn a_feed_lists_its_entries_and_a_login_page_is_a_refusal() {
        let feed = r#"<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:cap="urn:oasis:names:tc:emergency:cap:1.1"><id>https://alerts.ncdr.nat.gov.tw/RSS.aspx</id>
<entry><id>dgpa-2</id><title>停班停課</title><updated>2026-12-03T20:00:00+08:00</updated><link rel="alternate" href="https://alerts.ncdr.nat.gov.tw/Capstorage/DGPA/2026/dgpa-2.cap"/><cap:msgType>Update</cap:msgType></entry>
<entry><id>no-link</id></entry></feed>"#;
        let entries = parse_feed(feed.as_bytes(), &everything).expect("feed");
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].id, "dgpa-2");
        assert_eq!(entries[0].title.as_deref(), Some("停班停課"));
        let login = "<WarningMessage><Warning>請先登入會員。</Warning></WarningMessage>";
        assert!(
            matches!(parse_feed(login.as_bytes(), &everything), Err(CapError::Refused(s)) if s.contains("請先登入會員"))
        );
    }

    #[test]
    fn a_feed_of_any_length_is_read_keeping_the_newest_wanted_entries_newest_first() {
        let xml = feed(20_000);
        assert!(xml.len() > 4 << 20, "larger than any one document");
        let all = parse_feed(xml.as_bytes(), &everything).expect("read");
        assert_eq!(all.len(), MAX_ENTRIES);
        assert_eq!((all[0].id.as_str(), all[999].id.as_str()), ("e-19999", "e-19000"));
        let only = |e: &FeedEntry| match e.title.as_deref() {
            Some("停班停課") => Wanted::Yes,
            _ => Wanted::No,
        };
        let suspensions = parse_feed(xml.as_bytes(), &only).expect("read");
        assert_eq!(suspensions.len(), MAX_ENTRIES);
        assert_eq!(
            (suspensions[0].id.as_str(), suspensions[999].id.as_str()),
            ("e-19998", "e-18000")
        );
        // Wanted first, the oldest suspension is kept before 19,999 newer entries.
        let first = |e: &FeedEntry| match e.id.as_str() {
            "e-0" => Wanted::First,
            _ => Wanted::Yes,
        };
        let kept = parse_feed(xml.as_bytes(), &first).expect("read");
        assert_eq!(
            (kept.len(), kept[0].id.as_str(), kept[1].id.as_str()),
            (1_000, "e-0", "e-19999")
        );
        let few = parse_feed(feed(3).as_bytes(), &everything).expect("read");
        let ids: Vec<&str> = few.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["e-2", "e-1", "e-0"]);
    }

    #[test]
    fn a_feed_is_bounded_by_its_bytes_and_each_entry_by_its_elements() {
        let fat = format!(
            "<feed><entry><id>x</id>{}<link href=\"/x\"/></entry></feed>",
            "<category/>".repeat(300)
        );
        assert!(matches!(parse_feed(fat.as_bytes(), &everything), Err(CapError::Xml(_))));
        let huge = format!("<feed>{}</feed>", " ".repeat(MAX_FEED_BYTES));
        assert!(matches!(parse_feed(huge.as_bytes(), &everything), Err(CapError::Xml(_))));
    }
}
