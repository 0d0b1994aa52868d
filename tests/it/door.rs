//! One door, every way in: the access matrix. For each event that ends access — the operator
//! revokes the chat, a member leaves the group, hearth is removed from the group, a person blocks
//! hearth, the chat is forgotten — and each surface — a turn, a button tap, the family page's
//! reads and forms, a link opened, a LIFF sign-in, a phone reading the member's calendar feed, the sync with the
//! family's calendar server,
//! and a push from every loop (a reminder, a
//! price alert, the digest, a care prompt and its escalation, an official alert) — a control
//! shows the surface working before the event, and after it the surface shows, changes and
//! pushes nothing (or, where the issue says so, still works: a member leaving does not end the
//! group's reminders and plans). The matrix is data: [`SURFACES`] × [`EVENTS`], with what each
//! cell expects in [`expected`]. Against the real server with approval on (not `HEARTH_OPEN`).

use jiff::Timestamp;
use reqwest::header::{CONTENT_TYPE, COOKIE, SET_COOKIE};
use serde_json::{Value, json};

use crate::common::fake_cap::{self, FakeCap};
use crate::common::harness::{DAD, FAMILY, Harness, MOM, in_dm, in_group, text_message, texts_of};
use hearth::features::family_page::{LINK_TTL, new_token, token_hash};
use hearth::platform::clock::Clock;
use hearth::platform::i18n::Lang;
use hearth::store::{LinkDoor, WebMember};

const GRANDMA: &str = "Ua1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
const LIFF: &str = "1234567890-AbCdEfGh";

/// A way into a chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Surface {
    /// A message that calls hearth (a model call).
    Turn,
    /// A button tap that changes something (✓ on a list item).
    Tap,
    /// The family page read with a session opened before the event.
    PageRead,
    /// A form of that session (an item added to the list).
    PageForm,
    /// A link minted before the event, opened after it.
    LinkOpen,
    /// A LIFF sign-in with a link minted before the event.
    LiffOpen,
    /// A daily reminder's push.
    Reminder,
    /// A price alert's push.
    PriceAlert,
    /// The daily digest's push.
    Digest,
    /// A care plan's dose prompt.
    CarePrompt,
    /// A care plan's escalation to the caregivers.
    CareEscalation,
    /// An official alert (a suspension for Taipei).
    OfficialAlert,
    /// The member's calendar feed, read by their phone with a link given before the event.
    CalendarFeed,
    /// The sync of the chat's calendar with the family's calendar server (a round of the loop
    /// that tries the server, unreachable here: a chat it tries counts as let through).
    CalendarServer,
}

/// Every surface, in the order the matrix tries them.
const SURFACES: &[Surface] = &[
    Surface::Turn,
    Surface::Tap,
    Surface::PageRead,
    Surface::PageForm,
    Surface::LinkOpen,
    Surface::LiffOpen,
    Surface::CalendarFeed,
    Surface::CalendarServer,
    // The loops in the order of their times of day (07:00 to 11:01).
    Surface::Digest,
    Surface::Reminder,
    Surface::CarePrompt,
    Surface::CareEscalation,
    Surface::PriceAlert,
    Surface::OfficialAlert,
];

/// What ends access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closing {
    /// `hearth revoke` of the group.
    Revoke,
    /// The page's member leaves the group (`memberLeft`).
    MemberLeft,
    /// hearth is removed from the group (`leave`), then invited back.
    HearthRemoved,
    /// The person blocks hearth (`unfollow`) in their 1:1 chat, then unblocks it.
    Block,
    /// The chat is forgotten (what removal and blocking do).
    Forget,
}

/// Every event, in the order of the tests below.
const EVENTS: &[Closing] = &[
    Closing::Revoke,
    Closing::MemberLeft,
    Closing::HearthRemoved,
    Closing::Block,
    Closing::Forget,
];

