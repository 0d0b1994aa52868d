//! LINE's rich menus: the panel of large buttons under a 1:1 chat. The menu objects hearth
//! sends, and the Messaging API calls that validate, create, list and delete them, upload their
//! image (on the data host, `api-data.line.me`), name them with aliases, make one the default
//! for everyone, and link or unlink one for a single user.

use reqwest::{Method, StatusCode};
use serde::{Deserialize, Serialize};

use super::client::{LineClient, LineError};

/// LINE's limits on a rich menu's image: JPEG or PNG, 800–2500 pixels wide, at least 250 high,
/// width / height at least 1.45, at most 1 MB.
pub mod limits {
    /// The narrowest image.
    pub const MIN_WIDTH: u32 = 800;
    /// The widest image.
    pub const MAX_WIDTH: u32 = 2500;
    /// The lowest image.
    pub const MIN_HEIGHT: u32 = 250;
    /// The smallest width / height.
    pub const MIN_ASPECT: f64 = 1.45;
    /// The most bytes.
    pub const MAX_BYTES: usize = 1024 * 1024;
    /// The longest chat bar text.
    pub const MAX_CHAT_BAR: usize = 14;
    /// The most tappable areas.
    pub const MAX_AREAS: usize = 20;
}

/// A rich menu as created (`POST /v2/bot/richmenu`) and as listed (with its id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RichMenu {
    /// Its id: only in what LINE lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rich_menu_id: Option<String>,
    /// The image's size in pixels.
    pub size: Size,
    /// Shown open when it is first displayed.
    pub selected: bool,
    /// Its name (not shown to people): how hearth recognises its own menus.
    pub name: String,
    /// The text on the chat bar that opens it.
    pub chat_bar_text: String,
    /// The tappable areas.
    pub areas: Vec<Area>,
}

/// Width and height in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Size {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// One tappable area: where, and what a tap does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Area {
    /// Where, in the image's pixels.
    pub bounds: Bounds,
    /// What a tap does.
    pub action: AreaAction,
}

/// A rectangle of the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bounds {
    /// Left.
    pub x: u32,
    /// Top.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// What tapping an area does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum AreaAction {
    /// Sends `text` as the person's own message.
    Message {
        /// For accessibility (≤ 20).
        label: String,
        /// The message (≤ 300).
        text: String,
    },
    /// Sends `data` to the webhook, showing `displayText` as the person's message.
    #[serde(rename_all = "camelCase")]
    Postback {
        /// For accessibility (≤ 20).
        label: String,
        /// Signed postback data (≤ 300).
        data: String,
        /// Shown in the chat as the person's message.
        display_text: String,
    },
}

/// A menu of the channel as listed, read for what hearth needs of it: its id and its name.
/// The rest (its areas, with any action type LINE has — `uri`, `datetimepicker`,
/// `richmenuswitch`…, labels optional) is not read, so another menu of the channel, however it
/// is made, never makes the list unreadable.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedMenu {
    /// Its id.
    pub rich_menu_id: String,
    /// Its name: how hearth recognises its own menus.
    pub name: String,
}

/// `GET /v2/bot/richmenu/list`.
#[derive(Deserialize)]
struct MenuList {
    richmenus: Vec<ListedMenu>,
}

/// `{"richMenuId": …}`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MenuId {
    rich_menu_id: String,
}

/// An alias: a stable name for a menu.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Alias {
    /// The alias (`[a-z0-9_-]{1,32}`).
    pub rich_menu_alias_id: String,
    /// The menu it names.
    pub rich_menu_id: String,
}

/// `GET /v2/bot/richmenu/alias/list`.
#[derive(Deserialize)]
struct AliasList {
    aliases: Vec<Alias>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UpdateAlias<'a> {
    rich_menu_id: &'a str,
}

/// Whether an error is LINE's `404` (nothing by that id).
fn not_found(e: &LineError) -> bool {
    matches!(e, LineError::Rejected { status: StatusCode::NOT_FOUND, .. })
}

impl LineClient {
    /// `DELETE path`.
    async fn remove(&self, path: &str) -> Result<(), LineError> {
        self.succeed(self.request(Method::DELETE, path)).await
    }

    /// Asks LINE whether `menu` is valid, creating nothing.
    pub async fn validate_rich_menu(&self, menu: &RichMenu) -> Result<(), LineError> {
        self.succeed(self.request(Method::POST, "/v2/bot/richmenu/validate").json(menu)).await
    }

    /// Creates `menu`; its id.
    pub async fn create_rich_menu(&self, menu: &RichMenu) -> Result<String, LineError> {
        let id: MenuId = self.post_json("/v2/bot/richmenu", menu).await?;
        Ok(id.rich_menu_id)
    }

    /// Uploads the menu's PNG image to the data host `data_base` (`https://api-data.line.me`).
    pub async fn upload_rich_menu_image(
        &self,
        data_base: &str,
        id: &str,
        png: Vec<u8>,
    ) -> Result<(), LineError> {
        let url = format!("{}/v2/bot/richmenu/{id}/content", data_base.trim_end_matches('/'));
        let request = self.request(Method::POST, &url);
        self.succeed(request.header(reqwest::header::CONTENT_TYPE, "image/png").body(png)).await
    }

    /// Every rich menu of the channel (hearth's and any other).
    pub async fn rich_menus(&self) -> Result<Vec<ListedMenu>, LineError> {
        let list: MenuList = self.get_json("/v2/bot/richmenu/list").await?;
        Ok(list.richmenus)
    }

