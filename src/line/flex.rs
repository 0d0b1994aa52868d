//! Renders hearth's [`Card`] as a LINE Flex bubble. The only place that writes Flex JSON; the
//! limits LINE does not check in its schema (label lengths, bubble size) are enforced here.

use serde_json::{Value, json};

use crate::contract::{Card, CardButton, Tone};
use crate::line::postback::{ButtonSigner, MAX_DATA_LEN, is_token};
use crate::platform::config::PriceColors;
use crate::platform::text::truncate_graphemes;

/// The largest bubble sent, in bytes of minified JSON (LINE's limit is 30 KB).
pub const MAX_BUBBLE_BYTES: usize = 28_000;
/// The largest carousel sent, in bytes (LINE's limit is 50 KB).
pub const MAX_CAROUSEL_BYTES: usize = 48_000;
/// The most bubbles in a carousel.
pub const MAX_BUBBLES: usize = 12;

const MUTED: &str = "#888888";
const RED: &str = "#D32F2F";
const GREEN: &str = "#2E7D32";
const AMBER: &str = "#E65100";

/// Colours for tones.
#[derive(Debug, Clone, Copy)]
pub struct Palette {
    up: &'static str,
    down: &'static str,
}

impl Palette {
    /// The palette for a price-colour convention.
    pub fn new(colors: PriceColors) -> Self {
        match colors {
            PriceColors::Tw => Palette { up: RED, down: GREEN },
            PriceColors::Us => Palette { up: GREEN, down: RED },
        }
    }

    fn color(&self, tone: Option<Tone>) -> Option<&'static str> {
        tone.map(|t| match t {
            Tone::Up => self.up,
            Tone::Down => self.down,
            Tone::Warning => AMBER,
            Tone::Muted => MUTED,
        })
    }
}

/// `fields` with `contents` moved in. (`json!` would copy a value placed in it, and a bubble's
/// boxes nest: every level would copy everything below it.)
fn with_contents(mut fields: Value, contents: Vec<Value>) -> Value {
    fields["contents"] = Value::Array(contents);
    fields
}

fn text(content: &str, size: &str, color: Option<&str>, bold: bool) -> Value {
    let mut t = json!({"type": "text", "text": non_empty(content), "size": size, "wrap": true});
    if let Some(c) = color {
        t["color"] = json!(c);
    }
    if bold {
        t["weight"] = json!("bold");
    }
    t
}

/// Flex text must not be empty.
fn non_empty(s: &str) -> String {
    if s.trim().is_empty() { "-".to_string() } else { truncate_graphemes(s, 2000) }
}

fn button(b: &CardButton, signer: Option<&ButtonSigner>) -> Option<Value> {
    let action = match b {
        CardButton::Postback { label, action, id, display_text } => {
            // Without a conversation to bind to (the terminal chat) there is nothing to tap;
            // data that would not verify (see `crate::features::button::Action::button`) is dropped.
            let data = signer?.data(action, id);
            if data.len() > MAX_DATA_LEN || !is_token(action) || !is_token(id) {
                return None;
            }
            json!({
                "type": "postback",
                "label": truncate_graphemes(label, 40),
                "data": data,
                "displayText": truncate_graphemes(display_text, 300),
            })
        }
        CardButton::Picker { label, action, id, initial, min, max } => {
            let data = signer?.data(action, id);
            if data.len() > MAX_DATA_LEN || !is_token(action) || !is_token(id) {
                return None;
            }
            json!({
                "type": "datetimepicker",
                "label": truncate_graphemes(label, 40),
                "data": data,
                "mode": "datetime",
                "initial": initial,
                "min": min,
                "max": max,
            })
        }
        CardButton::Message { label, text } => json!({
            "type": "message",
            "label": truncate_graphemes(label, 40),
            "text": truncate_graphemes(text, 300),
        }),
        CardButton::Link { label, uri } => {
            if !(uri.starts_with("https://") || uri.starts_with("http://")) || uri.len() > 1000 {
                return None;
            }
            json!({"type": "uri", "label": truncate_graphemes(label, 40), "uri": uri})
        }
    };
    let mut button = json!({"type": "button", "style": "link", "height": "sm"});
    button["action"] = action;
    Some(button)
}