/// What a cell expects after the event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Nothing shown, changed or pushed.
    Closed,
    /// Still works, and why.
    Stays(&'static str),
}

/// The matrix: what `surface` does after `event`.
fn expected(surface: Surface, event: Closing) -> Expect {
    use Surface::*;
    match (event, surface) {
        (Closing::MemberLeft, PageRead | PageForm | LinkOpen | LiffOpen | CalendarFeed) => {
            Expect::Closed
        }
        (Closing::MemberLeft, Turn | Tap) => {
            Expect::Stays("the group is still served for those in it")
        }
        (Closing::MemberLeft, _) => {
            Expect::Stays("what was set in the group stays, for the group to change")
        }
        _ => Expect::Closed,
    }
}

/// The chat an event is about: the family group, or the person's own 1:1 chat.
fn chat_of(event: Closing) -> &'static str {
    match event {
        Closing::Block => MOM,
        _ => FAMILY,
    }
}

/// The one who talks and taps, and the one the family page is for, in `chat`.
fn people(chat: &str) -> (&'static str, &'static str) {
    if chat == FAMILY { (MOM, DAD) } else { (MOM, MOM) }
}

fn source(chat: &str, user: &str) -> Value {
    if chat == FAMILY { in_group(FAMILY, user) } else { in_dm(user) }
}

/// A phone's browser on the family page: one cookie, no redirects followed.
struct Browser {
    base: String,
    http: reqwest::Client,
    cookie: Option<String>,
}

impl Browser {
    fn new(h: &Harness) -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        Self { base: h.url.clone(), http, cookie: None }
    }

    /// Status and body of `request`, with the cookie; keeps a cookie it is given.
    async fn send(&mut self, request: reqwest::RequestBuilder) -> (u16, String) {
        let request = match &self.cookie {
            Some(cookie) => request.header(COOKIE, cookie),
            None => request,
        };
        let response = request.send().await.expect("request");
        if let Some(set) = response.headers().get(SET_COOKIE).and_then(|v| v.to_str().ok()) {
            self.cookie = set.split(';').next().map(str::to_string);
        }
        let status = response.status().as_u16();
        (status, response.text().await.expect("body"))
    }

    async fn get(&mut self, path: &str) -> (u16, String) {
        let request = self.http.get(format!("{}{path}", self.base));
        self.send(request).await
    }

    async fn post(&mut self, path: &str, form: &[(&str, &str)]) -> (u16, String) {
        let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
        let request = self
            .http
            .post(format!("{}{path}", self.base))
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body);
        self.send(request).await
    }
}

/// The CSRF token of a page's forms.
fn csrf_of(body: &str) -> String {
    let at = body.find("name=\"csrf\" value=\"").expect("a form") + 19;
    body[at..at + 64].to_string()
}

/// Every postback's data for `action` anywhere in a recorded body.
fn postbacks(body: &Value, action: &str, found: &mut Vec<String>) {
    let prefix = format!("a={action}&");
    match body {
        Value::String(s) if s.starts_with(&prefix) => found.push(s.clone()),
        Value::Object(map) => map.values().for_each(|v| postbacks(v, action, found)),
        Value::Array(items) => items.iter().for_each(|v| postbacks(v, action, found)),
        _ => {}
    }
}

/// A chat of the family with one of everything, and what the probes need before and after.
struct Family {
    h: Harness,
    cap: FakeCap,
    chat: &'static str,
    talker: &'static str,
    member: &'static str,
    /// ✓ buttons of two list items: one tapped before the event, one after.
    taps: Vec<String>,
    /// A browser with a session opened before the event.
    browser: Browser,
    csrf: String,
    /// A link and a LIFF link minted before the event, opened after.
    link: String,
    liff: String,
    /// The path of the member's calendar feed, given before the event (a group's: a 1:1 chat
    /// has no family calendar).
    calendar: Option<String>,
}