    /// Deletes menu `id` (LINE unlinks it from everyone); one already gone is not an error.
    pub async fn delete_rich_menu(&self, id: &str) -> Result<(), LineError> {
        match self.remove(&format!("/v2/bot/richmenu/{id}")).await {
            Err(e) if not_found(&e) => Ok(()),
            other => other,
        }
    }

    /// Every alias of the channel.
    pub async fn rich_menu_aliases(&self) -> Result<Vec<Alias>, LineError> {
        let list: AliasList = self.get_json("/v2/bot/richmenu/alias/list").await?;
        Ok(list.aliases)
    }

    /// The menu alias `alias` names; `None` when there is no such alias.
    pub async fn rich_menu_alias(&self, alias: &str) -> Result<Option<String>, LineError> {
        match self.get_json::<Alias>(&format!("/v2/bot/richmenu/alias/{alias}")).await {
            Ok(found) => Ok(Some(found.rich_menu_id)),
            Err(e) if not_found(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Makes `alias` name menu `id`: updated when it exists, created when not.
    pub async fn set_rich_menu_alias(&self, alias: &str, id: &str) -> Result<(), LineError> {
        if self.rich_menu_alias(alias).await?.is_some() {
            let path = format!("/v2/bot/richmenu/alias/{alias}");
            let body = UpdateAlias { rich_menu_id: id };
            return self.succeed(self.request(Method::POST, &path).json(&body)).await;
        }
        let body = Alias { rich_menu_alias_id: alias.to_string(), rich_menu_id: id.to_string() };
        self.succeed(self.request(Method::POST, "/v2/bot/richmenu/alias").json(&body)).await
    }

    /// Deletes `alias`; one already gone is not an error.
    pub async fn delete_rich_menu_alias(&self, alias: &str) -> Result<(), LineError> {
        match self.remove(&format!("/v2/bot/richmenu/alias/{alias}")).await {
            Err(e) if not_found(&e) => Ok(()),
            other => other,
        }
    }

    /// The menu everyone sees unless one is linked to them; `None` when there is none.
    pub async fn default_rich_menu(&self) -> Result<Option<String>, LineError> {
        match self.get_json::<MenuId>("/v2/bot/user/all/richmenu").await {
            Ok(id) => Ok(Some(id.rich_menu_id)),
            Err(e) if not_found(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Makes menu `id` the default for everyone.
    pub async fn set_default_rich_menu(&self, id: &str) -> Result<(), LineError> {
        self.succeed(self.request(Method::POST, &format!("/v2/bot/user/all/richmenu/{id}"))).await
    }

    /// Leaves everyone without a default menu.
    pub async fn cancel_default_rich_menu(&self) -> Result<(), LineError> {
        self.remove("/v2/bot/user/all/richmenu").await
    }

    /// Shows menu `id` to `user_id` instead of the default.
    pub async fn link_rich_menu(&self, user_id: &str, id: &str) -> Result<(), LineError> {
        let path = format!("/v2/bot/user/{user_id}/richmenu/{id}");
        self.succeed(self.request(Method::POST, &path)).await
    }

    /// Takes the menu linked to `user_id` away (the default shows again).
    pub async fn unlink_rich_menu(&self, user_id: &str) -> Result<(), LineError> {
        match self.remove(&format!("/v2/bot/user/{user_id}/richmenu")).await {
            Err(e) if not_found(&e) => Ok(()),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_serialise_as_line_s_action_objects() {
        let message =
            AreaAction::Message { label: "今天天氣".into(), text: "今天天氣".into() };
        assert_eq!(
            serde_json::to_value(&message).expect("json"),
            serde_json::json!({"type": "message", "label": "今天天氣", "text": "今天天氣"})
        );
        let postback = AreaAction::Postback {
            label: "我吃藥了".into(),
            data: "a=x&i=0&s=y".into(),
            display_text: "✅ 我吃藥了".into(),
        };
        assert_eq!(
            serde_json::to_value(&postback).expect("json"),
            serde_json::json!({"type": "postback", "label": "我吃藥了", "data": "a=x&i=0&s=y",
                "displayText": "✅ 我吃藥了"})
        );
    }

    #[test]
    fn a_listed_menu_reads_with_its_id_and_a_new_one_is_sent_without() {
        let others: MenuList = serde_json::from_value(serde_json::json!({"richmenus": [{
        "richMenuId": "richmenu-88c05ef6921ae53f8b58a25f3a65faf7",
        "size": {"width": 2500, "height": 1686}, "selected": false,
        "name": "Nice richmenu", "chatBarText": "Tap to open",
        "areas": [
            {"bounds": {"x": 0, "y": 0, "width": 2500, "height": 1686},
                "action": {"type": "postback", "data": "action=buy&itemid=123"}},
            {"bounds": {"x": 0, "y": 0, "width": 10, "height": 10},
                "action": {"type": "uri", "uri": "https://example.com/"}},
            {"bounds": {"x": 0, "y": 0, "width": 10, "height": 10},
                "action": {"type": "richmenuswitch", "richMenuAliasId": "a", "data": "b"}}
        ]}]}))
        .expect("a channel's other menus, as LINE lists them, read");
        assert_eq!(others.richmenus[0].name, "Nice richmenu");
        let listed: RichMenu = serde_json::from_value(serde_json::json!({
            "richMenuId": "richmenu-1", "size": {"width": 2500, "height": 1686},
            "selected": false, "name": "n", "chatBarText": "選單", "areas": []
        }))
        .expect("listed");
        assert_eq!(listed.rich_menu_id.as_deref(), Some("richmenu-1"));
        let sent = serde_json::to_value(RichMenu { rich_menu_id: None, ..listed }).expect("json");
        assert!(sent.get("richMenuId").is_none(), "{sent}");
    }
}
