//! The family page against the real server: a member gets a link from the 🏠 button on a card,
//! opens a session with it, and sees and changes that chat's lists, reminders, price alerts,
//! memories and settings — through the chat's own tools and buttons, so the next tool call in the
//! chat sees each change. Every refusal is tried: a reused, expired or unknown link, no cookie, a
//! forged cookie, another chat's session on every route, a missing or wrong CSRF token, too many
//! requests, an oversized form, a signed-out session, a forgotten chat.

use std::collections::HashMap;

use crate::common::harness::{
    DAD, FAMILY, Harness, MOM, OTHER_GROUP, in_dm, in_group, postback_data,
};
use reqwest::header::{COOKIE, HeaderMap, LOCATION, SET_COOKIE};
use serde_json::{Value, json};

const PUBLIC: &str = "https://hearth.example";

pub(crate) async fn start() -> Harness {
    let h = Harness::start_with(|c| c.server.public_url = Some(PUBLIC.into()), None).await;
    members_known(&h);
    members_known(&h);
    h
}

/// Mom and Dad are in the family group: LINE answers their profiles there (a member LINE does
/// not know in a group has left it, and loses its page).
fn members_known(h: &Harness) {
    h.line.set_profile(MOM, "媽媽");
    h.line.set_profile(DAD, "爸爸");
}

/// A phone's browser on the family page: one cookie, no redirects followed.
pub(crate) struct Browser {
    base: String,
    http: reqwest::Client,
    cookie: Option<String>,
}

/// An answer: status, headers, body.
pub(crate) struct Page {
    pub(crate) status: u16,
    headers: HeaderMap,
    pub(crate) body: String,
}

impl Page {
    /// The CSRF token of the page's forms.
    pub(crate) fn csrf(&self) -> String {
        let at = self.body.find("name=\"csrf\" value=\"").expect("a form") + 19;
        self.body[at..at + 64].to_string()
    }
}

impl Browser {
    fn new(h: &Harness) -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        Self { base: h.url.clone(), http, cookie: None }
    }

    async fn answer(&self, request: reqwest::RequestBuilder) -> Page {
        let request = match &self.cookie {
            Some(cookie) => request.header(COOKIE, cookie),
            None => request,
        };
        let response = request.send().await.expect("request");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        Page { status, headers, body: response.text().await.expect("body") }
    }

    pub(crate) async fn get(&self, path: &str) -> Page {
        self.answer(self.http.get(format!("{}{path}", self.base))).await
    }

    pub(crate) async fn post(&self, path: &str, form: &[(&str, &str)]) -> Page {
        self.post_with(path, form, &[]).await
    }

    /// A form posted with these extra headers (what a browser says of where it comes from).
    async fn post_with(&self, path: &str, form: &[(&str, &str)], headers: &[(&str, &str)]) -> Page {
        let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
        let mut request = self
            .http
            .post(format!("{}{path}", self.base))
            .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.answer(request).await
    }

    /// Opens a minted link (its path and query); keeps the session cookie.
    async fn open(&mut self, link: &str) -> Page {
        let page = self.get(link).await;
        if let Some(set) = page.headers.get(SET_COOKIE).and_then(|v| v.to_str().ok()) {
            self.cookie = set.split(';').next().map(str::to_string);
        }
        page
    }
}

/// What a tap on 🏠 brought: hearth's answer where it was tapped, and what it pushed because of
/// the tap, each as JSON text.
struct Tapped {
    reply: String,
    pushes: Vec<(String, String)>,
}

/// `member` taps 🏠 on the shopping list's card in `chat`; what hearth answered and pushed.
async fn tap_open_page(h: &Harness, source: Value) -> Tapped {
    h.call_tool(
        source.clone(),
        "小幫手 購物清單有什麼",
        "list",
        json!({"action": "show", "list": null, "items": null, "only_checked": null}),
    )
    .await;
    let card = h.line.replies().last().expect("a reply").body.clone();
    let data = postback_data(&card, "open_page").expect("the 🏠 button on the list card");
    let (replies, pushes) = (h.line.replies().len(), h.line.pushes().len());
    h.send(vec![h.postback(source, &data)]).await;
    let reply = h.line.replies().get(replies).expect("an answer to the tap").body.to_string();
    let pushes = h.line.pushes()[pushes..]
        .iter()
        .map(|p| (p.body["to"].as_str().unwrap_or_default().to_string(), p.body.to_string()))
        .collect();
    Tapped { reply, pushes }
}

/// The plain link in `text` (its path and query on this server), if any.
fn plain_link(text: &str) -> Option<String> {
    let at = text.find("/family/open?t=")?;
    let link = &text[at..at + "/family/open?t=".len() + 64];
    assert!(text.contains(&format!("{PUBLIC}{link}")), "the link is on the public address");
    Some(link.to_string())
}

/// `member` has added hearth as a friend (as a follow event would tell it).
async fn befriend(h: &Harness, member: &str) {
    h.line.set_profile(member, if member == MOM { "媽媽" } else { "爸爸" });
    h.app.quota.note_friend(member, true).await;
}

/// `member` taps 🏠 in `chat`; the link hearth gives them (its path and query on this server):
/// the answer in a 1:1 chat; for a group, where they have added hearth as a friend, the one
/// message pushed to their 1:1 chat (the group's answer then carries no link).
async fn mint(h: &Harness, source: Value) -> String {
    if let Some(member) = source["userId"].as_str().filter(|_| source["type"] == "group") {
        befriend(h, member).await;
    }
    let tapped = tap_open_page(h, source.clone()).await;
    if source["type"] == "user" {
        assert!(tapped.pushes.is_empty(), "a 1:1 chat is answered, not pushed to");
        return plain_link(&tapped.reply).expect("a link in the answer");
    }
    assert_eq!(plain_link(&tapped.reply), None, "no link in the group: {}", tapped.reply);
    let member = source["userId"].as_str().expect("a member");
    match tapped.pushes.as_slice() {
        [(to, body)] if to == member => plain_link(body).expect("a link in the push"),
        other => panic!("one push to the member who tapped, not {other:?}"),
    }
}

/// A browser with a session for `user` in `chat`.
pub(crate) async fn signed_in(h: &Harness, source: Value) -> Browser {
    let link = mint(h, source).await;
    let mut browser = Browser::new(h);
    let opened = browser.open(&link).await;
    assert_eq!(opened.status, 303, "{}", opened.body);
    browser
}

