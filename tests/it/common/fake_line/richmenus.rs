//! The fake's rich menus: created menus (validated as LINE does: size, areas inside the image,
//! at most 20, chat bar text ≤ 14), their images (uploaded once, PNG or JPEG, ≤ 1 MB, the
//! menu's size), aliases, the default menu and per-user links. A user can be linked only to a
//! menu with an image; deleting a menu unlinks it from everyone and drops it as the default.

use std::collections::{BTreeMap, HashMap};

use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use super::rules::{Outcome, bad_request, check_json, not_found};

/// What the fake keeps of rich menus.
#[derive(Default)]
pub(crate) struct RichMenus {
    /// Menu id → the menu as listed (with its id).
    pub(crate) menus: BTreeMap<String, Value>,
    /// Menu id → what was uploaded as its image (bytes, content type, width, height).
    pub(crate) images: HashMap<String, Value>,
    /// Alias → menu id.
    pub(crate) aliases: BTreeMap<String, String>,
    /// The default menu.
    pub(crate) default: Option<String>,
    /// User id → linked menu id.
    pub(crate) links: HashMap<String, String>,
    /// Menus created so far (for ids).
    created: u64,
}

/// The kind under which a request body is written for the conformance check, if it is one of
/// the rich-menu requests with a JSON body.
pub(super) fn dump_kind(path: &str) -> Option<&'static str> {
    match path.trim_start_matches('/').split('/').collect::<Vec<_>>().as_slice() {
        ["v2", "bot", "richmenu"] | ["v2", "bot", "richmenu", "validate"] => Some("richmenu"),
        ["v2", "bot", "richmenu", "alias"] => Some("richmenualias"),
        ["v2", "bot", "richmenu", "alias", _] => Some("richmenualiasupdate"),
        _ => None,
    }
}

/// What the fake records of an uploaded image: its size, its type and, for a PNG, its width
/// and height from the header.
pub(super) fn image_summary(headers: &HeaderMap, raw: &[u8]) -> Value {
    let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let png = raw.len() >= 24 && raw.starts_with(b"\x89PNG\r\n\x1a\n");
    let dimension = |at: usize| {
        raw.get(at..at + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]])).filter(|_| png)
    };
    json!({"bytes": raw.len(), "contentType": content_type, "png": png,
        "width": dimension(16), "height": dimension(20)})
}

/// The fake's answer to a rich-menu request; `None` when the request is not one.
pub(super) fn dispatch(
    menus: &mut RichMenus,
    method: &str,
    segments: &[&str],
    headers: &HeaderMap,
    body: &Value,
) -> Option<Outcome> {
    let ok = || Outcome::new(StatusCode::OK, json!({}));
    Some(match (method, segments) {
        ("POST", ["v2", "bot", "richmenu", "validate"]) => {
            check_json(headers, body).or_else(|| invalid(body)).unwrap_or_else(ok)
        }
        ("POST", ["v2", "bot", "richmenu"]) => {
            check_json(headers, body).or_else(|| invalid(body)).unwrap_or_else(|| {
                menus.created += 1;
                let id = format!("richmenu-{:032x}", menus.created);
                let mut listed = body.clone();
                listed["richMenuId"] = json!(id);
                menus.menus.insert(id.clone(), listed);
                Outcome::new(StatusCode::OK, json!({"richMenuId": id}))
            })
        }
        ("GET", ["v2", "bot", "richmenu", "list"]) => Outcome::new(
            StatusCode::OK,
            json!({"richmenus": menus.menus.values().cloned().collect::<Vec<_>>()}),
        ),
        ("POST", ["v2", "bot", "richmenu", id, "content"]) => upload(menus, id, body),
        ("DELETE", ["v2", "bot", "richmenu", "alias", alias]) => {
            match menus.aliases.remove(*alias) {
                Some(_) => ok(),
                None => not_found(),
            }
        }
        ("DELETE", ["v2", "bot", "richmenu", id]) => match menus.menus.remove(*id) {
            Some(_) => {
                menus.images.remove(*id);
                menus.links.retain(|_, linked| linked != id);
                if menus.default.as_deref() == Some(*id) {
                    menus.default = None;
                }
                ok()
            }
            None => not_found(),
        },
        ("GET", ["v2", "bot", "richmenu", "alias", "list"]) => {
            let aliases: Vec<Value> = menus
                .aliases
                .iter()
                .map(|(a, id)| json!({"richMenuAliasId": a, "richMenuId": id}))
                .collect();
            Outcome::new(StatusCode::OK, json!({"aliases": aliases}))
        }
        ("GET", ["v2", "bot", "richmenu", "alias", alias]) => match menus.aliases.get(*alias) {
            Some(id) => {
                Outcome::new(StatusCode::OK, json!({"richMenuAliasId": alias, "richMenuId": id}))
            }
            None => not_found(),
        },
        ("POST", ["v2", "bot", "richmenu", "alias"]) => {
            check_json(headers, body).unwrap_or_else(|| {
                let alias = body["richMenuAliasId"].as_str().unwrap_or_default().to_string();
                let id = body["richMenuId"].as_str().unwrap_or_default().to_string();
                if menus.aliases.contains_key(&alias) {
                    bad_request("conflict richmenu alias id", "richMenuAliasId")
                } else if !menus.menus.contains_key(&id) {
                    bad_request("richmenu not found", "richMenuId")
                } else {
                    menus.aliases.insert(alias, id);
                    ok()
                }
            })
        }
        ("POST", ["v2", "bot", "richmenu", "alias", alias]) => check_json(headers, body)
            .unwrap_or_else(|| {
                let id = body["richMenuId"].as_str().unwrap_or_default().to_string();
                match (menus.aliases.get_mut(*alias), menus.menus.contains_key(&id)) {
                    (None, _) => not_found(),
                    (_, false) => bad_request("richmenu not found", "richMenuId"),
                    (Some(target), true) => {
                        *target = id;
                        ok()
                    }
                }
            }),
        ("GET", ["v2", "bot", "user", "all", "richmenu"]) => match &menus.default {
            Some(id) => Outcome::new(StatusCode::OK, json!({"richMenuId": id})),
            None => not_found(),
        },
        ("DELETE", ["v2", "bot", "user", "all", "richmenu"]) => {
            menus.default = None;
            ok()
        }
        ("POST", ["v2", "bot", "user", "all", "richmenu", id]) => {
            if menus.images.contains_key(*id) {
                menus.default = Some((*id).to_string());
                ok()
            } else {
                bad_request("must upload richmenu image before applying it to user", "richMenuId")
            }
        }
        ("GET", ["v2", "bot", "user", user, "richmenu"]) => match menus.links.get(*user) {
            Some(id) => Outcome::new(StatusCode::OK, json!({"richMenuId": id})),
            None => not_found(),
        },
        ("DELETE", ["v2", "bot", "user", user, "richmenu"]) => {
            menus.links.remove(*user);
            ok()
        }
        ("POST", ["v2", "bot", "user", user, "richmenu", id]) => {
            if !user.starts_with('U') {
                bad_request("The value for the 'userId' parameter is invalid", "userId")
            } else if menus.images.contains_key(*id) {
                menus.links.insert((*user).to_string(), (*id).to_string());
                ok()
            } else {
                bad_request("must upload richmenu image before applying it to user", "richMenuId")
            }
        }
        _ => return None,
    })
}