impl Family {
    /// hearth with approval on, the page (and a LIFF app) set up, the loops ticked by hand, and
    /// `chat` approved with a reminder, a price alert, a digest, a care plan, official alerts
    /// followed, a list of two items and a page session.
    async fn start(chat: &'static str) -> Self {
        let cap = FakeCap::start().await;
        let feed = cap.feed_url();
        let h = Harness::start_with(
            move |c| {
                c.access.open = false;
                c.server.public_url = Some("https://hearth.example".into());
                c.page.liff_id = LIFF.into();
                c.loops.official_alerts_feed_url = feed;
                c.loops.official_alerts_poll_secs = 0;
                c.loops.official_alerts_request_gap_ms = 0;
                c.loops.price_poll_secs = 0;
                // Nobody listens there: a round that tries the chat fails, one the door
                // stops never tries.
                let port = crate::common::unclaimed_port();
                c.calendar.caldav_url = format!("http://127.0.0.1:{port}/family/");
            },
            None,
        )
        .await;
        let (talker, member) = people(chat);
        let now = h.now_ms();
        h.app.store.access().approve_chat(chat, "cli", now).await.expect("approved");
        for (id, name) in [(MOM, "小美"), (DAD, "哥哥"), (GRANDMA, "阿嬤")] {
            h.line.set_profile(id, name);
            if chat == FAMILY {
                h.app.store.chat_log().save_member(FAMILY, id, name, now).await.expect("member");
            }
        }
        h.line.set_id_token("member-token", member, "1234567890");
        let here = source(chat, talker);
        let reminder = json!({"text": "吃早餐", "at": "2026-12-01T08:00", "repeat": "daily"});
        let r = h.call_tool(here.clone(), "小幫手 每天八點提醒吃早餐", "reminder", reminder).await;
        assert!(r.get("error").is_none(), "{r}");
        h.quote("BTC-USD", 91_000.0);
        h.quote("ETH-USD", 3_000.0);
        for (symbol, level) in [("BTC-USD", 100_000.0), ("ETH-USD", 5_000.0)] {
            let alert = json!({"symbol": symbol, "direction": "rises_to", "level": level});
            let r = h.call_tool(here.clone(), "小幫手 價格通知", "price_alert", alert).await;
            assert!(r.get("error").is_none(), "{r}");
        }
        let digest = json!({"time": "07:00", "place": "台北", "only_when_something": null});
        let r = h.call_tool(here.clone(), "小幫手 每天七點摘要", "digest", digest).await;
        assert!(r.get("error").is_none(), "{r}");
        let follow = json!({"action": "follow", "date": null, "place": null, "min_intensity": null, "quiet_holds_all": null});
        let r =
            h.call_tool(here.clone(), "小幫手 停班停課通知我們", "official_alerts", follow).await;
        assert_eq!(r["following"], true, "{r}");
        let notify = if chat == FAMILY { json!(["我", "哥哥"]) } else { json!(["我"]) };
        let plan = json!({"action": "set", "person": "阿嬤", "what": "血壓藥",
            "times": ["08:00"], "notify": notify, "group_after_minutes": 0});
        let set = h.call_tool(here.clone(), "小幫手 阿嬤八點吃血壓藥", "care", plan).await;
        assert_eq!(set["status"], "draft", "{set}");
        let card = h.line.replies().last().expect("the plan's card").body.clone();
        let mut start = Vec::new();
        postbacks(&card, "care_start", &mut start);
        h.send(vec![h.postback(here.clone(), &start[0])]).await;
        let items = json!({"action": "add", "list": null, "items": [
            {"name": "牛奶", "quantity": null}, {"name": "雞蛋", "quantity": null}], "only_checked": null});
        h.call_tool(here.clone(), "小幫手 牛奶 雞蛋", "list", items).await;
        let card = h.line.replies().last().expect("the list card").body.clone();
        let mut taps = Vec::new();
        postbacks(&card, "check_list_item", &mut taps);
        assert_eq!(taps.len(), 2, "two ✓ buttons: {card}");
        let calendar = if chat == FAMILY {
            let party = json!({"action": "add", "title": "聖誕晚會", "start": "2026-12-24T18:00"});
            h.call_tool(here.clone(), "小幫手 聖誕晚會", "calendar", party).await;
            h.app.quota.note_friend(member, true).await;
            Some(crate::calendar::feed_path(&h, source(chat, member)).await)
        } else {
            None
        };
        let mut family = Self {
            browser: Browser::new(&h),
            h,
            cap,
            chat,
            talker,
            member,
            taps,
            csrf: String::new(),
            link: String::new(),
            liff: String::new(),
            calendar,
        };
        let link = family.mint(LinkDoor::Plain).await;
        let (status, _) = family.browser.get(&format!("/family/open?t={link}")).await;
        assert_eq!(status, 303, "a session opened before the event");
        let (status, page) = family.browser.get("/family").await;
        assert_eq!(status, 200);
        family.csrf = csrf_of(&page);
        family
    }