/// Things kept for the family group: a list item, a reminder, a memory.
async fn family_things(h: &Harness) {
    let group = in_group(FAMILY, MOM);
    h.call_tool(group.clone(), "小幫手 牛奶", "list", json!({"action": "add", "list": null, "items": [{"name": "牛奶", "quantity": null}], "only_checked": null})).await;
    let r = h
        .call_tool(
            group.clone(),
            "小幫手 明天八點提醒倒垃圾",
            "reminder",
            json!({"text": "倒垃圾", "at": "2026-12-01T08:00"}),
        )
        .await;
    assert!(r.get("error").is_none(), "{r}");
    h.call_tool(
        group,
        "小幫手 記得阿嬤對花生過敏",
        "memory",
        json!({"action": "remember", "fact": "阿嬤對花生過敏"}),
    )
    .await;
}

/// The family's only list, with its items.
async fn shopping_list(
    store: &hearth::store::Store,
) -> (hearth::store::ListRow, Vec<hearth::store::ListItem>) {
    let id = store.lists().of_chat(FAMILY).await.expect("store")[0].id;
    store.lists().list_by_id(FAMILY, id).await.expect("store").expect("the shopping list")
}

#[tokio::test]
async fn a_link_another_site_navigates_to_asks_for_a_tap_and_another_site_cannot_tap_it() {
    let h = start().await;
    family_things(&h).await;
    let link = mint(&h, in_group(FAMILY, MOM)).await;
    let token = link.trim_start_matches("/family/open?t=").to_string();
    let mut browser = Browser::new(&h);
    // A foreign page sends the member's browser to the link (login CSRF): no session, and the
    // link is not used up.
    let request = browser.http.get(format!("{}{link}", browser.base));
    let led = browser.answer(request.header("sec-fetch-site", "cross-site")).await;
    assert_eq!(led.status, 200, "{}", led.body);
    assert!(led.headers.get(SET_COOKIE).is_none(), "no session from another site's navigation");
    assert!(led.body.contains("action=\"/family/open\"") && led.body.contains(&token));
    // Another site's page submitting that form: refused, nothing opened.
    let form = [("t", token.as_str())];
    let forged =
        browser.post_with("/family/open", &form, &[("sec-fetch-site", "cross-site")]).await;
    assert_eq!(forged.status, 403, "{}", forged.body);
    assert!(forged.headers.get(SET_COOKIE).is_none());
    // The member taps the button on hearth's own page: the link opens, once.
    let tapped =
        browser.post_with("/family/open", &form, &[("sec-fetch-site", "same-origin")]).await;
    assert_eq!(tapped.status, 303, "{}", tapped.body);
    browser.cookie = tapped.headers[SET_COOKIE]
        .to_str()
        .ok()
        .and_then(|c| c.split(';').next())
        .map(str::to_string);
    assert_eq!(browser.get("/family").await.status, 200);
    let again = Browser::new(&h).post_with("/family/open", &form, &[]).await;
    assert_eq!(again.status, 401, "a link opens once");
    // The member's own navigation (a link tapped in LINE) opens at once.
    let link = mint(&h, in_group(FAMILY, MOM)).await;
    let mut own = Browser::new(&h);
    let request = own.http.get(format!("{}{link}", own.base));
    let opened = own.answer(request.header("sec-fetch-site", "none")).await;
    assert_eq!(opened.status, 303);
    own.cookie = opened.headers[SET_COOKIE]
        .to_str()
        .ok()
        .and_then(|c| c.split(';').next())
        .map(str::to_string);
    assert_eq!(own.get("/family").await.status, 200);
}

#[tokio::test]
async fn a_member_opens_the_page_from_a_card_once_and_sees_that_chat_without_ids_or_scripts() {
    let h = start().await;
    family_things(&h).await;
    let link = mint(&h, in_group(FAMILY, MOM)).await;
    let mut browser = Browser::new(&h);
    let opened = browser.open(&link).await;
    assert_eq!(opened.status, 303);
    assert_eq!(opened.headers[LOCATION], "/family");
    let cookie = opened.headers[SET_COOKIE].to_str().expect("cookie");
    for part in ["HttpOnly", "Secure", "SameSite=Lax", "Path=/family", "Max-Age=2592000"] {
        assert!(cookie.contains(part), "{part} in {cookie}");
    }
    for tab in ["lists", "reminders", "alerts", "memories", "settings", "quota"] {
        let page = browser.get(&format!("/family?tab={tab}")).await;
        assert_eq!(page.status, 200, "{tab}");
        let csp = page.headers["content-security-policy"].to_str().expect("csp");
        assert!(csp.contains("default-src 'none'") && !csp.contains("unsafe"), "{csp}");
        assert!(!page.body.contains("<script"), "{tab}: no script");
        for secret in [MOM, FAMILY, "test-access-token"] {
            assert!(!page.body.contains(secret), "{tab} shows {secret}");
        }
    }
    assert!(browser.get("/family?tab=lists").await.body.contains("牛奶"));
    assert!(browser.get("/family?tab=reminders").await.body.contains("倒垃圾"));
    assert!(browser.get("/family?tab=memories").await.body.contains("阿嬤對花生過敏"));
    // The same link again opens nothing.
    let mut again = Browser::new(&h);
    assert_eq!(again.open(&link).await.status, 401);
    assert!(again.cookie.is_none());
}

#[tokio::test]
async fn an_expired_unknown_or_reused_link_and_a_forged_or_missing_cookie_open_nothing() {
    let h = start().await;
    let link = mint(&h, in_group(FAMILY, MOM)).await;
    h.set_clock("2026-11-30T12:10:01Z"); // ten minutes and a second later
    let mut late = Browser::new(&h);
    assert_eq!(late.open(&link).await.status, 401, "expired");
    let mut unknown = Browser::new(&h);
    assert_eq!(unknown.open(&format!("/family/open?t={}", "a".repeat(64))).await.status, 401);
    assert_eq!(unknown.open("/family/open?t=short").await.status, 401);
    let mut forged = Browser::new(&h);
    forged.cookie = Some(format!("hearth_family={}", "0f".repeat(32)));
    let nobody = Browser::new(&h);
    for browser in [&forged, &nobody] {
        assert_eq!(browser.get("/family").await.status, 401);
        for path in [
            "/family/act",
            "/family/lists",
            "/family/reminders",
            "/family/settings",
            "/family/calendar",
            "/family/logout",
        ] {
            let page = browser
                .post(
                    path,
                    &[
                        ("csrf", &"0".repeat(64)),
                        ("op", "add"),
                        ("item", "x"),
                        ("action", "forget_memory"),
                        ("id", "1"),
                    ],
                )
                .await;
            assert_eq!(page.status, 401, "{path}");
        }
    }
}

