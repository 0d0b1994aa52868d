//! Which photos — or, in a group, which shared file — a question is about: a pure decision over
//! the chat's recent photo references and files, the asker, the message they quote and the time.
//! A quote-reply of a photo picks it (and the rest of its set) whoever sent it, and a quote of a
//! file picks the file; otherwise the asker's own latest photo — or the latest set of photos
//! they sent together — or their latest file counts if it came within [`ASKER_WINDOW_MS`]
//! (whichever of the two they sent last, [`shared_for`]). Someone else's photo or file is never
//! picked without a quote, so in a group only the person who sent it, or someone who quotes it,
//! brings it to the model.

/// How soon after their photo a person's question is taken to be about it.
pub const ASKER_WINDOW_MS: i64 = 5 * 60 * 1000;
/// How long a photo can still be quoted (references are kept this long, then deleted).
pub const QUOTE_WINDOW_MS: i64 = 60 * 60 * 1000;
/// The most photos sent to the model for one question.
pub const MAX_PHOTOS: usize = 5;

pub use crate::store::{FileRef, PhotoRef};

/// What the chat log records for a file named `file_name` (text for history and recaps only:
/// a person may type the same, so a file is never found by it).
pub fn file_log(file_name: &str) -> String {
    format!("[file: {file_name}]")
}

/// What a question is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shared {
    /// Nothing recent.
    Nothing,
    /// These photos (message ids, in the order they were sent).
    Photos(Vec<String>),
    /// This file.
    File(FileRef),
}

/// A photo or a file sent to a chat.
trait Sent {
    fn message_id(&self) -> &str;
    fn sender(&self) -> Option<&str>;
    /// When it was sent, then its place among those sent at once.
    fn order(&self) -> (i64, u32);
}

impl Sent for PhotoRef {
    fn message_id(&self) -> &str {
        &self.message_id
    }
    fn sender(&self) -> Option<&str> {
        self.user_id.as_deref()
    }
    fn order(&self) -> (i64, u32) {
        (self.at_ms, self.set_index)
    }
}

impl Sent for FileRef {
    fn message_id(&self) -> &str {
        &self.message_id
    }
    fn sender(&self) -> Option<&str> {
        self.user_id.as_deref()
    }
    fn order(&self) -> (i64, u32) {
        (self.at_ms, 0)
    }
}

/// The item `quoted` names, when it can still be quoted.
fn quoted_in<'a, T: Sent>(recent: &'a [T], quoted: Option<&str>, now_ms: i64) -> Option<&'a T> {
    let quoted = quoted?;
    recent.iter().find(|p| p.message_id() == quoted && now_ms - p.order().0 <= QUOTE_WINDOW_MS)
}

/// The asker's latest item of the last [`ASKER_WINDOW_MS`].
fn latest_of<'a, T: Sent>(recent: &'a [T], asker: Option<&str>, now_ms: i64) -> Option<&'a T> {
    let asker = asker?;
    recent
        .iter()
        .filter(|p| p.sender() == Some(asker))
        .filter(|p| (0..=ASKER_WINDOW_MS).contains(&(now_ms - p.order().0)))
        .max_by_key(|p| p.order())
}

/// The message ids of the photos a question refers to, in the order they were sent (at most
/// [`MAX_PHOTOS`]); empty when it refers to none.
pub fn photos_for(
    recent: &[PhotoRef],
    asker: Option<&str>,
    quoted: Option<&str>,
    now_ms: i64,
) -> Vec<String> {
    match quoted_in(recent, quoted, now_ms).or_else(|| latest_of(recent, asker, now_ms)) {
        Some(anchor) => set_of(recent, anchor),
        None => Vec::new(),
    }
}

/// The photos or the file a question refers to: a quoted photo or file; else whichever the
/// asker sent last within [`ASKER_WINDOW_MS`] — their latest photo (with its set) or their
/// latest file. `files` are those hearth reads (the caller leaves out the others).
pub fn shared_for(
    photos: &[PhotoRef],
    files: &[FileRef],
    asker: Option<&str>,
    quoted: Option<&str>,
    now_ms: i64,
) -> Shared {
    if let Some(photo) = quoted_in(photos, quoted, now_ms) {
        return Shared::Photos(set_of(photos, photo));
    }
    if let Some(file) = quoted_in(files, quoted, now_ms) {
        return Shared::File(file.clone());
    }
    match (latest_of(photos, asker, now_ms), latest_of(files, asker, now_ms)) {
        (photo, Some(file)) if photo.is_none_or(|p| file.at_ms > p.at_ms) => {
            Shared::File(file.clone())
        }
        (Some(photo), _) => Shared::Photos(set_of(photos, photo)),
        _ => Shared::Nothing,
    }
}

/// The photos of `anchor`'s set (the photo alone when not in a set), by place in the set.
fn set_of(recent: &[PhotoRef], anchor: &PhotoRef) -> Vec<String> {
    let Some(set) = &anchor.set_id else {
        return vec![anchor.message_id.clone()];
    };
    let mut members: Vec<&PhotoRef> =
        recent.iter().filter(|p| p.set_id.as_ref() == Some(set)).collect();
    members.sort_by_key(|p| (p.set_index, p.at_ms));
    members.into_iter().take(MAX_PHOTOS).map(|p| p.message_id.clone()).collect()
}