    /// A link for the page's member in the chat, for `door`, as the 🏠 button mints it.
    async fn mint(&self, door: LinkDoor) -> String {
        let token = new_token();
        let now = self.h.clock.now();
        let expires = now.saturating_add(LINK_TTL).expect("expiry");
        let member = WebMember {
            conversation_id: self.chat.into(),
            user_id: self.member.into(),
            lang: Lang::ZhTw,
        };
        self.h
            .app
            .store
            .web_sessions()
            .mint_link(
                &token_hash(&token),
                &member,
                door,
                now.as_millisecond(),
                expires.as_millisecond(),
            )
            .await
            .expect("minted");
        token
    }

    /// Pushes accepted by LINE so far.
    fn pushed(&self) -> usize {
        self.h.line.accepted_pushes().len()
    }

    /// Tries `surface` once (`round` 0 before the event, 1 after it, a day later for the
    /// loops); true when it got through: something was shown, changed or pushed.
    async fn probe(&mut self, surface: Surface, round: usize) -> bool {
        let h = &self.h;
        let day = ["2026-12-01", "2026-12-02"][round];
        let at = |time: &str| format!("{day}T{time}:00+08:00").parse::<Timestamp>().expect("at");
        match surface {
            Surface::Turn => {
                let before = h.llm.requests().len();
                h.llm.reply_text("在喔");
                let here = source(self.chat, self.talker);
                h.send(vec![h.event(here, text_message("小幫手 在嗎"))]).await;
                h.llm.requests().len() > before
            }
            Surface::Tap => {
                let open = |lists: Vec<hearth::store::ListSummary>| {
                    lists.iter().map(|l| l.open).sum::<i64>()
                };
                let before = open(h.app.store.lists().of_chat(self.chat).await.expect("lists"));
                let here = source(self.chat, self.talker);
                h.send(vec![h.postback(here, &self.taps[round])]).await;
                open(h.app.store.lists().of_chat(self.chat).await.expect("lists")) < before
            }
            Surface::PageRead => {
                let (status, page) = self.browser.get("/family").await;
                status == 200 && page.contains("牛奶")
            }
            Surface::PageForm => {
                let item = ["醬油", "麵粉"][round];
                let form = [("csrf", self.csrf.as_str()), ("op", "add"), ("item", item)];
                self.browser.post("/family/lists", &form).await;
                let items = h.app.store.lists().of_chat(self.chat).await.expect("lists");
                items.iter().map(|l| l.open + l.checked).sum::<i64>() > 2 + round as i64
            }
            Surface::LinkOpen => {
                let link =
                    if round == 0 { self.mint(LinkDoor::Plain).await } else { self.link.clone() };
                let (status, _) = Browser::new(h).get(&format!("/family/open?t={link}")).await;
                status == 303
            }
            Surface::LiffOpen => {
                let link =
                    if round == 0 { self.mint(LinkDoor::Liff).await } else { self.liff.clone() };
                let form = [("t", link.as_str()), ("id_token", "member-token")];
                let (status, _) = Browser::new(h).post("/family/liff", &form).await;
                status == 303
            }
            Surface::CalendarFeed => {
                let Some(path) = &self.calendar else { return false };
                let feed = crate::common::get(format!("{}{path}", h.url)).await;
                let feed = feed.expect("feed");
                feed.status() == 200 && feed.text().await.unwrap_or_default().contains("聖誕晚會")
            }
            Surface::CalendarServer => {
                let sync = h.app.loops.calendar_sync.as_ref().expect("a calendar server");
                let round = sync.tick().await.expect("a round");
                round.chats + round.failed > 0
            }
            Surface::Reminder => {
                let before = self.pushed();
                h.clock.set(at("08:00"));
                h.app.loops.reminders.tick().await.expect("reminders");
                self.pushed() > before
            }
            Surface::CarePrompt => {
                let before = self.pushed();
                h.clock.set(at("08:00"));
                h.app.loops.care.tick().await.expect("care");
                self.pushed() > before
            }
            Surface::CareEscalation => {
                let before = self.pushed();
                h.clock.set(at("08:30"));
                h.app.loops.care.tick().await.expect("care");
                self.pushed() > before
            }
            Surface::Digest => {
                let before = self.pushed();
                h.clock.set(at("07:00"));
                h.app.loops.digests.tick().await.expect("digest");
                self.pushed() > before
            }
            Surface::PriceAlert => {
                let before = self.pushed();
                h.clock.set(at("10:00"));
                h.app.loops.price_alerts.tick().await.expect("alerts");
                h.clock.set(at("10:10"));
                let (symbol, price) = [("BTC-USD", 100_500.0), ("ETH-USD", 5_100.0)][round];
                h.quote(symbol, price);
                h.app.loops.price_alerts.tick().await.expect("alerts");
                self.pushed() > before
            }
            Surface::OfficialAlert => {
                let before = self.pushed();
                let id = format!("dgpa-63-{round}");
                let sent = format!("{day}T11:00:00+08:00");
                let xml = fake_cap::suspension(
                    &id,
                    "Alert",
                    &[],
                    &sent,
                    "臺北市",
                    "63",
                    "明天停止上班、停止上課",
                );
                self.cap.publish(&id, "停班停課", xml);
                h.clock.set(at("11:01"));
                h.app.loops.official_alerts.tick().await.expect("official alerts");
                self.pushed() > before
            }
        }
    }