#[tokio::test]
async fn another_chat_s_session_never_shows_or_changes_this_chat_on_any_route() {
    let h = start().await;
    family_things(&h).await;
    let store = h.app.store.clone();
    let (list, items) = shopping_list(&store).await;
    let milk = items[0].id;
    let reminder_before = store.reminders().list(FAMILY).await.expect("store")[0].clone();
    let reminder = reminder_before.id;
    let memory = store.memory().memories(FAMILY).await.expect("store")[0].id;
    let party = json!({"action": "add", "title": "阿公生日聚餐", "start": "2026-12-05T12:00"});
    let added = h.call_tool(in_group(FAMILY, MOM), "小幫手 阿公生日", "calendar", party).await;
    let event = added["event"]["id"].to_string();
    let other = signed_in(&h, in_group(OTHER_GROUP, DAD)).await;
    for tab in ["lists", "calendar", "reminders", "alerts", "memories", "settings", "quota"] {
        let page = other.get(&format!("/family?tab={tab}&month=2026-12")).await;
        for theirs in ["牛奶", "倒垃圾", "花生", "阿公生日"] {
            assert!(!page.body.contains(theirs), "{tab} shows the family's {theirs}");
        }
    }
    let csrf = other.get("/family").await.csrf();
    let check = hearth::features::button::encode(&hearth::features::lists::view::CheckListItem {
        list: list.id,
        item: milk,
        lang: hearth::platform::i18n::Lang::ZhTw,
    })
    .expect("data");
    let (milk_id, reminder_id, memory_id) =
        (milk.to_string(), reminder.to_string(), memory.to_string());
    let tries: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("/family/act", vec![("action", "check_list_item"), ("id", &check)]),
        ("/family/act", vec![("action", "forget_memory"), ("id", &memory_id)]),
        ("/family/act", vec![("action", "cancel_reminder"), ("id", &reminder_id)]),
        (
            "/family/act",
            vec![("action", "reminder_move"), ("id", &reminder_id), ("picked", "2026-12-02T09:00")],
        ),
        ("/family/act", vec![("action", "forget_all_memories"), ("id", &memory_id)]),
        ("/family/lists", vec![("op", "uncheck"), ("id", &milk_id)]),
        ("/family/lists", vec![("op", "remove"), ("list", "購物清單"), ("item", "牛奶")]),
        ("/family/reminders", vec![("op", "pause"), ("id", &reminder_id)]),
        ("/family/reminders", vec![("op", "text"), ("id", &reminder_id), ("text", "改掉")]),
        ("/family/calendar", vec![("op", "move"), ("id", &event), ("start", "2026-12-06T12:00")]),
        ("/family/calendar", vec![("op", "cancel"), ("id", &event)]),
    ];
    for (path, mut form) in tries {
        form.push(("csrf", &csrf));
        let page = other.post(path, &form).await;
        assert_eq!(page.status, 303, "{path} {form:?}: {}", page.body);
    }
    let (_, items) = shopping_list(&store).await;
    assert_eq!((items.len(), items[0].checked_at), (1, None), "the milk is untouched");
    let reminders = store.reminders().list(FAMILY).await.expect("store");
    assert_eq!(reminders[0].text, "倒垃圾");
    assert_eq!(reminders[0].status, hearth::store::ReminderStatus::Active);
    assert_eq!(reminders[0].next_fire_at, reminder_before.next_fire_at, "not moved");
    assert_eq!(
        store.memory().memories(FAMILY).await.expect("store").len(),
        1,
        "the memory is kept"
    );
    let events = store.calendar().live(FAMILY).await.expect("store");
    assert_eq!(events.len(), 1, "the event is not cancelled");
    assert_eq!(events[0].starts_local, "2026-12-05T12:00", "nor moved");
}

#[tokio::test]
async fn every_change_needs_the_session_s_csrf_token() {
    let h = start().await;
    let browser = signed_in(&h, in_group(FAMILY, MOM)).await;
    for csrf in ["", "wrong", &"0".repeat(64)] {
        let page =
            browser.post("/family/lists", &[("csrf", csrf), ("op", "add"), ("item", "醬油")]).await;
        assert_eq!(page.status, 403, "csrf {csrf:?}");
    }
    let missing = browser.post("/family/lists", &[("op", "add"), ("item", "醬油")]).await;
    assert!(missing.status >= 400, "no token at all");
    assert!(
        h.app.store.lists().of_chat(FAMILY).await.expect("store").is_empty(),
        "nothing was added"
    );
}

