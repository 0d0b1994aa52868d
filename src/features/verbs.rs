//! THE list of verbs: every change a member can make to what hearth keeps for a chat, with the
//! surfaces it is offered on. Each verb is one function in its capability's `ops`, which
//! records it in the feed of changes ([`crate::features::changes`]); the tools, buttons, the
//! family page and the rich menu only adapt what came in to it. The table of verbs × surfaces
//! in `docs/what-it-does.md` is [`table`] of this list (a test keeps them the same), and
//! `tests/it/verbs.rs` walks it: each verb on each of its surfaces records the same change,
//! with its actor and surface.

use crate::contract::Surface;
use crate::platform::i18n::Lang;

/// A change a member can make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verb {
    /// Its name, as recorded.
    pub name: &'static str,
    /// The capability whose `ops` holds it.
    pub capability: &'static str,
    /// What it did, in the feed's words: 「勾掉了」, "checked off".
    pub done: (&'static str, &'static str),
    /// Where it is offered.
    pub surfaces: &'static [Surface],
}

impl Verb {
    /// What it did, in `lang`.
    pub fn said(&self, lang: Lang) -> &'static str {
        lang.pick(self.done.0, self.done.1)
    }
}

use Surface::{Button, Chat, Loop, Menu, Page};

/// Things put on a shared list.
pub const LIST_ADD: Verb = Verb {
    name: "list_add",
    capability: "lists",
    done: ("加入了", "added"),
    surfaces: &[Chat, Page],
};
/// Things checked off a list (bought, done).
pub const LIST_CHECK: Verb = Verb {
    name: "list_check",
    capability: "lists",
    done: ("勾掉了", "checked off"),
    surfaces: &[Chat, Button, Page],
};
/// A checked thing put back on its list.
pub const LIST_UNCHECK: Verb = Verb {
    name: "list_uncheck",
    capability: "lists",
    done: ("放回了", "put back"),
    surfaces: &[Page],
};
/// Things taken off a list.
pub const LIST_REMOVE: Verb = Verb {
    name: "list_remove",
    capability: "lists",
    done: ("移除了", "removed"),
    surfaces: &[Chat, Page],
};
/// A list emptied (or its checked things cleared).
pub const LIST_EMPTY: Verb = Verb {
    name: "list_empty",
    capability: "lists",
    done: ("清空了", "emptied"),
    surfaces: &[Chat, Page],
};
/// A reminder cancelled.
pub const REMINDER_CANCEL: Verb = Verb {
    name: "reminder_cancel",
    capability: "reminders",
    done: ("取消了提醒", "cancelled the reminder"),
    surfaces: &[Chat, Button, Page],
};
/// A price alert cancelled.
pub const PRICE_ALERT_CANCEL: Verb = Verb {
    name: "price_alert_cancel",
    capability: "price_alerts",
    done: ("取消了價格通知", "cancelled the price alert"),
    surfaces: &[Chat, Button, Page],
};
/// A fact remembered (記得奶奶對花生過敏).
pub const MEMORY_REMEMBER: Verb = Verb {
    name: "memory_remember",
    capability: "memory",
    done: ("請我記住", "had me remember"),
    surfaces: &[Chat],
};
/// A memory forgotten.
pub const MEMORY_FORGET: Verb = Verb {
    name: "memory_forget",
    capability: "memory",
    done: ("請我忘記了", "had me forget"),
    surfaces: &[Chat, Button, Page],
};
/// Every memory of the chat forgotten, after the confirmation tap.
pub const MEMORY_FORGET_ALL: Verb = Verb {
    name: "memory_forget_all",
    capability: "memory",
    done: ("請我忘記了", "had me forget"),
    surfaces: &[Button, Page],
};
/// Taiwan's official alerts pushed to the chat (「颱風假、地震有消息就通知我們」).
pub const OFFICIAL_ALERTS_FOLLOW: Verb = Verb {
    name: "official_alerts_follow",
    capability: "official_alerts",
    done: ("訂閱了官方警報", "followed the official alerts"),
    surfaces: &[Chat],
};
/// The official alerts no longer pushed.
pub const OFFICIAL_ALERTS_STOP: Verb = Verb {
    name: "official_alerts_stop",
    capability: "official_alerts",
    done: ("停止了官方警報", "stopped the official alerts"),
    surfaces: &[Chat],
};
/// A care plan set for an elder (a draft until ✅ 開始).
pub const CARE_PLAN_SET: Verb = Verb {
    name: "care_plan_set",
    capability: "care",
    done: ("設定了照顧計畫", "set the care plan"),
    surfaces: &[Chat],
};
/// A dose of a care plan confirmed taken: by her (✅ 吃了, ✅ 我吃藥了, 「我吃藥了」) or a
/// caregiver for her (✅ 她吃了, 「阿嬤早上的藥吃過了」).
pub const CARE_DOSE_TAKEN: Verb = Verb {
    name: "care_dose_taken",
    capability: "care",
    done: ("確認吃了", "confirmed taken"),
    surfaces: &[Chat, Button, Menu],
};
/// A dose taken in hand by a caregiver (我來打電話): nobody else is told more.
pub const CARE_DOSE_ON_IT: Verb = Verb {
    name: "care_dose_on_it",
    capability: "care",
    done: ("接手處理了", "took in hand"),
    surfaces: &[Button],
};
/// A chat's setting set or taken away ([`crate::features::settings`]: spoken answers, …), for the
/// chat or for the member alone.
pub const SETTING_SET: Verb = Verb {
    name: "setting_set",
    capability: "settings",
    done: ("改了設定", "changed a setting"),
    surfaces: &[Chat],
};

