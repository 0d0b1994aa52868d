//! Everything due for one chat goes out in one push: the messages of the items are put together
//! into as few requests as LINE allows (at most five message objects each). Beyond five, the
//! cards (Flex bubbles) are gathered into carousels of up to twelve; only what still does not
//! fit spills into a further request. Also the one-line summary of an item that is held.

use serde_json::{Value, json};

/// LINE's most message objects in one push.
pub const MAX_MESSAGES: usize = 5;
/// LINE's most bubbles in one carousel.
pub const MAX_BUBBLES: usize = 12;

/// The requests (each a list of at most [`MAX_MESSAGES`] message objects) that carry the
/// messages of `payloads` (each a JSON array of message objects), in order.
pub fn requests(payloads: &[Value]) -> Vec<Vec<Value>> {
    let messages: Vec<Value> =
        payloads.iter().filter_map(Value::as_array).flatten().cloned().collect();
    if messages.len() <= MAX_MESSAGES {
        return if messages.is_empty() { Vec::new() } else { vec![messages] };
    }
    let (bubbles, others): (Vec<Value>, Vec<Value>) =
        messages.into_iter().partition(|m| bubble_of(m).is_some());
    let mut gathered = others;
    for chunk in bubbles.chunks(MAX_BUBBLES) {
        gathered.push(carousel(chunk));
    }
    gathered.chunks(MAX_MESSAGES).map(<[Value]>::to_vec).collect()
}

/// The items (each a JSON array of message objects) put in groups, in order, so that each
/// group's messages go in one request ([`requests`] makes one of them): what is pushed together
/// is known item by item, so a request LINE accepted is never sent again with another. An item
/// too big for one request alone is a group of its own.
pub fn pack(payloads: &[Value]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for (i, payload) in payloads.iter().enumerate() {
        let mut trial: Vec<Value> = current.iter().map(|&j| payloads[j].clone()).collect();
        trial.push(payload.clone());
        if !current.is_empty() && requests(&trial).len() > 1 {
            groups.push(std::mem::take(&mut current));
        }
        current.push(i);
    }
    if !current.is_empty() {
        groups.push(current);
    }
    groups
}

/// The bubble a Flex message carries, if it carries exactly one.
fn bubble_of(message: &Value) -> Option<&Value> {
    let contents = message.get("contents")?;
    (message.get("type")? == "flex" && contents.get("type")? == "bubble").then_some(contents)
}

/// One Flex carousel of these single-bubble Flex messages.
fn carousel(messages: &[Value]) -> Value {
    if let [only] = messages {
        return only.clone();
    }
    let bubbles: Vec<Value> = messages.iter().filter_map(bubble_of).cloned().collect();
    let first = messages.first().and_then(|m| m.get("altText")).and_then(Value::as_str);
    let alt = format!("{}（+{}）", first.unwrap_or("🔔"), messages.len() - 1);
    json!({"type": "flex", "altText": alt, "contents": {"type": "carousel", "contents": bubbles}})
}

/// A one-line summary of an item's messages (the card's alternative text, else its text).
pub fn summary(payload: &Value) -> String {
    let messages = payload.as_array().map(Vec::as_slice).unwrap_or_default();
    let alt = messages.iter().find_map(|m| m.get("altText").and_then(Value::as_str));
    let text = || messages.iter().find_map(|m| m.get("text").and_then(Value::as_str));
    alt.or_else(text).unwrap_or("🔔").chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(n: usize) -> Value {
        json!([{"type": "flex", "altText": format!("⏰ {n}"), "contents": {"type": "bubble", "body": {}}}])
    }

    #[test]
    fn three_items_due_together_make_one_request() {
        let out = requests(&[card(1), card(2), card(3)]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].len(), 3);
    }

    #[test]
    fn beyond_five_messages_the_cards_become_a_carousel() {
        let payloads: Vec<Value> = (0..8).map(card).collect();
        let out = requests(&payloads);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].len(), 1);
        assert_eq!(out[0][0]["contents"]["type"], "carousel");
        assert_eq!(out[0][0]["contents"]["contents"].as_array().map(Vec::len), Some(8));
        assert_eq!(out[0][0]["altText"], "⏰ 0（+7）");
    }

    #[test]
    fn texts_that_do_not_fit_spill_into_another_request() {
        let texts: Vec<Value> =
            (0..7).map(|n| json!([{"type": "text", "text": n.to_string()}])).collect();
        let out = requests(&texts);
        assert_eq!(out.iter().map(Vec::len).collect::<Vec<_>>(), vec![5, 2]);
        assert!(requests(&[]).is_empty());
    }

    #[test]
    fn items_are_packed_into_groups_of_one_request_each() {
        assert_eq!(pack(&[card(1), card(2), card(3)]), vec![vec![0, 1, 2]]);
        // Cards gather into a carousel: fourteen cards make two requests' worth of groups.
        let cards: Vec<Value> = (0..14).map(card).collect();
        let groups = pack(&cards);
        assert!(
            groups.iter().all(|g| requests(
                &g.iter().map(|&i| cards[i].clone()).collect::<Vec<_>>()
            )
            .len()
                == 1)
        );
        assert_eq!(groups.concat(), (0..14).collect::<Vec<_>>(), "every item once, in order");
        let texts: Vec<Value> =
            (0..7).map(|n| json!([{"type": "text", "text": n.to_string()}])).collect();
        assert_eq!(pack(&texts), vec![vec![0, 1, 2, 3, 4], vec![5, 6]]);
        let big = json!(
            (0..6).map(|n| json!({"type": "text", "text": n.to_string()})).collect::<Vec<_>>()
        );
        assert_eq!(pack(&[card(1), big]), vec![vec![0], vec![1]], "too big for one request: alone");
        assert!(pack(&[]).is_empty());
    }

    #[test]
    fn a_held_item_is_summarised_by_its_card_s_alternative_text() {
        assert_eq!(summary(&card(4)), "⏰ 4");
        assert_eq!(summary(&json!([{"type": "text", "text": "hi"}])), "hi");
        assert_eq!(summary(&json!("garbage")), "🔔");
    }
}