    /// Mints what is opened after the event, then makes it happen.
    async fn close(&mut self, event: Closing) {
        self.link = self.mint(LinkDoor::Plain).await;
        self.liff = self.mint(LinkDoor::Liff).await;
        let h = &self.h;
        match event {
            Closing::Revoke => {
                // What `hearth revoke` does, on the server's database (another process: the
                // server notices within the half minute it remembers a chat).
                h.app.store.access().revoke_chat(self.chat, h.now_ms()).await.expect("revoked");
            }
            Closing::MemberLeft => {
                let mut left = h.bare("memberLeft", json!({"type": "group", "groupId": FAMILY}));
                left["left"] = json!({"members": [{"type": "user", "userId": self.member}]});
                h.send(vec![left]).await;
            }
            Closing::HearthRemoved => {
                h.send(vec![h.bare("leave", json!({"type": "group", "groupId": FAMILY}))]).await;
                h.send(vec![h.bare("join", json!({"type": "group", "groupId": FAMILY}))]).await;
            }
            Closing::Block => {
                h.send(vec![h.bare("unfollow", in_dm(self.chat))]).await;
                h.send(vec![h.bare("follow", in_dm(self.chat))]).await;
            }
            Closing::Forget => {
                h.app.store.forget_conversation(self.chat).await.expect("forgotten");
            }
        }
        // Past what any process remembers of the chat being served.
        h.clock.advance(jiff::SignedDuration::from_secs(31));
    }
}