/// LINE's checks of a rich menu object: a size, areas inside it, at most 20, a short chat bar
/// text; `None` when it passes.
fn invalid(body: &Value) -> Option<Outcome> {
    let (Some(width), Some(height)) =
        (body["size"]["width"].as_u64(), body["size"]["height"].as_u64())
    else {
        return Some(bad_request("must be specified", "size"));
    };
    if !(800..=2500).contains(&width) || height < 250 || (width as f64) / (height as f64) < 1.45 {
        return Some(bad_request("invalid size", "size"));
    }
    let chat_bar = body["chatBarText"].as_str().unwrap_or_default();
    if chat_bar.is_empty() || chat_bar.chars().count() > 14 {
        return Some(bad_request("size must be between 1 and 14", "chatBarText"));
    }
    let Some(areas) = body["areas"].as_array().filter(|a| (1..=20).contains(&a.len())) else {
        return Some(bad_request("size must be between 1 and 20", "areas"));
    };
    for area in areas {
        let b = &area["bounds"];
        let fits =
            match (b["x"].as_u64(), b["y"].as_u64(), b["width"].as_u64(), b["height"].as_u64()) {
                (Some(x), Some(y), Some(w), Some(h)) => {
                    w > 0 && h > 0 && x + w <= width && y + h <= height
                }
                _ => false,
            };
        if !fits || area["action"]["type"].as_str().is_none() {
            return Some(bad_request("area out of the image, or without an action", "areas"));
        }
    }
    None
}

/// `POST /v2/bot/richmenu/{id}/content` (on the data host): once, PNG or JPEG, ≤ 1 MB, the
/// menu's size.
fn upload(menus: &mut RichMenus, id: &str, image: &Value) -> Outcome {
    let Some(menu) = menus.menus.get(id) else { return not_found() };
    let content_type = image["contentType"].as_str().unwrap_or_default();
    if !matches!(content_type, "image/png" | "image/jpeg") {
        return Outcome::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            json!({"message": "Unsupported Media Type"}),
        );
    }
    if menus.images.contains_key(id) {
        return bad_request("An image has already been uploaded to the richmenu", "content");
    }
    let fits = image["bytes"].as_u64().is_some_and(|b| b <= 1024 * 1024)
        && image["width"] == menu["size"]["width"]
        && image["height"] == menu["size"]["height"];
    if !fits {
        return bad_request("image size or dimensions do not match the rich menu", "content");
    }
    menus.images.insert(id.to_string(), image.clone());
    Outcome::new(StatusCode::OK, json!({}))
}