/// The bubble for `card`; postback buttons are signed with `signer` (and dropped without one).
pub fn bubble(card: &Card, palette: Palette, signer: Option<&ButtonSigner>) -> Value {
    let mut body = vec![text(&card.title, "lg", None, true)];
    if let Some(sub) = &card.subtitle {
        body.push(text(sub, "sm", Some(MUTED), false));
    }
    if let Some(h) = &card.headline {
        let size = if card.large { "3xl" } else { "xl" };
        body.push(text(&h.text, size, palette.color(h.tone), true));
    }
    if !card.rows.is_empty() {
        body.push(json!({"type": "separator", "margin": "md"}));
        let rows: Vec<Value> = card
            .rows
            .iter()
            .map(|row| {
                let mut value = text(&row.value, "sm", palette.color(row.tone), false);
                value["flex"] = json!(5);
                value["align"] = json!("end");
                if row.tone == Some(Tone::Muted) {
                    value["decoration"] = json!("line-through");
                }
                let mut label = text(&row.label, "sm", Some(MUTED), false);
                label["flex"] = json!(3);
                let mut contents = vec![label, value];
                if let Some(mut b) = row.button.as_ref().and_then(|b| button(b, signer)) {
                    b["flex"] = json!(2);
                    b["gravity"] = json!("center");
                    contents.push(b);
                }
                with_contents(
                    json!({"type": "box", "layout": "horizontal", "spacing": "sm"}),
                    contents,
                )
            })
            .collect();
        body.push(with_contents(
            json!({"type": "box", "layout": "vertical", "margin": "md", "spacing": "sm"}),
            rows,
        ));
    }
    if let Some(note) = &card.footnote {
        let mut t = text(note, "xxs", Some(MUTED), false);
        t["margin"] = json!("md");
        body.push(t);
    }
    let mut bubble = json!({"type": "bubble"});
    bubble["body"] =
        with_contents(json!({"type": "box", "layout": "vertical", "spacing": "sm"}), body);
    if let Some(url) =
        card.image_url.as_deref().filter(|u| u.starts_with("https://") && u.len() <= 2000)
    {
        bubble["hero"] = json!({"type": "image", "url": url, "size": "full",
                                "aspectRatio": "2:1", "aspectMode": "fit"});
    }
    let mut buttons: Vec<Value> = card.buttons.iter().filter_map(|b| button(b, signer)).collect();
    if card.large {
        for (i, b) in buttons.iter_mut().enumerate() {
            b["height"] = json!("md");
            b["style"] = json!(if i == 0 { "primary" } else { "secondary" });
        }
    }
    if !buttons.is_empty() {
        bubble["footer"] =
            with_contents(json!({"type": "box", "layout": "vertical", "spacing": "sm"}), buttons);
    }
    bubble
}

/// The Flex container for `cards`: one bubble, or a carousel; `None` when it would be too large
/// for LINE (the caller then sends the cards as text).
pub fn container(cards: &[Card], palette: Palette, signer: Option<&ButtonSigner>) -> Option<Value> {
    let bubbles: Vec<Value> =
        cards.iter().take(MAX_BUBBLES).map(|c| bubble(c, palette, signer)).collect();
    let (value, limit) = match bubbles.len() {
        0 => return None,
        1 => (bubbles.into_iter().next()?, MAX_BUBBLE_BYTES),
        _ => {
            if bubbles.iter().any(|b| json_bytes(b) > MAX_BUBBLE_BYTES) {
                return None;
            }
            (with_contents(json!({"type": "carousel"}), bubbles), MAX_CAROUSEL_BYTES)
        }
    };
    (json_bytes(&value) <= limit).then_some(value)
}

