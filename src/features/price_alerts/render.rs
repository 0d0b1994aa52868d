//! The push an alert becomes when it fires: a card with the instrument (a Taiwan security the way
//! the family says it, "台積電 2330", in Chinese), the condition, the actual
//! price and its time (a gap at the open can jump far past the level), the day's change coloured
//! by the family's convention, and buttons: ❌ cancel, and 🔕 mute for every-time alerts.

use jiff::tz::TimeZone;

use super::crossing::{Direction, Frequency};
use super::describe::{condition, frequency, price_time};
use super::taps::{CancelPriceAlert, MutePriceAlert};
use crate::contract::chart::{ChartSpec, Period};
use crate::contract::{Card, CardRow, Styled, Tone};
use crate::features::button::Action;
use crate::line::flex::Palette;
use crate::line::message::Message;
use crate::line::postback::{ButtonSigner, PostbackKey};
use crate::platform::format::money;
use crate::platform::i18n::Lang;
use crate::sources::quotes::Quote;
use crate::sources::securities::Securities;
use crate::store::AlertRow;

/// The messages pushed when `row` fires on `quote`; `securities` names Taiwan securities.
pub fn fired(
    row: &AlertRow,
    quote: &Quote,
    securities: &Securities,
    palette: Palette,
    key: &PostbackKey,
    image_url: Option<String>,
) -> Vec<Message> {
    let lang = row.lang;
    let direction = row.direction;
    let name = row.name.as_deref().or(quote.name.as_deref());
    // The notification preview names a Taiwan security as the family says it.
    let named = match lang {
        Lang::ZhTw => securities.title(&row.symbol, name, lang),
        Lang::En => row.symbol.clone(),
    };
    let mut card = card(row, direction, quote, securities.label(&row.symbol, name, lang));
    card.image_url = image_url;
    let signer = ButtonSigner::new(key.clone(), row.target());
    let icon = if direction == Direction::Up { "📈" } else { "📉" };
    let alt_text = format!(
        "{icon} {} {}{}{}",
        named,
        condition(direction, row.level, lang),
        lang.pick("，現價 ", ": now "),
        money(quote.price)
    );
    vec![Message::card(&card, &alt_text, palette, Some(&signer))]
}

/// The chart a fire carries: the day of its symbol, with the alert's level drawn.
pub fn chart(row: &AlertRow) -> ChartSpec {
    ChartSpec::Price { symbol: row.symbol.clone(), period: Period::Day, level: Some(row.level) }
}

/// The tone of a change: up, down or none.
pub fn tone_of(change: f64) -> Option<Tone> {
    if change > 0.0 {
        Some(Tone::Up)
    } else if change < 0.0 {
        Some(Tone::Down)
    } else {
        None
    }
}

fn card(row: &AlertRow, direction: Direction, quote: &Quote, label: String) -> Card {
    let lang = row.lang;
    let icon = if direction == Direction::Up { "📈" } else { "📉" };
    let mut card = Card::new(format!("{icon} {}", lang.pick("價格通知", "Price alert")));
    card.subtitle = Some(label);
    let currency = row.currency.as_deref().or(quote.currency.as_deref()).unwrap_or("");
    let change = quote.previous_close.map(|prev| (quote.price - prev, prev));
    let tone = change.and_then(|(c, _)| tone_of(c));
    card.headline = Some(Styled {
        text: format!("{} {currency}", money(quote.price)).trim().to_string(),
        tone,
    });
    card.rows
        .push(CardRow::new(lang.pick("條件", "Condition"), condition(direction, row.level, lang)));
    if let Some((c, prev)) = change {
        let arrow = match tone {
            Some(Tone::Up) => "▲",
            Some(Tone::Down) => "▼",
            _ => "–",
        };
        let pct = if prev != 0.0 { c / prev * 100.0 } else { 0.0 };
        card.rows.push(
            CardRow::new(
                lang.pick("今日漲跌", "Today"),
                format!("{arrow} {} ({pct:+.2}%)", money(c.abs())),
            )
            .toned(tone),
        );
    }
    let tz = TimeZone::get(&row.tz).unwrap_or(TimeZone::UTC);
    if let Some(at) = price_time(quote.market_time, &tz) {
        card.rows.push(CardRow::new(lang.pick("價格時間", "Price time"), at));
    }
    let every_time = row.frequency == Frequency::EveryTime;
    if every_time {
        card.rows.push(CardRow::new(
            lang.pick("頻率", "Repeats"),
            frequency(Frequency::EveryTime, row.cooldown_s, lang),
        ));
    }
    card.buttons.push(CancelPriceAlert { id: row.id }.button(
        lang.pick("❌ 取消通知", "❌ Cancel alert"),
        format!("{} {}", lang.pick("❌ 取消價格通知", "❌ Cancel alert"), row.symbol),
    ));
    if every_time {
        card.buttons.push(MutePriceAlert { id: row.id }.button(
            lang.pick("🔕 靜音 24 小時", "🔕 Mute 24 h"),
            format!("{} {}", lang.pick("🔕 靜音", "🔕 Mute"), row.symbol),
        ));
    }
    card
}