/// One row of the matrix: every surface works before `event` and does what [`expected`] says
/// after it.
async fn row(event: Closing) {
    let mut family = Family::start(chat_of(event)).await;
    let mut wrong = Vec::new();
    // A 1:1 chat has no family calendar: its feed and its sync are not ways in there.
    let calendar = [Surface::CalendarFeed, Surface::CalendarServer];
    let applies = |s: &Surface| !calendar.contains(s) || family.calendar.is_some();
    let surfaces: Vec<Surface> = SURFACES.iter().copied().filter(applies).collect();
    for &surface in &surfaces {
        if !family.probe(surface, 0).await {
            wrong.push(format!("{surface:?} did not work before {event:?} (the control)"));
        }
    }
    family.close(event).await;
    for &surface in &surfaces {
        let through = family.probe(surface, 1).await;
        match (expected(surface, event), through) {
            (Expect::Closed, true) => {
                wrong.push(format!("{surface:?} still got in after {event:?}"))
            }
            (Expect::Stays(why), false) => {
                wrong.push(format!("{surface:?} stopped after {event:?}, though {why}"))
            }
            _ => {}
        }
    }
    let said: Vec<String> = family.h.line.sends().iter().map(|r| texts_of(&r.body)).collect();
    assert!(wrong.is_empty(), "{event:?}:\n{}\n(hearth said: {said:?})", wrong.join("\n"));
}

#[test]
fn the_matrix_has_a_cell_for_every_surface_and_event() {
    assert_eq!(SURFACES.len() * EVENTS.len(), 70);
    let closed = EVENTS
        .iter()
        .flat_map(|&e| SURFACES.iter().map(move |&s| expected(s, e)))
        .filter(|e| *e == Expect::Closed)
        .count();
    assert_eq!(closed, 61, "a member leaving closes only their page and their calendar feed");
}

#[tokio::test]
async fn revoking_a_chat_closes_every_door_at_once() {
    row(Closing::Revoke).await;
}

#[tokio::test]
async fn a_member_who_leaves_loses_the_groups_page_and_the_group_keeps_the_rest() {
    row(Closing::MemberLeft).await;
}

#[tokio::test]
async fn hearth_removed_from_a_group_closes_every_door() {
    row(Closing::HearthRemoved).await;
}

#[tokio::test]
async fn a_person_who_blocks_hearth_closes_every_door_of_their_chat() {
    row(Closing::Block).await;
}

#[tokio::test]
async fn a_forgotten_chat_closes_every_door() {
    row(Closing::Forget).await;
}

/// hearth with approval on and `tweak`ed settings.
async fn approval_harness(tweak: impl FnOnce(&mut hearth::platform::config::Config)) -> Harness {
    Harness::start_with(
        |c| {
            c.access.open = false;
            tweak(c);
        },
        None,
    )
    .await
}

/// Says something that calls hearth in `source`; true when the model was asked.
async fn served(h: &Harness, source: Value) -> bool {
    let before = h.llm.requests().len();
    h.llm.reply_text("在喔");
    h.send(vec![h.event(source, text_message("小幫手 在嗎"))]).await;
    h.llm.requests().len() > before
}

