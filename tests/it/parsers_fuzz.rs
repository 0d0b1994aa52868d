//! Property tests of the parsers that face the world, each a bounded number of cases so the
//! set runs in seconds: webhook bodies (arbitrary bytes and arbitrary JSON never panic; any
//! mention spans reach the group gate safely), text splitting (pieces within LINE's limits that
//! join back to the input), page extraction (any tag soup, output within its budgets), and what
//! the family calls an instrument (any words resolve to a well-formed symbol or a refusal; any
//! securities file parses or is refused, never a panic). The
//! postback codec and the gate have their own properties beside their code.

use hearth::line::text::{split, truncate_utf16, utf16_len};
use hearth::line::webhook::{Envelope, Event, EventKind, IncomingMessage};
use hearth::platform::text::{grapheme_len, truncate_graphemes};
use hearth::sources::extract::{LABEL_MAX_CHARS, extract_blocking};
use hearth::sources::fetch::PageKind;
use hearth::sources::securities::Securities;
use hearth::sources::symbols::resolve_symbol;
use hearth::turn::gate::addressed;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Names and values LINE uses, so random JSON often looks like an event.
fn wire_word() -> impl Strategy<Value = String> {
    let words = prop::sample::select(vec![
        "type",
        "webhookEventId",
        "timestamp",
        "mode",
        "replyToken",
        "source",
        "deliveryContext",
        "isRedelivery",
        "message",
        "postback",
        "data",
        "unsend",
        "messageId",
        "id",
        "text",
        "mention",
        "mentionees",
        "index",
        "length",
        "isSelf",
        "userId",
        "groupId",
        "roomId",
        "quotedMessageId",
        "events",
        "destination",
        "user",
        "group",
        "room",
        "follow",
        "standby",
        "sticker",
    ]);
    prop_oneof![words.prop_map(String::from), "[a-zA-Z]{0,8}", ".{0,12}"]
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        wire_word().prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::btree_map(wire_word(), inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A text message event in a group with arbitrary mention spans (any numbers, negative too).
fn mention_event() -> impl Strategy<Value = Value> {
    let number = prop_oneof![0i64..40, any::<i64>().prop_map(|n| n.abs()), any::<i64>()];
    let span = (number.clone(), number, any::<bool>())
        .prop_map(|(i, l, s)| json!({"index": i, "length": l, "isSelf": s, "type": "user"}));
    let text = prop_oneof![".{0,30}", Just("@hearth 🍎 明天天氣".to_string())];
    (text, prop::collection::vec(span, 0..6)).prop_map(|(text, spans)| {
        json!({"type": "message", "mode": "active", "timestamp": 1, "webhookEventId": "01X",
            "replyToken": "r", "source": {"type": "group", "groupId": "C1", "userId": "U1"},
            "message": {"id": "1", "type": "text", "text": text,
                "mention": {"mentionees": spans}}})
    })
}

fn gate(event: &Event) {
    if let EventKind::Message(IncomingMessage::Text(text)) = &event.kind {
        let called = addressed(text, true, &["hearth".to_string()], false);
        assert!(called.is_some() || !text.text.to_ascii_lowercase().contains("hearth"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic_the_envelope_parser(
        bytes in prop::collection::vec(any::<u8>(), 0..600),
        json in any_json(),
        flip in any::<prop::sample::Index>(),
    ) {
        let _ = serde_json::from_slice::<Envelope>(&bytes);
        let mut body = json!({"destination": "U1", "events": [json]}).to_string().into_bytes();
        let at = flip.index(body.len());
        body[at] = bytes.first().copied().unwrap_or(b'{');
        let _ = serde_json::from_slice::<Envelope>(&body);
    }

    #[test]
    fn arbitrary_json_events_never_panic(envelope in any_json(), event in any_json()) {
        if let Ok(parsed) = serde_json::from_value::<Envelope>(envelope) {
            for raw in parsed.events {
                if let Ok(event) = Event::parse_json(raw.get()) {
                    gate(&event);
                }
            }
        }
        if let Ok(event) = Event::parse(event) {
            gate(&event);
        }
    }

    #[test]
    fn any_mention_spans_pass_the_gate(raw in mention_event()) {
        if let Ok(event) = Event::parse(raw) {
            gate(&event);
        }
    }

    #[test]
    fn split_pieces_fit_and_join_back(text in ".{0,300}", max in 2usize..64) {
        let pieces = split(&text, max);
        prop_assert_eq!(pieces.concat(), text.clone());
        for piece in &pieces {
            prop_assert!(!piece.is_empty());
            prop_assert!(utf16_len(piece) <= max, "{} units > {max}", utf16_len(piece));
        }
        prop_assert!(utf16_len(&truncate_utf16(&text, max)) <= max);
        prop_assert!(grapheme_len(&truncate_graphemes(&text, max)) <= max);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn long_answers_split_within_lines_limit(
        piece in "(.|🍎|👨‍👩‍👧|\n\n){1,8}",
        times in 1usize..1500,
    ) {
        let text = piece.repeat(times);
        let pieces = split(&text, 5000);
        prop_assert_eq!(pieces.concat(), text);
        prop_assert!(pieces.iter().all(|p| utf16_len(p) <= 5000 && !p.is_empty()));
    }
}

/// Pieces of hostile and ordinary HTML.
fn tag_soup() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "<b>",
        "</b>",
        "<div>",
        "</div>",
        "<p>",
        "<li>",
        "<ul>",
        "</ul>",
        "<table>",
        "<td>",
        "<tr>",
        "</table>",
        "<svg>",
        "<path/>",
        "</svg>",
        "<!--",
        "-->",
        "<!-->",
        "<script>",
        "</script>",
        "<style>",
        "<title>",
        "</title>",
        "&amp;",
        "&",
        "&#x1F600;",
        "&#99999999;",
        "&#xD800;",
        "text ",
        "台北 ",
        "🍎",
        "<",
        ">",
        "\"",
        "'",
        "</",
        "<!DOCTYPE html>",
        "<meta property=\"og:site_name\" content=\"Example\">",
        "<article>",
        "</article>",
        "<object>",
        "<math>",
        "<textarea>",
        "\n",
    ]);
    prop_oneof![prop::collection::vec(pieces, 0..400).prop_map(|v| v.concat()), ".{0,400}",]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn extraction_output_stays_within_its_budgets(
        html in tag_soup(),
        title in ".{0,20}",
        repeat in 1usize..600,
        budget in 0usize..3000,
        text in any::<bool>(),
    ) {
        let html = format!("<title>{}</title>{html}", title.repeat(repeat));
        let kind = if text { PageKind::Text } else { PageKind::Html };
        let out = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || extract_blocking(kind, &html, "https://example.com/a", budget, true))
            .expect("thread")
            .join();
        let out = out.map_err(|_| TestCaseError::fail("extraction panicked"))?;
        prop_assert!(out.text.chars().count() <= budget + 1);
        prop_assert_eq!(out.truncated, out.text.ends_with('…') && out.text.chars().count() == budget + 1);
        for label in [&out.title, &out.site].into_iter().flatten() {
            prop_assert!(label.chars().count() <= LABEL_MAX_CHARS + 1, "{}", label.len());
        }
    }
}

#[test]
fn a_deeply_nested_event_is_refused_without_overflowing() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let body = format!(r#"{{"destination":"U1","events":[{deep}]}}"#);
    // The envelope keeps each event as its JSON text (skipped over, not built); such an event
    // is refused on its own.
    let envelope = serde_json::from_str::<Envelope>(&body).expect("the envelope is read");
    assert_eq!(envelope.events.len(), 1);
    assert!(Event::parse_json(envelope.events[0].get()).is_err());
    // Nesting as deep inside an otherwise well-formed message is skipped, or refused.
    let message = format!(
        r#"{{"type":"message","webhookEventId":"01D","timestamp":1,"source":{{"type":"user","userId":"U1"}},"message":{{"id":"1","type":"text","text":"hi","extra":{deep}}}}}"#
    );
    if let Ok(event) = Event::parse_json(&message) {
        assert!(matches!(event.kind, EventKind::Message(IncomingMessage::Text(_))));
    }
}

/// Words that look like what the model passes: names, codes, suffixes, noise.
fn instrument_words() -> impl Strategy<Value = String> {
    let parts = prop::sample::select(vec![
        "台積",
        "電",
        "元太",
        "國泰",
        "臺",
        "8069",
        "2330",
        "00878",
        ".TW",
        ".two",
        ".",
        "^",
        "-",
        "BTC",
        "apple",
        " ",
        "５",
        "\t",
        "/",
        "高股息",
    ]);
    let piece = prop_oneof![parts.prop_map(String::from), ".{0,6}"];
    prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_words_resolve_to_a_well_formed_symbol_or_a_refusal(input in instrument_words()) {
        let table = Securities::built_in();
        if let Ok(symbol) = resolve_symbol(&input, &table) {
            prop_assert!(!symbol.is_empty() && symbol.len() <= 20, "{symbol:?}");
            let allowed = |b: u8| b.is_ascii_uppercase() || b.is_ascii_digit() || b"^.=-".contains(&b);
            prop_assert!(symbol.bytes().all(allowed), "{input:?} gave {symbol:?}");
        }
    }

    #[test]
    fn any_securities_file_parses_or_is_refused(
        lines in prop::collection::vec(
            (instrument_words(), instrument_words(), prop::sample::select(vec!["twse", "tpex", "x"]),
             prop::sample::select(vec!["stock", "etf", "warrant"])),
            0..20,
        ),
    ) {
        let text: String = lines
            .iter()
            .map(|(code, name, market, kind)| format!("{code}\t{name}\t{market}\t{kind}\n"))
            .collect();
        if let Ok(table) = Securities::parse(&text) {
            prop_assert!(table.len() <= lines.len());
            prop_assert!(table.iter().all(|s| s.symbol().ends_with(".TW") || s.symbol().ends_with(".TWO")));
        }
    }
}
