//! Webhook events. The envelope is parsed generically and each event on its own, so one
//! malformed or unknown event never drops the batch; unknown types keep their `webhookEventId`.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::platform::conversation::{ChatKind, Conversation};

/// The request body: `destination` and the raw events.
#[derive(Debug, Deserialize)]
pub struct Envelope {
    /// The bot's own user id.
    #[serde(default)]
    pub destination: Option<String>,
    /// The events, each kept as its own JSON text (stored as received) and parsed separately
    /// with [`Event::parse_json`].
    #[serde(default)]
    pub events: Vec<Box<RawValue>>,
}

/// One webhook event, as hearth uses it.
#[derive(Debug, Clone)]
pub struct Event {
    /// LINE's unique event id (a ULID); the deduplication key.
    pub webhook_event_id: String,
    /// The event `type`.
    pub event_type: String,
    /// When the event happened, Unix ms (unchanged on redelivery).
    pub timestamp_ms: i64,
    /// `mode: standby`: another channel is in charge; do not answer.
    pub standby: bool,
    /// LINE redelivered this event.
    pub is_redelivery: bool,
    /// The conversation, when LINE gave one.
    pub source: Option<EventSource>,
    /// The reply token, on events that carry one.
    pub reply_token: Option<String>,
    /// The payload.
    pub kind: EventKind,
}

/// Where an event came from.
#[derive(Debug, Clone, PartialEq)]
pub struct EventSource {
    /// The conversation.
    pub conversation: Conversation,
    /// The user who caused the event, if LINE says.
    pub user_id: Option<String>,
}

/// What happened.
#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    /// A message was sent.
    Message(IncomingMessage),
    /// Someone added the bot as a friend (or unblocked it).
    Follow,
    /// Someone blocked the bot.
    Unfollow,
    /// The bot joined a group or room.
    Join,
    /// The bot left or was removed from a group or room.
    Leave,
    /// A postback button was tapped.
    Postback {
        /// The button's data.
        data: String,
        /// What a date-time picker button sent with the tap (`postback.params`), if any.
        picked: Option<Picked>,
    },
    /// Members joined a group or room hearth is in.
    MemberJoined {
        /// Their user ids (`joined.members[].userId`).
        user_ids: Vec<String>,
    },
    /// Members left a group or room hearth is in.
    MemberLeft {
        /// Their user ids (`left.members[].userId`).
        user_ids: Vec<String>,
    },
    /// A message was unsent.
    Unsend {
        /// The id of the unsent message.
        message_id: String,
    },
    /// Any other event type (kept for deduplication, otherwise ignored).
    Other,
}

/// A received message.
#[derive(Debug, Clone, PartialEq)]
pub enum IncomingMessage {
    /// A text message.
    Text(TextMessage),
    /// A sticker.
    Sticker(StickerMessage),
    /// A photo (one of a set when sent together).
    Image(ImageMessage),
    /// A voice message.
    Audio(AudioMessage),
    /// A file.
    File(FileMessage),
    /// A video or location.
    Other {
        /// The message id.
        id: String,
        /// The message type.
        message_type: String,
    },
}

/// A text message.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextMessage {
    /// The message id.
    pub id: String,
    /// The text; mentions appear as `@Name`.
    pub text: String,
    /// Mentions in the text.
    #[serde(default)]
    pub mention: Option<Mention>,
    /// The id of the message this one quotes (replies to), if any.
    #[serde(default)]
    pub quoted_message_id: Option<String>,
    /// The token to quote this message in an answer.
    #[serde(default)]
    pub quote_token: Option<String>,
}

/// A sticker message.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StickerMessage {
    /// The message id.
    pub id: String,
    /// The sticker package.
    pub package_id: String,
    /// The sticker.
    pub sticker_id: String,
    /// Up to 15 words LINE gives for what the sticker means (experimental on LINE's side).
    #[serde(default)]
    pub keywords: Vec<String>,
    /// The text a member typed on a message sticker.
    #[serde(default)]
    pub text: Option<String>,
    /// The id of the message this sticker quotes (replies to), if any.
    #[serde(default)]
    pub quoted_message_id: Option<String>,
    /// The token to quote this sticker in an answer.
    #[serde(default)]
    pub quote_token: Option<String>,
}

/// What a date-time picker sent with its postback (`postback.params`): the local value the
/// member chose, without a time zone (LINE's picker has none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Picked {
    /// `mode: date`: `2026-12-01`.
    Date(String),
    /// `mode: time`: `09:30`.
    Time(String),
    /// `mode: datetime`: `2026-12-01T09:30`.
    DateTime(String),
}

