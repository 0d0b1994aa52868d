//! The ✓ button of a list card: checks the item off for whoever tapped, and answers with the
//! updated card (through the lists' own operation, as the tool and the page do). A tap on an item someone already checked says who did; a tap on an item no
//! longer on the list (cleared) says so and shows the list as it is now. The postback was
//! verified against this conversation; every store call is scoped to it too.

use super::ops::Lists;
use super::view::CheckListItem;
use crate::contract::Answer;
use crate::contract::ToolCtx;
use crate::features::button::Action;
use crate::features::deps::Deps;
use crate::platform::i18n::{Failure, Lang};
use crate::store::Checked;

impl Action for CheckListItem {
    const NAME: &'static str = "check_list_item";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        check_tapped(&Lists::from_deps(deps), ctx, self).await
    }
}

async fn check_tapped(lists: &Lists, ctx: &ToolCtx, tap: CheckListItem) -> Answer {
    let lang = tap.lang;
    let name = ctx.display_name.as_deref();
    let text = match lists.check_item(ctx, tap.item).await {
        Ok(Checked::Now(item)) => match (lang, name) {
            (Lang::ZhTw, Some(name)) => format!("✓ {name}勾掉了「{}」", item.name),
            (Lang::ZhTw, None) => format!("✓ 已勾掉「{}」", item.name),
            (Lang::En, Some(name)) => format!("✓ {name} checked off \"{}\"", item.name),
            (Lang::En, None) => format!("✓ Checked off \"{}\"", item.name),
        },
        Ok(Checked::Already(item)) => {
            let by = item.checked_by_name.as_deref().unwrap_or(lang.pick("有人", "someone"));
            match lang {
                Lang::ZhTw => format!("「{}」已經被{by}勾掉了", item.name),
                Lang::En => format!("\"{}\" was already checked off by {by}", item.name),
            }
        }
        Ok(Checked::Gone) => {
            lang.pick("這個項目已經不在清單上了。", "That item is no longer on the list.").into()
        }
        Err(e) => {
            tracing::error!(error = %e, "could not check off a list item");
            return crate::features::button::text(Failure::Internal.message(lang));
        }
    };
    let shown = ToolCtx { lang, ..ctx.clone() };
    let list = match lists.by_id(&shown, tap.list).await {
        Ok(list) => list,
        Err(e) => {
            tracing::error!(error = %e, "could not read a list after a tap");
            None
        }
    };
    let cards = list.map(|list| list.card(lang)).into_iter().collect();
    Answer { text, cards, ..Answer::default() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::button::{decode, encode};

    #[test]
    fn a_check_button_carries_the_list_the_item_and_the_cards_language() {
        let zh = CheckListItem { list: 12, item: 345, lang: Lang::ZhTw };
        let en = CheckListItem { lang: Lang::En, ..zh };
        assert_eq!(encode(&zh).expect("encode"), "12-345");
        assert_eq!(encode(&en).expect("encode"), "12-345-en");
        assert_eq!(decode::<CheckListItem>("12-345-en").expect("decode"), en);
        assert_eq!(decode::<CheckListItem>("12-345").expect("decode"), zh);
        for bad in ["12", "12-x", "-en", "12-345-fr", "a-b-en"] {
            assert!(decode::<CheckListItem>(bad).is_err(), "{bad}");
        }
    }
}