#[tokio::test]
async fn a_revoked_chat_on_the_allow_list_stays_revoked_after_blocking_and_unblocking() {
    let h = approval_harness(|c| c.access.allowed_chats = vec![MOM.into()]).await;
    assert!(served(&h, in_dm(MOM)).await, "listed: approved on its first call");
    h.app.store.access().revoke_chat(MOM, h.now_ms()).await.expect("revoked");
    h.clock.advance(jiff::SignedDuration::from_secs(31));
    assert!(!served(&h, in_dm(MOM)).await, "revoked");
    h.send(vec![h.bare("unfollow", in_dm(MOM))]).await;
    h.send(vec![h.bare("follow", in_dm(MOM))]).await;
    assert!(!served(&h, in_dm(MOM)).await, "blocking and unblocking does not undo it");
    let standing = h.app.store.access().chat_standing(MOM).await.expect("read");
    assert_eq!(standing.as_deref(), Some("revoked"));
    h.app.store.access().approve_chat(MOM, "cli", h.now_ms()).await.expect("approved");
    assert!(served(&h, in_dm(MOM)).await, "until the operator approves it again");
}

#[tokio::test]
async fn a_revoked_chat_that_calls_hearth_is_told_nothing_not_even_how_to_be_approved() {
    let h = approval_harness(|c| c.access.allowed_chats = vec![MOM.into()]).await;
    assert!(served(&h, in_dm(MOM)).await, "listed: approved on its first call, never told to wait");
    h.app.store.access().revoke_chat(MOM, h.now_ms()).await.expect("revoked");
    h.clock.advance(jiff::SignedDuration::from_secs(31));
    let (replies, pushes) = (h.line.replies().len(), h.line.pushes().len());
    assert!(!served(&h, in_dm(MOM)).await, "revoked");
    assert_eq!(h.line.replies().len(), replies, "no reply: {:?}", h.line.replies().last());
    assert_eq!(h.line.pushes().len(), pushes, "no push");
    // A chat never approved is told once how to be.
    assert!(!served(&h, in_dm(DAD)).await);
    let told = texts_of(&h.line.replies().last().expect("the notice").body);
    assert!(told.contains(DAD), "the chat's id for `hearth approve`: {told}");
}

#[tokio::test]
async fn a_revoked_group_stays_revoked_when_re_invited_and_an_approved_member_calls_hearth() {
    let h = approval_harness(|_| {}).await;
    h.line.set_profile(MOM, "媽媽");
    h.app.store.access().approve_chat(MOM, "cli", h.now_ms()).await.expect("mom approved");
    assert!(served(&h, in_group(FAMILY, MOM)).await, "mom's call approves the group");
    h.app.store.access().revoke_chat(FAMILY, h.now_ms()).await.expect("revoked");
    h.clock.advance(jiff::SignedDuration::from_secs(31));
    assert!(!served(&h, in_group(FAMILY, MOM)).await, "revoked");
    h.send(vec![h.bare("leave", json!({"type": "group", "groupId": FAMILY}))]).await;
    h.send(vec![h.bare("join", json!({"type": "group", "groupId": FAMILY}))]).await;
    assert!(!served(&h, in_group(FAMILY, MOM)).await, "removing and re-inviting does not undo it");
    let standing = h.app.store.access().chat_standing(FAMILY).await.expect("read");
    assert_eq!(standing.as_deref(), Some("revoked"));
}