/// The length of `value` as minified JSON, counted without writing it out.
fn json_bytes(value: &Value) -> usize {
    /// Counts what is written to it.
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to a counter cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{CardRow, Styled};

    fn quote_card(tone: Tone) -> Card {
        let mut card = Card::new("台積電");
        card.headline = Some(Styled { text: "1,450 TWD".into(), tone: Some(tone) });
        card.rows.push(CardRow::new("漲跌", "▲ 15").toned(Some(tone)));
        card
    }

    #[test]
    fn taiwan_palette_shows_up_in_red_and_us_palette_in_green() {
        let tw = bubble(&quote_card(Tone::Up), Palette::new(PriceColors::Tw), None);
        assert_eq!(tw["body"]["contents"][1]["color"], RED);
        let us = bubble(&quote_card(Tone::Up), Palette::new(PriceColors::Us), None);
        assert_eq!(us["body"]["contents"][1]["color"], GREEN);
    }

    #[test]
    fn muted_rows_are_grey_and_struck_through() {
        let mut card = Card::new("清單");
        card.rows.push(CardRow::new("✓ 爸爸", "牛奶").toned(Some(Tone::Muted)));
        let b = bubble(&card, Palette::new(PriceColors::Tw), None);
        let value = &b["body"]["contents"][2]["contents"][0]["contents"][1];
        assert_eq!(
            (&value["color"], &value["decoration"]),
            (&json!(MUTED), &json!("line-through"))
        );
    }

    #[test]
    fn oversized_card_is_refused() {
        let mut card = Card::new("big");
        for i in 0..400 {
            card.rows.push(CardRow::new(format!("row {i}"), "x".repeat(80)));
        }
        assert!(container(&[card], Palette::new(PriceColors::Tw), None).is_none());
    }

    #[test]
    fn several_cards_become_a_carousel_of_at_most_twelve() {
        let cards = vec![quote_card(Tone::Down); 15];
        let c = container(&cards, Palette::new(PriceColors::Tw), None).expect("fits");
        assert_eq!(c["type"], "carousel");
        assert_eq!(c["contents"].as_array().map(Vec::len), Some(12));
    }

    #[test]
    fn postback_buttons_are_signed_for_the_conversation_and_dropped_without_one() {
        use crate::line::postback::PostbackKey;
        use crate::platform::config::Secret;
        let mut card = Card::new("提醒");
        card.buttons.push(CardButton::Postback {
            label: "❌ 取消".into(),
            action: "cancel_reminder".into(),
            id: "7".into(),
            display_text: "❌ 取消".into(),
        });
        let key = PostbackKey::new(&Secret::default(), &Secret::from("s"));
        let signer = ButtonSigner::new(key.clone(), "Cgroup");
        let b = bubble(&card, Palette::new(PriceColors::Tw), Some(&signer));
        let data = b["footer"]["contents"][0]["action"]["data"].as_str().expect("data");
        assert!(key.verify("Cgroup", data).is_ok());
        assert!(bubble(&card, Palette::new(PriceColors::Tw), None).get("footer").is_none());
    }

    #[test]
    fn a_published_chart_is_the_hero_and_an_address_line_would_refuse_is_left_out() {
        let mut card = quote_card(Tone::Up);
        card.image_url = Some("https://hearth.example/charts/abc.png".into());
        let b = bubble(&card, Palette::new(PriceColors::Tw), None);
        assert_eq!(b["hero"]["url"], "https://hearth.example/charts/abc.png");
        assert_eq!(b["hero"]["aspectRatio"], "2:1");
        card.image_url = Some("http://hearth.example/charts/abc.png".into());
        assert!(bubble(&card, Palette::new(PriceColors::Tw), None).get("hero").is_none());
    }

    #[test]
    fn links_that_line_would_reject_are_dropped() {
        let mut card = Card::new("t");
        card.buttons
            .push(CardButton::Link { label: "x".into(), uri: "javascript:alert(1)".into() });
        assert!(bubble(&card, Palette::new(PriceColors::Tw), None).get("footer").is_none());
    }
}
