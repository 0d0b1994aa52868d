//! `hearth richmenu install | remove | draw`: puts hearth's rich menus in place at LINE, takes
//! them away, or writes their images for a look; and what `hearth doctor` says of them.
//!
//! `install` draws both menus, has LINE validate each, creates it, uploads its image (on the
//! data host), points its alias (`hearth-everyday`, `hearth-care`) at it, makes the everyday
//! menu the default for everyone, links the new care menu to whoever had the old one, and only
//! then deletes hearth's older menus. Menus are hearth's by name (`hearth-…`): any other menu,
//! alias or default of the channel is left as it was. Running it twice leaves one set.

use std::path::Path;

use crate::features::care::menu::links::CareMenuLinks;
use crate::features::richmenu::{self, Built, layout};
use crate::line::client::{LineClient, LineError};
use crate::line::postback::PostbackKey;
use crate::line::richmenu::{Alias, RichMenu};
use crate::platform::config::Config;
use crate::store::Store;

use super::doctor::Finding;

/// The command line of `hearth richmenu`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum RichMenuCommand {
    /// Create hearth's rich menus at LINE (the everyday menu as everyone's default, the care
    /// menu for whoever a care plan asks), replacing hearth's earlier ones and nothing else.
    Install,
    /// Delete hearth's rich menus and their aliases (other menus are left alone).
    Remove,
    /// Write each menu's image as PNG into a folder, to look at (nothing is sent to LINE).
    Draw {
        /// The folder (created if needed).
        #[arg(long, default_value = ".")]
        out: std::path::PathBuf,
    },
}

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum RichMenuError {
    /// LINE_CHANNEL_ACCESS_TOKEN is not set.
    #[error("LINE_CHANNEL_ACCESS_TOKEN is not set")]
    NoToken,
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client for LINE")]
    Client(#[source] reqwest::Error),
    /// A menu's image could not be drawn.
    #[error("the {0} menu's image could not be drawn")]
    Draw(&'static str, #[source] richmenu::draw::DrawError),
    /// The drawing thread ended without an image.
    #[error("the menus' images could not be drawn")]
    Drawing,
    /// LINE refused or failed a step.
    #[error("LINE: {step} failed: {source}")]
    Line {
        /// What was being done.
        step: String,
        /// LINE's answer.
        source: LineError,
    },
    /// The store could not be read or written.
    #[error("the database: {0}")]
    Store(String),
    /// An image could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

fn at_line(step: impl Into<String>) -> impl FnOnce(LineError) -> RichMenuError {
    let step = step.into();
    move |source| RichMenuError::Line { step, source }
}

/// The postback key the menus' buttons are signed with (the server's).
fn key(config: &Config) -> PostbackKey {
    PostbackKey::new(&config.postback_key, &config.line_channel_secret)
}

/// Both menus, built with this deployment's key.
pub fn built(config: &Config) -> Result<Vec<Built>, RichMenuError> {
    let key = key(config);
    layout::MENUS
        .iter()
        .map(|menu| richmenu::build(menu, &key).map_err(|e| RichMenuError::Draw(menu.alias, e)))
        .collect()
}

/// [`built`] on a blocking thread: drawing takes a while and must not stall other requests.
async fn built_aside(config: &Config) -> Result<Vec<Built>, RichMenuError> {
    let config = config.clone();
    tokio::task::spawn_blocking(move || built(&config))
        .await
        .unwrap_or_else(|_| Err(RichMenuError::Drawing))
}

fn client(config: &Config) -> Result<LineClient, RichMenuError> {
    if config.line_channel_access_token.is_empty() {
        return Err(RichMenuError::NoToken);
    }
    LineClient::new(&config.line_api_base, config.line_channel_access_token.clone(), 1)
        .map_err(RichMenuError::Client)
}

/// hearth's menus among `menus`, by id.
fn hearths(menus: &[RichMenu]) -> Vec<String> {
    menus
        .iter()
        .filter(|m| richmenu::is_hearths(&m.name))
        .filter_map(|m| m.rich_menu_id.clone())
        .collect()
}

/// `hearth richmenu install`, keeping who has the care menu in `store`; what was done, to print.
pub async fn install(config: &Config, store: &Store) -> Result<String, RichMenuError> {
    let line = client(config)?;
    let built = built_aside(config).await?;
    let before = hearths(&line.rich_menus().await.map_err(at_line("listing the rich menus"))?);
    let mut report = String::new();
    let mut created = Vec::new();
    for menu in &built {
        let alias = menu.menu.alias;
        line.validate_rich_menu(&menu.request)
            .await
            .map_err(at_line(format!("validating {alias}")))?;
        let id = line
            .create_rich_menu(&menu.request)
            .await
            .map_err(at_line(format!("creating {alias}")))?;
        line.upload_rich_menu_image(&config.line_data_api_base, &id, menu.image.clone())
            .await
            .map_err(at_line(format!("uploading {alias}'s image")))?;
        line.set_rich_menu_alias(alias, &id)
            .await
            .map_err(at_line(format!("pointing the alias {alias}")))?;
        report += &format!("created {} ({id}, {} bytes of image)\n", menu.name(), menu.image.len());
        created.push((alias, id));
    }
    let everyday = &created[0].1;
    line.set_default_rich_menu(everyday)
        .await
        .map_err(at_line("making the everyday menu the default"))?;
    report += &format!("{} is everyone's default\n", layout::EVERYDAY.alias);
    let care = &created[1].1;
    let relinked = CareMenuLinks::new(line.clone(), store.clone())
        .relink_all(care)
        .await
        .map_err(|e| RichMenuError::Store(e.to_string()))?;
    report += &format!(
        "{} is linked to {relinked} person(s) a care plan asks (others follow within a care round)\n",
        layout::CARE.alias
    );
    for old in before {
        line.delete_rich_menu(&old).await.map_err(at_line("deleting an older hearth menu"))?;
        report += &format!("deleted the older {old}\n");
    }
    Ok(report)
}

/// `hearth richmenu remove`, recording in `store` that nobody has the care menu; what was
/// done, to print.
pub async fn remove(config: &Config, store: &Store) -> Result<String, RichMenuError> {
    let line = client(config)?;
    let ours = hearths(&line.rich_menus().await.map_err(at_line("listing the rich menus"))?);
    let mut report = String::new();
    let default = line.default_rich_menu().await.map_err(at_line("reading the default menu"))?;
    if default.is_some_and(|d| ours.contains(&d)) {
        line.cancel_default_rich_menu().await.map_err(at_line("cancelling the default menu"))?;
    }
    for alias in layout::MENUS.iter().map(|m| m.alias) {
        line.delete_rich_menu_alias(alias).await.map_err(at_line("deleting an alias"))?;
    }
    for id in &ours {
        line.delete_rich_menu(id).await.map_err(at_line("deleting a menu"))?;
        report += &format!("deleted {id}\n");
    }
    let linked = store.care_menu_links().await.map_err(|e| RichMenuError::Store(e.to_string()))?;
    for (user, _) in linked {
        store
            .set_care_menu_link(&user, None)
            .await
            .map_err(|e| RichMenuError::Store(e.to_string()))?;
    }
    if ours.is_empty() {
        report += "hearth has no rich menus installed\n";
    }
    Ok(report)
}

/// `hearth richmenu draw`: each menu's image as `<alias>.png` in `out`; the files written.
pub fn draw(config: &Config, out: &Path) -> Result<String, RichMenuError> {
    let write_error =
        |path: &Path, source| RichMenuError::Write { path: path.display().to_string(), source };
    std::fs::create_dir_all(out).map_err(|e| write_error(out, e))?;
    let mut report = String::new();
    for menu in built(config)? {
        let path = out.join(format!("{}.png", menu.menu.alias));
        std::fs::write(&path, &menu.image).map_err(|e| write_error(&path, e))?;
        report += &format!("{} ({} bytes)\n", path.display(), menu.image.len());
    }
    Ok(report)
}

/// What `hearth doctor` says of the menus at LINE, given what this deployment would install
/// (`expected`: alias and name): installed and current, missing, or out of date.
pub fn verdict(
    expected: &[(&str, &str)],
    menus: &[RichMenu],
    aliases: &[Alias],
    default: Option<&str>,
) -> Finding {
    let fix = "run `hearth richmenu install`";
    let ours = hearths(menus);
    if ours.is_empty() {
        return Finding::warn("hearth's rich menus are not installed", fix);
    }
    let name_of = |id: &str| {
        menus.iter().find(|m| m.rich_menu_id.as_deref() == Some(id)).map(|m| m.name.as_str())
    };
    let mut stale = Vec::new();
    for (alias, name) in expected {
        let at = aliases.iter().find(|a| a.rich_menu_alias_id == *alias);
        if at.and_then(|a| name_of(&a.rich_menu_id)) != Some(*name) {
            stale.push((*alias).to_string());
        }
    }
    let everyday = expected.first().map(|(alias, _)| *alias).unwrap_or_default();
    let default_ok = aliases
        .iter()
        .find(|a| a.rich_menu_alias_id == everyday)
        .is_some_and(|a| default == Some(a.rich_menu_id.as_str()));
    if !default_ok {
        stale.push("the default menu".into());
    }
    if stale.is_empty() {
        let names: Vec<&str> = expected.iter().map(|(_, n)| *n).collect();
        Finding::pass(format!("installed and current: {}", names.join(", ")))
    } else {
        Finding::warn(
            format!("hearth's rich menus are out of date ({} differ)", stale.join(", ")),
            fix,
        )
    }
}

/// Reads the menus at LINE and says whether hearth's are installed and current.
pub async fn check(config: &Config, line: &LineClient) -> Result<Finding, LineError> {
    let key = key(config);
    let named: Vec<(&str, String)> =
        layout::MENUS.iter().map(|m| (m.alias, richmenu::request(m, &key).name)).collect();
    let expected: Vec<(&str, &str)> = named.iter().map(|(a, n)| (*a, n.as_str())).collect();
    let menus = line.rich_menus().await?;
    let aliases = line.rich_menu_aliases().await?;
    let default = line.default_rich_menu().await?;
    Ok(verdict(&expected, &menus, &aliases, default.as_deref()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::doctor::Status;
    use crate::line::richmenu::Size;

    fn menu(id: &str, name: &str) -> RichMenu {
        RichMenu {
            rich_menu_id: Some(id.into()),
            size: Size { width: 2500, height: 1686 },
            selected: false,
            name: name.into(),
            chat_bar_text: "選單".into(),
            areas: Vec::new(),
        }
    }

    fn alias(alias: &str, id: &str) -> Alias {
        Alias { rich_menu_alias_id: alias.into(), rich_menu_id: id.into() }
    }

    const EXPECTED: [(&str, &str); 2] =
        [("hearth-everyday", "hearth-everyday aaa"), ("hearth-care", "hearth-care bbb")];

    #[test]
    fn menus_named_as_this_build_would_with_the_everyday_default_are_current() {
        let menus = [menu("m1", "hearth-everyday aaa"), menu("m2", "hearth-care bbb")];
        let aliases = [alias("hearth-everyday", "m1"), alias("hearth-care", "m2")];
        let found = verdict(&EXPECTED, &menus, &aliases, Some("m1"));
        assert_eq!(found.status, Status::Pass, "{found:?}");
    }

    #[test]
    fn no_menu_of_hearth_s_is_not_installed_whatever_else_the_channel_has() {
        let found = verdict(&EXPECTED, &[menu("x", "spring sale")], &[], Some("x"));
        assert_eq!(found.status, Status::Warn);
        assert!(found.message.contains("not installed"), "{found:?}");
    }

    #[test]
    fn an_older_menu_or_another_default_is_out_of_date() {
        let menus = [menu("m1", "hearth-everyday old"), menu("m2", "hearth-care bbb")];
        let aliases = [alias("hearth-everyday", "m1"), alias("hearth-care", "m2")];
        let found = verdict(&EXPECTED, &menus, &aliases, Some("m1"));
        assert!(found.message.contains("hearth-everyday"), "{found:?}");
        let menus = [menu("m1", "hearth-everyday aaa"), menu("m2", "hearth-care bbb")];
        let found = verdict(&EXPECTED, &menus, &aliases, Some("other"));
        assert_eq!(found.status, Status::Warn);
        assert!(found.message.contains("default"), "{found:?}");
    }
}