impl Picked {
    /// The picker value among `params` (a rich-menu switch's params are not one).
    fn from_params(params: &serde_json::Map<String, Value>) -> Option<Self> {
        let get = |key: &str| params.get(key).and_then(Value::as_str).map(str::to_string);
        get("datetime")
            .map(Picked::DateTime)
            .or_else(|| get("date").map(Picked::Date))
            .or_else(|| get("time").map(Picked::Time))
    }
}

impl TextMessage {
    /// A text message with only an id and text (a voice message's transcript); built through
    /// the wire shape so optional fields keep their defaults.
    pub fn spoken(id: &str, text: &str) -> Option<TextMessage> {
        serde_json::from_value(serde_json::json!({"id": id, "text": text})).ok()
    }

    /// True if the bot itself is mentioned (`isSelf`).
    pub fn mentions_bot(&self) -> bool {
        self.mention.as_ref().is_some_and(|m| m.mentionees.iter().any(|x| x.is_self))
    }
}

/// Where LINE keeps a message's content.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ContentProvider {
    /// `line` (fetched from LINE's content endpoint) or `external`.
    #[serde(rename = "type", default)]
    pub kind: String,
    /// The content's URL when the provider is external.
    #[serde(default)]
    pub original_content_url: Option<String>,
}

impl ContentProvider {
    /// True when the content is on LINE's servers (the default when LINE does not say).
    pub fn is_line(&self) -> bool {
        self.kind.is_empty() || self.kind == "line"
    }
}

/// Photos sent together.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ImageSet {
    /// The set's id, the same on every photo of it.
    pub id: String,
    /// This photo's place in the set, from 1.
    #[serde(default)]
    pub index: u32,
    /// How many photos the set has.
    #[serde(default)]
    pub total: u32,
}

/// A photo.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageMessage {
    /// The message id (the content's key).
    pub id: String,
    /// Where the content is.
    #[serde(default)]
    pub content_provider: ContentProvider,
    /// The set it belongs to, when several were sent together.
    #[serde(default)]
    pub image_set: Option<ImageSet>,
}

/// A voice message (m4a).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioMessage {
    /// The message id (the content's key).
    pub id: String,
    /// Length in milliseconds.
    #[serde(default)]
    pub duration: Option<u64>,
    /// Where the content is.
    #[serde(default)]
    pub content_provider: ContentProvider,
}

/// A file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileMessage {
    /// The message id (the content's key).
    pub id: String,
    /// The file's name.
    #[serde(default)]
    pub file_name: String,
    /// Its size in bytes.
    #[serde(default)]
    pub file_size: u64,
}

/// The mentions of a text message.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Mention {
    /// Who is mentioned, where.
    #[serde(default)]
    pub mentionees: Vec<Mentionee>,
}

/// One mention.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mentionee {
    /// Start of `@Name` in the text, in UTF-16 units.
    pub index: usize,
    /// Length of `@Name`, in UTF-16 units.
    pub length: usize,
    /// True when the mention is of this bot.
    #[serde(default)]
    pub is_self: bool,
}