#[tokio::test]
async fn changes_on_the_page_are_the_tools_own_and_the_chat_sees_each_of_them() {
    let h = start().await;
    family_things(&h).await;
    let browser = signed_in(&h, in_group(FAMILY, MOM)).await;
    let csrf = browser.get("/family").await.csrf();
    let post = |path: &'static str, form: Vec<(&'static str, String)>| {
        let mut form = form;
        form.push(("csrf", csrf.clone()));
        let browser = &browser;
        async move {
            let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let page = browser.post(path, &pairs).await;
            assert_eq!(page.status, 303, "{path}: {}", page.body);
            browser.get(page.headers[LOCATION].to_str().expect("location")).await.body
        }
    };
    let add = |item: &str| {
        vec![
            ("op", "add".to_string()),
            ("list", "購物清單".to_string()),
            ("item", item.to_string()),
        ]
    };
    assert!(post("/family/lists", add("雞蛋")).await.contains("已加入"));
    post("/family/lists", add("牛奶")).await; // merged like the tool: 牛奶 ×2
    let too_long = post("/family/lists", add(&"長".repeat(300))).await;
    assert!(too_long.contains("沒有改"), "the tool's own cap: {too_long}");
    let store = &h.app.store;
    let (list, items) = shopping_list(store).await;
    let egg = items.iter().find(|i| i.name == "雞蛋").expect("egg").id;
    assert_eq!(items.iter().find(|i| i.name == "牛奶").map(|i| i.quantity), Some(2));
    let check = hearth::features::button::encode(&hearth::features::lists::view::CheckListItem {
        list: list.id,
        item: egg,
        lang: hearth::platform::i18n::Lang::ZhTw,
    })
    .expect("data");
    post(
        "/family/act",
        vec![("action", "check_list_item".into()), ("id", check), ("tab", "lists".into())],
    )
    .await;
    post("/family/lists", vec![("op", "uncheck".into()), ("id", egg.to_string())]).await;
    let shown = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 購物清單有什麼",
            "list",
            json!({"action": "show", "list": null, "items": null, "only_checked": null}),
        )
        .await;
    let open: Vec<&str> = shown["list"]["open"]
        .as_array()
        .expect("open")
        .iter()
        .filter_map(|i| i["name"].as_str())
        .collect();
    assert!(open.contains(&"雞蛋") && open.contains(&"牛奶"), "{shown}");

    // A reminder moved, renamed, paused and resumed; the chat's reminders tool sees it.
    let reminder = store.reminders().list(FAMILY).await.expect("store")[0].id;
    let moved = post(
        "/family/act",
        vec![
            ("action", "reminder_move".into()),
            ("id", reminder.to_string()),
            ("picked", "2026-12-01T09:30".into()),
            ("tab", "reminders".into()),
        ],
    )
    .await;
    assert!(moved.contains("09:30"), "{moved}");
    post(
        "/family/reminders",
        vec![("op", "text".into()), ("id", reminder.to_string()), ("text", "倒垃圾和回收".into())],
    )
    .await;
    post("/family/reminders", vec![("op", "pause".into()), ("id", reminder.to_string())]).await;
    assert_eq!(
        store.reminders().list(FAMILY).await.expect("store")[0].status,
        hearth::store::ReminderStatus::Paused
    );
    post("/family/reminders", vec![("op", "resume".into()), ("id", reminder.to_string())]).await;
    let seen = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 有哪些提醒",
            "reminders",
            json!({"action": "show", "id": null, "description": null}),
        )
        .await
        .to_string();
    assert!(seen.contains("倒垃圾和回收") && seen.contains("09:30"), "{seen}");

    // A memory deleted; the settings set through their tools.
    let memory = store.memory().memories(FAMILY).await.expect("store")[0].id;
    post(
        "/family/act",
        vec![
            ("action", "forget_memory".into()),
            ("id", memory.to_string()),
            ("tab", "memories".into()),
        ],
    )
    .await;
    assert!(store.memory().memories(FAMILY).await.expect("store").is_empty());
    let digest = post(
        "/family/settings",
        vec![("op", "digest".into()), ("time", "07:30".into()), ("place", "台北".into())],
    )
    .await;
    assert!(digest.contains("每日摘要已設定"), "{digest}");
    post(
        "/family/settings",
        vec![("op", "quiet".into()), ("start", "22:00".into()), ("end", "07:00".into())],
    )
    .await;
    assert_eq!(
        store.digests().get(FAMILY).await.expect("store").map(|d| d.local_time),
        Some("07:30".into())
    );
    assert!(store.chats().quiet_hours(FAMILY).await.expect("store").is_some());
    let wrong = post(
        "/family/settings",
        vec![("op", "quiet".into()), ("start", "25:00".into()), ("end", "07:00".into())],
    )
    .await;
    assert!(wrong.contains("沒有改"), "the tool's own validation: {wrong}");
}

#[tokio::test]
async fn what_a_member_adds_and_checks_on_the_page_reads_as_theirs_in_the_chat_s_next_list_card() {
    let h = start().await;
    family_things(&h).await; // 媽媽 put 牛奶 on the list in the chat
    let browser = signed_in(&h, in_group(FAMILY, DAD)).await;
    let csrf = browser.get("/family").await.csrf();
    let added =
        browser.post("/family/lists", &[("csrf", &csrf), ("op", "add"), ("item", "衛生紙")]).await;
    assert_eq!(added.status, 303, "{}", added.body);
    let (list, items) = shopping_list(&h.app.store).await;
    let milk = items.iter().find(|i| i.name == "牛奶").expect("牛奶").id;
    let check = hearth::features::button::encode(&hearth::features::lists::view::CheckListItem {
        list: list.id,
        item: milk,
        lang: hearth::platform::i18n::Lang::ZhTw,
    })
    .expect("data");
    let checked = browser
        .post("/family/act", &[("csrf", &csrf), ("action", "check_list_item"), ("id", &check)])
        .await;
    assert_eq!(checked.status, 303, "{}", checked.body);

    let (_, items) = shopping_list(&h.app.store).await;
    let by = |name: &str| items.iter().find(|i| i.name == name).expect(name).clone();
    assert_eq!(by("衛生紙").added_by_name.as_deref(), Some("爸爸"));
    assert_eq!(by("牛奶").checked_by_name.as_deref(), Some("爸爸"));
    h.call_tool(
        in_group(FAMILY, MOM),
        "小幫手 購物清單有什麼",
        "list",
        json!({"action": "show", "list": null, "items": null, "only_checked": null}),
    )
    .await;
    let card = h.line.replies().last().expect("the list card").body.to_string();
    assert!(card.contains("衛生紙") && card.contains("✓ 爸爸"), "{card}");
    assert!(!card.contains("有人"), "nobody is anonymous: {card}");
}

#[tokio::test]
async fn forgetting_everything_takes_a_confirm_and_a_button_outside_the_page_list_is_refused() {
    let h = start().await;
    family_things(&h).await;
    let browser = signed_in(&h, in_group(FAMILY, MOM)).await;
    let page = browser.get("/family?tab=memories").await;
    assert!(!page.body.contains("確定全部忘記"), "no confirm button before asking");
    let confirm = browser.get("/family?tab=memories&confirm=1").await;
    assert!(confirm.body.contains("確定全部忘記"));
    let csrf = confirm.csrf();
    let odd = browser
        .post("/family/act", &[("csrf", &csrf), ("action", "confirm_call"), ("id", "1")])
        .await;
    assert_eq!(odd.status, 303);
    let said = browser.get("/family").await.body;
    assert!(said.contains("不能在網頁上用"), "{said}");
}