/// True when every photo of `photo`'s set has arrived (a photo alone is a complete set): a
/// set is answered once, when its last photo comes in.
pub fn set_complete(recent: &[PhotoRef], photo: &PhotoRef) -> bool {
    match &photo.set_id {
        None => true,
        Some(set) => {
            let arrived = recent.iter().filter(|p| p.set_id.as_ref() == Some(set)).count();
            arrived >= photo.set_total as usize
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: i64 = 60 * 1000;

    fn photo(id: &str, user: &str, at_ms: i64) -> PhotoRef {
        PhotoRef {
            message_id: id.into(),
            user_id: Some(user.into()),
            set_id: None,
            set_index: 0,
            set_total: 0,
            at_ms,
        }
    }

    fn in_set(id: &str, user: &str, set: &str, index: u32, total: u32, at_ms: i64) -> PhotoRef {
        PhotoRef {
            set_id: Some(set.into()),
            set_index: index,
            set_total: total,
            ..photo(id, user, at_ms)
        }
    }

    #[test]
    fn the_askers_photo_of_a_few_minutes_ago_is_picked() {
        let recent = [photo("p1", "mom", 0)];
        assert_eq!(photos_for(&recent, Some("mom"), None, 3 * MIN), vec!["p1"]);
    }

    #[test]
    fn a_photo_older_than_the_window_is_not_picked_without_a_quote() {
        let recent = [photo("p1", "mom", 0)];
        assert!(photos_for(&recent, Some("mom"), None, 6 * MIN).is_empty());
        assert_eq!(photos_for(&recent, Some("mom"), Some("p1"), 50 * MIN), vec!["p1"]);
        assert!(photos_for(&recent, Some("mom"), Some("p1"), 61 * MIN).is_empty());
    }

    #[test]
    fn someone_elses_photo_is_picked_only_when_quoted() {
        let recent = [photo("p1", "dad", 0)];
        assert!(photos_for(&recent, Some("mom"), None, MIN).is_empty());
        assert_eq!(photos_for(&recent, Some("mom"), Some("p1"), MIN), vec!["p1"]);
    }

    #[test]
    fn the_latest_photo_of_the_asker_wins_and_a_set_comes_whole_in_order() {
        let recent = [
            photo("old", "mom", 0),
            in_set("s2", "mom", "S", 2, 3, MIN),
            in_set("s1", "mom", "S", 1, 3, MIN),
            in_set("s3", "mom", "S", 3, 3, MIN),
        ];
        assert_eq!(photos_for(&recent, Some("mom"), None, 2 * MIN), vec!["s1", "s2", "s3"]);
    }

    #[test]
    fn a_quote_of_a_text_message_picks_nothing_of_someone_else() {
        let recent = [photo("p1", "dad", 0)];
        assert!(photos_for(&recent, Some("mom"), Some("text-id"), MIN).is_empty());
    }

    #[test]
    fn no_asker_and_no_quote_picks_nothing() {
        let recent = [photo("p1", "dad", 0)];
        assert!(photos_for(&recent, None, None, MIN).is_empty());
    }

    #[test]
    fn a_set_is_complete_when_all_its_photos_arrived() {
        let a = in_set("a", "mom", "S", 1, 2, 0);
        let b = in_set("b", "mom", "S", 2, 2, 0);
        assert!(!set_complete(std::slice::from_ref(&a), &a));
        assert!(set_complete(&[a.clone(), b], &a));
        assert!(set_complete(&[], &photo("x", "mom", 0)));
    }

    fn file(id: &str, user: &str, name: &str, at_ms: i64) -> FileRef {
        FileRef { message_id: id.into(), user_id: Some(user.into()), file_name: name.into(), at_ms }
    }

    #[test]
    fn the_askers_file_of_a_few_minutes_ago_is_picked_and_an_old_one_is_not() {
        let files = [file("f1", "mom", "通知.pdf", 0)];
        assert_eq!(
            shared_for(&[], &files, Some("mom"), None, 3 * MIN),
            Shared::File(files[0].clone())
        );
        assert_eq!(shared_for(&[], &files, Some("mom"), None, 6 * MIN), Shared::Nothing);
    }

    #[test]
    fn someone_elses_file_is_picked_only_when_quoted() {
        let files = [file("f1", "dad", "通知.pdf", 0)];
        assert_eq!(shared_for(&[], &files, Some("mom"), None, MIN), Shared::Nothing);
        assert_eq!(
            shared_for(&[], &files, Some("mom"), Some("f1"), 30 * MIN),
            Shared::File(files[0].clone())
        );
    }

    #[test]
    fn whichever_the_asker_sent_last_wins_and_a_quote_decides_outright() {
        let photos = [photo("p1", "mom", MIN)];
        let files = [file("f1", "mom", "notice.txt", 2 * MIN)];
        let now = 3 * MIN;
        assert_eq!(
            shared_for(&photos, &files, Some("mom"), None, now),
            Shared::File(files[0].clone())
        );
        let older = [file("f0", "mom", "notice.txt", 0)];
        assert_eq!(
            shared_for(&photos, &older, Some("mom"), None, now),
            Shared::Photos(vec!["p1".into()])
        );
        assert_eq!(
            shared_for(&photos, &files, Some("mom"), Some("p1"), now),
            Shared::Photos(vec!["p1".into()])
        );
    }

    #[test]
    fn a_huge_set_is_capped() {
        let recent: Vec<PhotoRef> =
            (1..=20).map(|i| in_set(&format!("p{i}"), "mom", "S", i, 20, 0)).collect();
        assert_eq!(photos_for(&recent, Some("mom"), None, MIN).len(), MAX_PHOTOS);
    }
}