/// Why an event could not be used.
#[derive(Debug, thiserror::Error)]
pub enum EventError {
    /// The common properties are missing or malformed.
    #[error("malformed event: {0}")]
    Malformed(#[from] serde_json::Error),
    /// A property the event type needs is missing.
    #[error("malformed {event_type} event: {what}")]
    Missing {
        /// The event type.
        event_type: String,
        /// What is missing.
        what: &'static str,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireEvent {
    #[serde(rename = "type")]
    event_type: String,
    webhook_event_id: String,
    timestamp: i64,
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    reply_token: Option<String>,
    #[serde(default)]
    source: Option<WireSource>,
    #[serde(default)]
    delivery_context: Option<WireDelivery>,
    #[serde(default)]
    message: Option<Box<RawValue>>,
    #[serde(default)]
    postback: Option<WirePostback>,
    #[serde(default)]
    unsend: Option<WireUnsend>,
    #[serde(default)]
    joined: Option<WireJoined>,
    #[serde(default)]
    left: Option<WireJoined>,
}

#[derive(Deserialize)]
struct WireJoined {
    #[serde(default)]
    members: Vec<WireSource>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireSource {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    user_id: Option<String>,
    #[serde(default)]
    group_id: Option<String>,
    #[serde(default)]
    room_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireDelivery {
    #[serde(default)]
    is_redelivery: bool,
}

#[derive(Deserialize)]
struct WirePostback {
    #[serde(default)]
    data: String,
    #[serde(default)]
    params: Option<serde_json::Map<String, Value>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireUnsend {
    message_id: String,
}

impl Event {
    /// Parses one event given as JSON text (as a webhook carries it, and as the inbox stores
    /// it): one pass over the text, no intermediate JSON tree.
    pub fn parse_json(raw: &str) -> Result<Event, EventError> {
        let wire: WireEvent = serde_json::from_str(raw)?;
        let missing = |what| EventError::Missing { event_type: wire.event_type.clone(), what };
        let kind = match wire.event_type.as_str() {
            "message" => {
                let message = wire.message.as_deref().ok_or_else(|| missing("message"))?;
                EventKind::Message(parse_message(message).map_err(|_| missing("message"))?)
            }
            "follow" => EventKind::Follow,
            "unfollow" => EventKind::Unfollow,
            "join" => EventKind::Join,
            "leave" => EventKind::Leave,
            "postback" => {
                let postback = wire.postback.as_ref().ok_or_else(|| missing("postback"))?;
                EventKind::Postback {
                    data: postback.data.clone(),
                    picked: postback.params.as_ref().and_then(Picked::from_params),
                }
            }
            "memberJoined" => EventKind::MemberJoined {
                user_ids: wire
                    .joined
                    .as_ref()
                    .ok_or_else(|| missing("joined"))?
                    .members
                    .iter()
                    .filter_map(|m| m.user_id.clone())
                    .collect(),
            },
            "memberLeft" => EventKind::MemberLeft {
                user_ids: wire
                    .left
                    .as_ref()
                    .ok_or_else(|| missing("left"))?
                    .members
                    .iter()
                    .filter_map(|m| m.user_id.clone())
                    .collect(),
            },
            "unsend" => EventKind::Unsend {
                message_id: wire
                    .unsend
                    .as_ref()
                    .ok_or_else(|| missing("unsend"))?
                    .message_id
                    .clone(),
            },
            _ => EventKind::Other,
        };
        let source = wire.source.and_then(|s| {
            let (kind, id) = match s.kind.as_str() {
                "user" => (ChatKind::User, s.user_id.clone()?),
                "group" => (ChatKind::Group, s.group_id?),
                "room" => (ChatKind::Room, s.room_id?),
                _ => return None,
            };
            Some(EventSource { conversation: Conversation { kind, id }, user_id: s.user_id })
        });
        Ok(Event {
            webhook_event_id: wire.webhook_event_id,
            event_type: wire.event_type,
            timestamp_ms: wire.timestamp,
            standby: wire.mode.as_deref() == Some("standby"),
            is_redelivery: wire.delivery_context.is_some_and(|d| d.is_redelivery),
            source,
            reply_token: wire.reply_token.filter(|t| !t.is_empty()),
            kind,
        })
    }

    /// Parses one event given as a JSON value (tests and callers that built one).
    pub fn parse(raw: Value) -> Result<Event, EventError> {
        Self::parse_json(&raw.to_string())
    }
}

fn parse_message(message: &RawValue) -> Result<IncomingMessage, serde_json::Error> {
    #[derive(Deserialize)]
    struct Head {
        #[serde(rename = "type")]
        message_type: String,
        id: String,
    }
    let text = message.get();
    let head: Head = serde_json::from_str(text)?;
    Ok(match head.message_type.as_str() {
        "text" => IncomingMessage::Text(serde_json::from_str(text)?),
        "image" => IncomingMessage::Image(serde_json::from_str(text)?),
        "audio" => IncomingMessage::Audio(serde_json::from_str(text)?),
        "sticker" => IncomingMessage::Sticker(serde_json::from_str(text)?),
        "file" => IncomingMessage::File(serde_json::from_str(text)?),
        _ => IncomingMessage::Other { id: head.id, message_type: head.message_type },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn group_text() -> Value {
        json!({"type": "message", "mode": "active", "timestamp": 1764470000000i64,
            "webhookEventId": "01KB3Q7E5V8W9X0Y1Z2A3B4C5D", "deliveryContext": {"isRedelivery": false},
            "replyToken": "7f3c1b2e9a4d4c5e8b6a0d1e2f3a4b5c",
            "source": {"type": "group", "groupId": "C0123456789abcdef0123456789abcdef",
                       "userId": "U0123456789abcdef0123456789abcdef"},
            "message": {"id": "590000000000000001", "type": "text", "quoteToken": "q-abc123",
              "text": "@hearth 明天台北會下雨嗎",
              "mention": {"mentionees": [{"index": 0, "length": 7, "type": "user",
                "userId": "U8e742f61d673b39c7fff3cecb7536ef0", "isSelf": true}]}}})
    }

    #[test]
    fn group_text_with_bot_mention_parses() {
        let e = Event::parse(group_text()).expect("valid event");
        assert_eq!(e.source.as_ref().map(|s| s.conversation.kind), Some(ChatKind::Group));
        let EventKind::Message(IncomingMessage::Text(t)) = &e.kind else { panic!("text expected") };
        assert!(t.mentions_bot());
        assert!(!e.standby);
    }

    #[test]
    fn photos_voice_and_files_parse_with_their_details() {
        let mut raw = group_text();
        raw["message"] = json!({"id": "1", "type": "image", "quoteToken": "q",
            "contentProvider": {"type": "line"}, "imageSet": {"id": "S1", "index": 2, "total": 3}});
        let EventKind::Message(IncomingMessage::Image(i)) =
            Event::parse(raw.clone()).expect("image").kind
        else {
            panic!("image expected")
        };
        assert!(i.content_provider.is_line());
        assert_eq!(i.image_set.map(|s| (s.index, s.total)), Some((2, 3)));
        raw["message"] = json!({"id": "2", "type": "audio", "duration": 4200,
            "contentProvider": {"type": "line"}});
        let EventKind::Message(IncomingMessage::Audio(a)) =
            Event::parse(raw.clone()).expect("audio").kind
        else {
            panic!("audio expected")
        };
        assert_eq!(a.duration, Some(4200));
        raw["message"] = json!({"id": "3", "type": "file", "fileName": "a.pdf", "fileSize": 2048});
        let EventKind::Message(IncomingMessage::File(f)) = Event::parse(raw).expect("file").kind
        else {
            panic!("file expected")
        };
        assert_eq!((f.file_name.as_str(), f.file_size), ("a.pdf", 2048));
    }

    #[test]
    fn unknown_event_type_keeps_its_id() {
        let e = Event::parse(json!({"type": "videoPlayComplete", "timestamp": 1,
            "webhookEventId": "01X", "mode": "active"}))
        .expect("unknown types are kept");
        assert_eq!(e.kind, EventKind::Other);
        assert_eq!(e.webhook_event_id, "01X");
    }

    #[test]
    fn event_without_id_or_payload_is_malformed() {
        assert!(Event::parse(json!({"type": "message", "timestamp": 1})).is_err());
        assert!(
            Event::parse(json!({"type": "message", "timestamp": 1, "webhookEventId": "x"}))
                .is_err()
        );
    }

    #[test]
    fn quote_tokens_stickers_joins_and_picked_times_parse() {
        let e = Event::parse(group_text()).expect("valid");
        let EventKind::Message(IncomingMessage::Text(t)) = &e.kind else { panic!("text") };
        assert_eq!(t.quote_token.as_deref(), Some("q-abc123"));

        let mut raw = group_text();
        raw["message"] = json!({"id": "5901", "type": "sticker", "packageId": "11537",
            "stickerId": "52002738", "stickerResourceType": "ANIMATION", "quoteToken": "q-s",
            "keywords": ["hi", "Hello", "wave"]});
        let e = Event::parse(raw).expect("sticker");
        let EventKind::Message(IncomingMessage::Sticker(s)) = &e.kind else { panic!("sticker") };
        assert_eq!((s.package_id.as_str(), s.keywords.len()), ("11537", 3));

        let joined = Event::parse(json!({"type": "memberJoined", "timestamp": 1,
            "webhookEventId": "01J", "mode": "active", "replyToken": "r",
            "source": {"type": "group", "groupId": "C1"},
            "joined": {"members": [{"type": "user", "userId": "U1"}, {"type": "user", "userId": "U2"}]}}))
        .expect("memberJoined");
        assert_eq!(
            joined.kind,
            EventKind::MemberJoined { user_ids: vec!["U1".into(), "U2".into()] }
        );
        let left = Event::parse(json!({"type": "memberLeft", "timestamp": 1,
            "webhookEventId": "01L", "mode": "active",
            "source": {"type": "group", "groupId": "C1"},
            "left": {"members": [{"type": "user", "userId": "U2"}]}}))
        .expect("memberLeft");
        assert_eq!(left.kind, EventKind::MemberLeft { user_ids: vec!["U2".into()] });

        let tap = Event::parse(json!({"type": "postback", "timestamp": 1, "webhookEventId": "01P",
            "mode": "active", "source": {"type": "user", "userId": "U1"},
            "postback": {"data": "a=x&i=1&s=y", "params": {"datetime": "2026-12-01T09:30"}}}))
        .expect("postback");
        let EventKind::Postback { picked, .. } = tap.kind else { panic!("postback") };
        assert_eq!(picked, Some(Picked::DateTime("2026-12-01T09:30".into())));
    }

    #[test]
    fn standby_and_redelivery_are_flagged() {
        let mut raw = group_text();
        raw["mode"] = json!("standby");
        raw["deliveryContext"]["isRedelivery"] = json!(true);
        let e = Event::parse(raw).expect("valid");
        assert!(e.standby && e.is_redelivery);
    }
}