#[tokio::test]
async fn signing_out_ends_the_session_and_forgetting_the_chat_ends_every_session_of_it() {
    let h = start().await;
    let mom = signed_in(&h, in_group(FAMILY, MOM)).await;
    let dad = signed_in(&h, in_group(FAMILY, DAD)).await;
    let csrf = mom.get("/family").await.csrf();
    let out = mom.post("/family/logout", &[("csrf", &csrf)]).await;
    assert_eq!(out.status, 200);
    assert!(out.headers[SET_COOKIE].to_str().expect("cookie").contains("Max-Age=0"));
    assert_eq!(mom.get("/family").await.status, 401, "signed out");
    assert_eq!(dad.get("/family").await.status, 200, "Dad's session is his own");
    h.app.store.forget_conversation(FAMILY).await.expect("forget");
    assert_eq!(dad.get("/family").await.status, 401, "the chat was forgotten");
}

#[tokio::test]
async fn the_page_limits_requests_per_session_and_refuses_a_large_form() {
    let h = start().await;
    let browser = signed_in(&h, in_group(FAMILY, MOM)).await;
    let mut statuses: HashMap<u16, usize> = HashMap::new();
    for _ in 0..80 {
        *statuses.entry(browser.get("/family").await.status).or_default() += 1;
    }
    assert!(statuses.get(&429).copied().unwrap_or(0) > 0, "{statuses:?}");
    let other = signed_in(&h, in_group(OTHER_GROUP, DAD)).await;
    let big = "x".repeat(20 * 1024);
    let page = other.post("/family/lists", &[("csrf", "x"), ("op", "add"), ("item", &big)]).await;
    assert_eq!(page.status, 413);
}

#[tokio::test]
async fn without_a_public_address_cards_carry_no_page_button() {
    let h = Harness::start().await;
    h.call_tool(
        in_group(FAMILY, MOM),
        "小幫手 購物清單有什麼",
        "list",
        json!({"action": "show", "list": null, "items": null, "only_checked": null}),
    )
    .await;
    let card = h.line.replies().last().expect("a reply").body.clone();
    assert!(postback_data(&card, "open_page").is_none());
}