/// An event put on the family calendar.
pub const EVENT_ADD: Verb = Verb {
    name: "event_add",
    capability: "calendar",
    done: ("排進行事曆", "put on the calendar"),
    surfaces: &[Chat, Page, Loop],
};

/// A calendar event moved or changed.
pub const EVENT_MOVE: Verb = Verb {
    name: "event_move",
    capability: "calendar",
    done: ("改了行程", "moved"),
    surfaces: &[Chat, Page, Loop],
};

/// A calendar event cancelled.
pub const EVENT_CANCEL: Verb = Verb {
    name: "event_cancel",
    capability: "calendar",
    done: ("取消了行程", "cancelled"),
    surfaces: &[Chat, Page, Loop],
};

/// THE list.
pub const VERBS: &[Verb] = &[
    LIST_ADD,
    LIST_CHECK,
    LIST_UNCHECK,
    LIST_REMOVE,
    LIST_EMPTY,
    REMINDER_CANCEL,
    PRICE_ALERT_CANCEL,
    MEMORY_REMEMBER,
    MEMORY_FORGET,
    MEMORY_FORGET_ALL,
    OFFICIAL_ALERTS_FOLLOW,
    OFFICIAL_ALERTS_STOP,
    CARE_PLAN_SET,
    CARE_DOSE_TAKEN,
    CARE_DOSE_ON_IT,
    SETTING_SET,
    EVENT_ADD,
    EVENT_MOVE,
    EVENT_CANCEL,
];

/// The verb recorded as `name`.
pub fn named(name: &str) -> Option<&'static Verb> {
    VERBS.iter().find(|v| v.name == name)
}

/// The table of verbs × surfaces, as `docs/what-it-does.md` shows it (Markdown).
pub fn table() -> String {
    let mut out = String::from("| verb | capability |");
    for s in Surface::ALL {
        out.push_str(&format!(" {} |", s.as_str()));
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---|".repeat(Surface::ALL.len()));
    for v in VERBS {
        out.push_str(&format!("\n| `{}` ({}) | {} |", v.name, v.done.1, v.capability));
        for s in Surface::ALL {
            out.push_str(if v.surfaces.contains(&s) { " ✓ |" } else { "  |" });
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_verb_has_one_name_and_at_least_one_surface() {
        for (i, v) in VERBS.iter().enumerate() {
            assert!(!v.surfaces.is_empty(), "{} is offered nowhere", v.name);
            assert!(VERBS[..i].iter().all(|w| w.name != v.name), "{} twice", v.name);
            assert_eq!(named(v.name), Some(v));
        }
    }

    #[test]
    fn the_docs_show_the_table_of_the_list() {
        let docs = include_str!("../../docs/what-it-does.md");
        assert!(
            docs.contains(&table()),
            "docs/what-it-does.md must hold the table of verbs × surfaces:\n{}",
            table()
        );
    }
}