#[tokio::test]
async fn a_reminder_due_in_a_revoked_chat_is_not_pushed_nor_charged_told_once_and_resumes_once_approved()
 {
    let h = approval_harness(|_| {}).await;
    h.app.store.access().approve_chat(FAMILY, "cli", h.now_ms()).await.expect("approved");
    let daily = json!({"text": "倒垃圾", "at": "2026-12-01T08:00", "repeat": "daily"});
    let r = h.call_tool(in_group(FAMILY, MOM), "小幫手 每天八點倒垃圾", "reminder", daily).await;
    assert!(r.get("error").is_none(), "{r}");
    h.app.store.access().revoke_chat(FAMILY, h.now_ms()).await.expect("revoked");
    h.set_clock("2026-12-01T00:00:00Z");
    h.app.loops.reminders.tick().await.expect("tick");
    assert!(h.line.pushes().is_empty(), "nothing asked of LINE, so nothing charged");
    let held = h.app.store.access().held_back(FAMILY).await.expect("held back");
    assert_eq!((held.reminders, held.withheld), (1, 1), "kept, and one push withheld");
    let metrics = h.metrics_text().await;
    assert!(metrics.contains("hearth_pushes_withheld_total{reason=\"revoked\"} 1"), "{metrics}");

    h.app.store.access().approve_chat(FAMILY, "cli", h.now_ms()).await.expect("approved again");
    // The family's next reply tells what came due while it was revoked, once, in one message.
    h.set_clock("2026-12-01T02:00:00Z");
    h.llm.reply_text("早安");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 早安")]).await;
    let told = texts_of(&h.line.replies().last().expect("a reply").body);
    assert!(
        told.contains("你錯過的提醒") && told.contains("倒垃圾") && told.contains("08:00"),
        "{told}"
    );
    assert_eq!(told.matches("倒垃圾").count(), 1, "{told}");
    let held = h.app.store.access().held_back(FAMILY).await.expect("held back");
    assert_eq!(held.withheld, 0, "nothing held back any more");
    h.llm.reply_text("好");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 謝謝")]).await;
    let again = texts_of(&h.line.replies().last().expect("a reply").body);
    assert!(!again.contains("倒垃圾"), "told once: {again}");
    h.set_clock("2026-12-02T00:00:00Z");
    h.app.loops.reminders.tick().await.expect("tick");
    assert_eq!(h.line.accepted_pushes().len(), 1, "the next day's occurrence is pushed");
}

#[tokio::test]
async fn hearth_chats_shows_what_a_revoked_chat_holds_back() {
    let db = crate::common::harness::temp_db("door-chats");
    let store = hearth::store::Store::connect(&db).await.expect("store");
    store.access().approve_chat(FAMILY, "cli", 1).await.expect("approved");
    store.access().revoke_chat(FAMILY, 2).await.expect("revoked");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
        .env("DATABASE_URL", &db)
        .args(["chats"])
        .output()
        .expect("run hearth");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains(&format!("revoked   group  {FAMILY}")), "{printed}");
    assert!(printed.contains("held back: nothing"), "{printed}");
}

#[tokio::test]
async fn a_member_line_no_longer_knows_in_the_group_loses_its_page_until_line_knows_them_again() {
    let h = approval_harness(|c| c.server.public_url = Some("https://hearth.example".into())).await;
    h.app.store.access().approve_chat(FAMILY, "cli", h.now_ms()).await.expect("approved");
    let mint = || async {
        let token = new_token();
        let now = h.clock.now();
        let member =
            WebMember { conversation_id: FAMILY.into(), user_id: DAD.into(), lang: Lang::ZhTw };
        let expires = now.saturating_add(LINK_TTL).expect("expiry").as_millisecond();
        h.app
            .store
            .web_sessions()
            .mint_link(&token_hash(&token), &member, LinkDoor::Plain, h.now_ms(), expires)
            .await
            .expect("minted");
        token
    };
    let mut browser = Browser::new(&h);
    let (status, _) = browser.get(&format!("/family/open?t={}", mint().await)).await;
    assert_eq!(status, 303);
    assert_eq!(browser.get("/family").await.0, 200, "the control: the page opens");
    // Dad calls hearth, and LINE answers his profile in the group with 404: he is not in it.
    served(&h, in_group(FAMILY, DAD)).await;
    assert_eq!(browser.get("/family").await.0, 401, "his session was ended");
    let (status, _) = Browser::new(&h).get(&format!("/family/open?t={}", mint().await)).await;
    assert_eq!(status, 403, "and a link for him refused");
    // LINE knows him in the group again.
    h.line.set_profile(DAD, "爸爸");
    served(&h, in_group(FAMILY, DAD)).await;
    let (status, _) = Browser::new(&h).get(&format!("/family/open?t={}", mint().await)).await;
    assert_eq!(status, 303, "a new link opens the page again");
}