/// The Python with Selenium that drives Chromium (`.ci/run` makes it).
fn browser_python() -> String {
    std::env::var("HEARTH_BROWSER_PYTHON").unwrap_or_else(|_| "target/ci-venv/bin/python".into())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs chromium, chromedriver and Selenium (HEARTH_BROWSER_PYTHON): .ci/run installs them"]
async fn in_a_real_browser_a_member_adds_checks_moves_and_deletes_and_the_chat_sees_each_change() {
    let h = start().await;
    family_things(&h).await;
    let group = in_group(FAMILY, MOM);
    let url = format!("https://example.com/{}", "recipes-for-grandma-".repeat(12));
    let fact = format!("阿嬤的食譜在 {url}");
    let kept = h
        .call_tool(
            group.clone(),
            "小幫手 記得食譜網址",
            "memory",
            json!({"action": "remember", "fact": fact}),
        )
        .await;
    assert!(kept.get("error").is_none(), "{kept}");
    h.quote("2330", 1000.0);
    let alert = h
        .call_tool(group.clone(), "小幫手 台積電漲到1100通知我", "price_alert", json!({"symbol": "2330", "direction": "rises_to", "level": 1100.0, "frequency": null, "accept_cost": null}))
        .await;
    assert!(alert.get("error").is_none(), "{alert}");
    h.call_tool(group.clone(), "小幫手 每個初一十五提醒拜拜", "reminder", json!({"text": "拜拜", "at": "2026-11-30T07:00", "repeat": {"every": "lunar_monthly", "interval": null, "weekdays": null, "day_of_month": null, "count": null, "until": null, "lunar": {"days": [1, 15], "month": null, "leap": null, "days_before": null}}})).await;
    h.call_tool(
        group.clone(),
        "小幫手 每天七點摘要",
        "digest",
        json!({"time": "07:00", "place": "台北", "only_when_something": null, "off": null}),
    )
    .await;
    h.call_tool(
        group.clone(),
        "小幫手 晚上十點到七點不要吵",
        "quiet_hours",
        json!({"start": "22:00", "end": "07:00", "off": null}),
    )
    .await;
    let link = mint(&h, group.clone()).await;
    let shots =
        std::env::var("HEARTH_SCREENSHOTS").unwrap_or_else(|_| "target/tmp/family-page".into());
    let (base, python) = (h.url.clone(), browser_python());
    let run = tokio::task::spawn_blocking(move || {
        std::process::Command::new(python)
            .args(["scripts/browser_family_page.py", &base, &link, &shots])
            .output()
            .expect("run the browser (HEARTH_BROWSER_PYTHON: a Python with selenium)")
    })
    .await
    .expect("browser");
    let (stdout, stderr) =
        (String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    assert!(run.status.success() && stdout.contains("\"ok\": true"), "{stdout}\n{stderr}");

    let list = h
        .call_tool(
            group.clone(),
            "小幫手 購物清單有什麼",
            "list",
            json!({"action": "show", "list": null, "items": null, "only_checked": null}),
        )
        .await
        .to_string();
    assert!(list.contains("醬油") && list.contains("衛生紙"), "both added: {list}");
    let (_, items) = shopping_list(&h.app.store).await;
    let tissue = items.iter().find(|i| i.name == "衛生紙").expect("衛生紙");
    assert!(tissue.checked_at.is_some(), "checked off");
    let reminders = h
        .call_tool(
            group.clone(),
            "小幫手 有哪些提醒",
            "reminders",
            json!({"action": "show", "id": null, "description": null}),
        )
        .await
        .to_string();
    assert!(reminders.contains("09:30"), "moved: {reminders}");
    let memories = h
        .call_tool(group.clone(), "小幫手 你記得什麼", "memory", json!({"action": "show"}))
        .await
        .to_string();
    assert!(!memories.contains("花生"), "deleted: {memories}");
    let asked = json!({"action": "agenda", "start": "2026-12-01", "end": "2026-12-31"});
    let agenda = h.call_tool(group, "小幫手 十二月的行程", "calendar", asked).await;
    let event = &agenda["events"][0];
    assert_eq!(
        (&event["title"], &event["start"], &event["place"]),
        (&json!("阿公生日聚餐"), &json!("2026-12-06T12:00"), &json!("欣葉")),
        "{agenda}"
    );
    let told: Vec<String> = h
        .line
        .pushes()
        .iter()
        .filter(|p| p.body["to"] == FAMILY)
        .map(|p| p.body.to_string())
        .collect();
    assert_eq!(
        told.iter().filter(|t| t.contains("改了行程")).count(),
        1,
        "the move is told once: {told:?}"
    );
}

const LIFF: &str = "1234567890-AbCdEfGh";

/// `member` taps 🏠 with a LIFF app configured; the token of the LIFF link hearth answers with.
async fn mint_liff(h: &Harness, source: Value) -> String {
    let tapped = tap_open_page(h, source).await;
    assert!(tapped.pushes.is_empty(), "a LIFF link is answered where it was asked for");
    let text = tapped.reply;
    let prefix = format!("https://liff.line.me/{LIFF}?t=");
    let at = text.find(&prefix).expect("a LIFF link") + prefix.len();
    text[at..at + 64].to_string()
}

#[tokio::test]
async fn with_a_liff_app_a_link_counts_only_for_the_member_line_verifies() {
    let h = Harness::start_with(
        |c| {
            c.server.public_url = Some(PUBLIC.into());
            c.page.liff_id = LIFF.into();
        },
        None,
    )
    .await;
    members_known(&h);
    h.line.set_id_token("mom-token", MOM, "1234567890");
    h.line.set_id_token("dad-token", DAD, "1234567890");
    h.line.set_id_token("mom-elsewhere", MOM, "999");
    let token = mint_liff(&h, in_group(FAMILY, MOM)).await;
    let mut browser = Browser::new(&h);
    let page = browser.get(&format!("/family/liff?t={token}")).await;
    assert_eq!(page.status, 200);
    let csp = page.headers["content-security-policy"].to_str().expect("csp");
    assert!(
        csp.contains("script-src 'self' https://static.line-scdn.net") && !csp.contains("unsafe"),
        "{csp}"
    );
    assert!(page.body.contains(&format!("data-liff-id=\"{LIFF}\"")), "{}", page.body);
    assert!(page.body.contains("<script src=\"/family/liff.js\"></script>"), "no inline script");
    assert!(browser.get("/family/liff.js").await.body.contains("liff.getIDToken()"));

    assert_eq!(liff_sign_in(&browser, &token, "forged").await.status, 401, "LINE did not issue it");
    assert_eq!(
        liff_sign_in(&browser, &token, "mom-elsewhere").await.status,
        401,
        "another channel's"
    );
    let dad = liff_sign_in(&browser, &token, "dad-token").await;
    assert_eq!(dad.status, 403, "Mom's link opened by Dad");
    assert_eq!(liff_sign_in(&browser, &token, "mom-token").await.status, 401, "and it is used up");

    let token = mint_liff(&h, in_group(FAMILY, MOM)).await;
    let opened = liff_sign_in(&browser, &token, "mom-token").await;
    assert_eq!(opened.status, 303, "{}", opened.body);
    browser.cookie = opened.headers[SET_COOKIE]
        .to_str()
        .ok()
        .and_then(|c| c.split(';').next())
        .map(str::to_string);
    assert_eq!(browser.get("/family").await.status, 200);
    let verified = h.line.requests().iter().filter(|r| r.path == "/oauth2/v2.1/verify").count();
    assert_eq!(verified, 5, "each sign-in asked LINE");
}

#[tokio::test]
async fn without_a_liff_app_its_routes_are_not_there() {
    let h = start().await;
    let browser = Browser::new(&h);
    assert_eq!(browser.get("/family/liff").await.status, 404);
    assert_eq!(browser.get("/family/liff.js").await.status, 404);
    let page = browser.post("/family/liff", &[("t", &"a".repeat(64)), ("id_token", "x")]).await;
    assert_eq!(page.status, 404);
}

/// The LIFF page's sign-in: the link's token with an ID token.
async fn liff_sign_in(browser: &Browser, token: &str, id_token: &str) -> Page {
    browser.post("/family/liff", &[("t", token), ("id_token", id_token)]).await
}

#[tokio::test]
async fn with_a_liff_app_a_forwarded_link_opened_at_the_plain_door_gets_nothing_and_stays_the_member_s()
 {
    let h = Harness::start_with(
        |c| {
            c.server.public_url = Some(PUBLIC.into());
            c.page.liff_id = LIFF.into();
        },
        None,
    )
    .await;
    members_known(&h);
    h.line.set_id_token("mom-token", MOM, "1234567890");
    let token = mint_liff(&h, in_group(FAMILY, MOM)).await;
    let mut stranger = Browser::new(&h);
    let refused = stranger.open(&format!("/family/open?t={token}")).await;
    assert_eq!(refused.status, 401, "no session without LINE's ID token");
    assert!(stranger.cookie.is_none());
    assert_eq!(stranger.get("/family").await.status, 401);
    let mom = Browser::new(&h);
    let opened = liff_sign_in(&mom, &token, "mom-token").await;
    assert_eq!(opened.status, 303, "the refused try did not use the link up: {}", opened.body);
}

#[tokio::test]
async fn a_link_opens_only_through_the_door_it_was_minted_for_and_the_other_door_leaves_it_unused()
{
    use hearth::features::family_page::{new_token, token_hash};
    use hearth::store::{LinkDoor, WebMember};
    let h = start().await;
    let store = &h.app.store;
    let now = h.now_ms();
    let member = WebMember {
        conversation_id: FAMILY.into(),
        user_id: MOM.into(),
        lang: hearth::platform::i18n::Lang::ZhTw,
    };
    for (minted, other) in [(LinkDoor::Plain, LinkDoor::Liff), (LinkDoor::Liff, LinkDoor::Plain)] {
        let hash = token_hash(&new_token());
        store
            .web_sessions()
            .mint_link(&hash, &member, minted, now, now + 600_000)
            .await
            .expect("mint");
        assert_eq!(
            store.web_sessions().take_link(&hash, other, now).await.expect("take"),
            None,
            "{other:?}"
        );
        let taken = store.web_sessions().take_link(&hash, minted, now).await.expect("take");
        assert_eq!(taken.as_ref(), Some(&member), "{minted:?} after a try at {other:?}");
        assert_eq!(
            store.web_sessions().take_link(&hash, minted, now).await.expect("take"),
            None,
            "once"
        );
    }
}

/// A stranger's try at a made-up link, forwarded for `forwarded_for` when given; the status.
async fn bogus_link(h: &Harness, forwarded_for: Option<&str>) -> u16 {
    let token = hearth::features::family_page::new_token();
    let mut request = Browser::new(h).http.get(format!("{}/family/open?t={token}", h.url));
    if let Some(address) = forwarded_for {
        request = request.header("x-forwarded-for", address);
    }
    request.send().await.expect("request").status().as_u16()
}

#[tokio::test]
async fn a_stranger_s_bogus_links_and_cookies_from_the_family_s_address_never_answer_its_session_429()
 {
    let h = start().await;
    // Behind a proxy nobody trusted, everyone comes from one address: here, 127.0.0.1.
    let family = signed_in(&h, in_group(FAMILY, MOM)).await;
    let mut forged = Browser::new(&h);
    forged.cookie = Some(format!("hearth_family={}", "0f".repeat(32)));
    let (mut stranger, mut loads): (HashMap<u16, usize>, HashMap<u16, usize>) = Default::default();
    // 180 of the stranger's among 20 of the family's: more than any one address's burst.
    for _ in 0..20 {
        for _ in 0..8 {
            *stranger.entry(bogus_link(&h, None).await).or_default() += 1;
        }
        *stranger.entry(forged.get("/family").await.status).or_default() += 1;
        *loads.entry(family.get("/family").await.status).or_default() += 1;
    }
    assert!(stranger.get(&429).copied().unwrap_or(0) >= 100, "the flood is limited: {stranger:?}");
    assert_eq!(loads, HashMap::from([(200, 20)]), "the family's page, every time");
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_address_has_its_own_bucket_and_nobody_else_s_header_counts()
 {
    let h = Harness::start_with(
        |c| {
            c.server.public_url = Some(PUBLIC.into());
            c.page.trusted_proxies = "127.0.0.1".parse().expect("ranges");
        },
        None,
    )
    .await;
    members_known(&h);
    // The client writes what it likes left of the proxy's entry; only the proxy's counts.
    let mut flood: HashMap<u16, usize> = HashMap::new();
    for n in 0..40 {
        let forwarded = format!("198.51.100.{n}, 203.0.113.7");
        *flood.entry(bogus_link(&h, Some(&forwarded)).await).or_default() += 1;
    }
    assert!(flood.get(&429).copied().unwrap_or(0) > 0, "203.0.113.7 is limited: {flood:?}");
    assert_eq!(bogus_link(&h, Some("198.51.100.9")).await, 401, "another address is not limited");
    // A member opening a link from another address gets in.
    let link = mint(&h, in_group(FAMILY, MOM)).await;
    let member = Browser::new(&h);
    let opened = member
        .answer(member.http.get(format!("{}{link}", h.url)).header("x-forwarded-for", "192.0.2.4"))
        .await;
    assert_eq!(opened.status, 303, "{}", opened.body);

    // The same requests from a peer that is not a trusted proxy: its header is ignored.
    let h = Harness::start_with(
        |c| {
            c.server.public_url = Some(PUBLIC.into());
            c.page.trusted_proxies = "10.0.0.0/8".parse().expect("ranges");
        },
        None,
    )
    .await;
    members_known(&h);
    let mut rotating: HashMap<u16, usize> = HashMap::new();
    for n in 0..40 {
        let address = format!("198.51.100.{n}");
        *rotating.entry(bogus_link(&h, Some(&address)).await).or_default() += 1;
    }
    assert!(rotating.get(&429).copied().unwrap_or(0) > 0, "one bucket for the peer: {rotating:?}");
}

#[tokio::test]
async fn a_change_sent_from_another_site_is_refused_even_with_the_right_csrf_token() {
    let h = start().await;
    let browser = signed_in(&h, in_group(FAMILY, MOM)).await;
    let csrf = browser.get("/family").await.csrf();
    let add = [("csrf", csrf.as_str()), ("op", "add"), ("item", "醬油")];
    let from_elsewhere: [&[(&str, &str)]; 5] = [
        &[("sec-fetch-site", "cross-site")],
        &[("sec-fetch-site", "same-site"), ("origin", "https://kids.hearth.example")],
        &[("origin", "https://evil.example")],
        &[("origin", "http://hearth.example")],
        &[("sec-fetch-site", "cross-site"), ("origin", "null")],
    ];
    for headers in from_elsewhere {
        let page = browser.post_with("/family/lists", &add, headers).await;
        assert_eq!(page.status, 403, "{headers:?}");
        let out = browser.post_with("/family/logout", &[("csrf", &csrf)], headers).await;
        assert_eq!(out.status, 403, "{headers:?}");
    }
    assert!(
        h.app.store.lists().of_chat(FAMILY).await.expect("store").is_empty(),
        "nothing was added"
    );
    assert_eq!(browser.get("/family").await.status, 200, "still signed in");
    // The page's own forms, as a browser sends them, and a client that says nothing.
    let own: [&[(&str, &str)]; 3] = [
        &[("sec-fetch-site", "same-origin"), ("origin", PUBLIC)],
        &[("sec-fetch-site", "same-origin"), ("origin", "null")],
        &[],
    ];
    for headers in own {
        let page = browser.post_with("/family/lists", &add, headers).await;
        assert_eq!(page.status, 303, "{headers:?}: {}", page.body);
    }
    let (_, items) = shopping_list(&h.app.store).await;
    assert_eq!(items.iter().map(|i| i.quantity).sum::<i64>(), 3, "added three times");
}

#[tokio::test]
async fn in_a_group_the_link_goes_privately_to_the_member_who_tapped_and_the_push_is_counted() {
    let h = start().await;
    let before = h.app.quota.standing().await.expect("standing").used;
    // `mint` checks it: one push, to Mom's 1:1 chat, and no link in the group's answer.
    let link = mint(&h, in_group(FAMILY, MOM)).await;
    let group = h.line.replies().last().expect("the group's answer").body.to_string();
    assert!(group.contains("私訊給 媽媽"), "the group is told: {group}");
    assert!(
        postback_data(&h.line.replies().last().expect("answer").body, "end_page_sessions")
            .is_some(),
        "sign-out stays in the group"
    );
    let pushed = h.line.pushes().last().expect("the push").body.clone();
    assert_eq!(pushed["messages"].as_array().map(Vec::len), Some(1), "one message");
    assert!(pushed.to_string().contains("只私訊給你"), "the card says it is theirs: {pushed}");
    let after = h.app.quota.standing().await.expect("standing").used;
    assert_eq!(after - before, 1, "the push is counted in the month's quota");
    // It opens the group's page, as Mom.
    let mut mom = Browser::new(&h);
    assert_eq!(mom.open(&link).await.status, 303);
    h.call_tool(in_group(FAMILY, DAD), "小幫手 牛奶", "list", json!({"action": "add", "list": null, "items": [{"name": "牛奶", "quantity": null}], "only_checked": null})).await;
    assert!(mom.get("/family?tab=lists").await.body.contains("牛奶"));
}

#[tokio::test]
async fn a_link_tapped_for_in_a_group_is_not_pushed_to_the_member_s_revoked_one_to_one_chat() {
    let h = start().await;
    befriend(&h, MOM).await;
    h.app.store.access().revoke_chat(MOM, h.now_ms()).await.expect("mom's 1:1 chat revoked");
    let before = h.app.quota.standing().await.expect("standing").used;
    let tapped = tap_open_page(&h, in_group(FAMILY, MOM)).await;
    assert!(tapped.pushes.is_empty(), "nothing pushed to a revoked chat: {:?}", tapped.pushes);
    assert!(!tapped.reply.contains("/family/open"), "nor posted in the group: {}", tapped.reply);
    assert!(tapped.reply.contains("停用"), "she is told why: {}", tapped.reply);
    let after = h.app.quota.standing().await.expect("standing").used;
    assert_eq!(after, before, "nothing charged");
    h.app.store.access().approve_chat(MOM, "cli", h.now_ms()).await.expect("approved again");
    let tapped = tap_open_page(&h, in_group(FAMILY, MOM)).await;
    let to: Vec<&str> = tapped.pushes.iter().map(|(to, _)| to.as_str()).collect();
    assert_eq!(to, [MOM], "approved again, the next tap's link reaches her: {}", tapped.reply);
}

#[tokio::test]
async fn in_a_group_a_member_without_hearth_as_a_friend_gets_no_link_and_is_told_how_to_get_one() {
    let h = start().await;
    h.line.set_not_friend(MOM);
    let links_before = h.line.pushes().len();
    let tapped = tap_open_page(&h, in_group(FAMILY, MOM)).await;
    assert!(tapped.pushes.is_empty() && h.line.pushes().len() == links_before, "nothing pushed");
    assert!(
        !tapped.reply.contains("/family/open") && !tapped.reply.contains("t="),
        "{}",
        tapped.reply
    );
    assert!(tapped.reply.contains("加為好友"), "{}", tapped.reply);
    // In Mom's own 1:1 chat the answer is the link, as before.
    assert!(plain_link(&tap_open_page(&h, in_dm(MOM)).await.reply).is_some());
}

#[tokio::test]
async fn when_the_month_cannot_pay_the_link_is_neither_pushed_nor_posted_in_the_group() {
    let h = start().await;
    h.line.set_quota(Some(200));
    h.line.set_quota_used(200);
    h.app.quota.refresh().await;
    befriend(&h, MOM).await;
    let tapped = tap_open_page(&h, in_group(FAMILY, MOM)).await;
    assert!(tapped.pushes.is_empty(), "{:?}", tapped.pushes);
    assert!(!tapped.reply.contains("/family/open"), "{}", tapped.reply);
    assert!(tapped.reply.contains("額度用完"), "{}", tapped.reply);
}

#[tokio::test]
async fn with_a_liff_app_the_group_s_answer_is_a_link_only_the_tapper_can_open() {
    let h = Harness::start_with(
        |c| {
            c.server.public_url = Some(PUBLIC.into());
            c.page.liff_id = LIFF.into();
        },
        None,
    )
    .await;
    members_known(&h);
    h.line.set_not_friend(MOM);
    h.line.set_id_token("mom-token", MOM, "1234567890");
    h.line.set_id_token("dad-token", DAD, "1234567890");
    let tapped = tap_open_page(&h, in_group(FAMILY, MOM)).await;
    assert!(tapped.pushes.is_empty(), "free: answered in the group");
    assert!(tapped.reply.contains("只有你能打開"), "{}", tapped.reply);
    let token = mint_liff(&h, in_group(FAMILY, MOM)).await;
    let browser = Browser::new(&h);
    assert_eq!(liff_sign_in(&browser, &token, "dad-token").await.status, 403, "not Dad's");
    let token = mint_liff(&h, in_group(FAMILY, MOM)).await;
    assert_eq!(liff_sign_in(&browser, &token, "mom-token").await.status, 303);
}

#[tokio::test]
async fn the_changes_tab_shows_who_changed_what_and_from_where_newest_first() {
    let h = start().await;
    family_things(&h).await; // 媽媽 put 牛奶 on the list in the chat
    let browser = signed_in(&h, in_group(FAMILY, DAD)).await;
    let csrf = browser.get("/family").await.csrf();
    let (list, items) = shopping_list(&h.app.store).await;
    let milk = items.iter().find(|i| i.name == "牛奶").expect("牛奶").id;
    let check = hearth::features::button::encode(&hearth::features::lists::view::CheckListItem {
        list: list.id,
        item: milk,
        lang: hearth::platform::i18n::Lang::ZhTw,
    })
    .expect("data");
    let checked = browser
        .post("/family/act", &[("csrf", &csrf), ("action", "check_list_item"), ("id", &check)])
        .await;
    assert_eq!(checked.status, 303, "{}", checked.body);
    // Checked again: it already was, so nothing more is recorded.
    let again = browser
        .post("/family/act", &[("csrf", &csrf), ("action", "check_list_item"), ("id", &check)])
        .await;
    assert_eq!(again.status, 303, "{}", again.body);

    let page = browser.get("/family?tab=changes").await;
    assert_eq!(page.status, 200, "{}", page.body);
    let body = page.body;
    let checked_at = body.find("爸爸 在網頁上勾掉了 牛奶").unwrap_or_else(|| panic!("{body}"));
    let added_at = body.find("媽媽 在聊天中加入了 牛奶").unwrap_or_else(|| panic!("{body}"));
    assert!(checked_at < added_at, "newest first: {body}");
    let feed = &body[body.find("最近的變動").expect("the feed")..];
    assert_eq!(feed.matches("勾掉了").count(), 1, "recorded once: {feed}");
    // Another chat's session sees none of it.
    let other = signed_in(&h, in_dm(MOM)).await;
    let theirs = other.get("/family?tab=changes").await.body;
    assert!(!theirs.contains("牛奶"), "{theirs}");
}
