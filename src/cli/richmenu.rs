//! `hearth richmenu install | remove | draw`: puts hearth's rich menus in place at LINE, takes
//! them away, or writes their images for a look (what `hearth doctor` says of them:
//! [`crate::cli::doctor::menus`]).
//!
//! `install` draws the menus, has LINE validate each, creates it, uploads its image (on the
//! data host), points its alias (`hearth-everyday`, `hearth-care`, `hearth-everyday-en`) at it,
//! makes the everyday menu the default for everyone, links the new care menu to whoever had the
//! old one and the English menu to every English speaker no care plan asks, and only then
//! deletes hearth's older menus. Menus are hearth's by name (`hearth-…`): any other menu,
//! alias or default of the channel is left as it was. Running it twice leaves one set.

use std::path::Path;

use crate::features::richmenu::ops::care_links::CareMenuLinks;
use crate::features::richmenu::{self, Built, layout};
use crate::line::client::{LineClient, LineError};
use crate::line::postback::PostbackKey;
use crate::platform::config::Config;
use crate::store::Store;

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
pub fn key(config: &Config) -> PostbackKey {
    PostbackKey::new(&config.line.postback_key, &config.line.line_channel_secret)
}

/// Every menu, built with this deployment's key.
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
    if config.line.line_channel_access_token.is_empty() {
        return Err(RichMenuError::NoToken);
    }
    LineClient::new(&config.line.line_api_base, config.line.line_channel_access_token.clone(), 1)
        .map_err(RichMenuError::Client)
}

/// `hearth richmenu install`, keeping who has the care menu in `store`; what was done, to print.
pub async fn install(config: &Config, store: &Store) -> Result<String, RichMenuError> {
    let line = client(config)?;
    let built = built_aside(config).await?;
    let before =
        richmenu::hearths(&line.rich_menus().await.map_err(at_line("listing the rich menus"))?);
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
        line.upload_rich_menu_image(&config.line.line_data_api_base, &id, menu.image.clone())
            .await
            .map_err(at_line(format!("uploading {alias}'s image")))?;
        line.set_rich_menu_alias(alias, &id)
            .await
            .map_err(at_line(format!("pointing the alias {alias}")))?;
        report += &format!("created {} ({id}, {} bytes of image)\n", menu.name(), menu.image.len());
        created.push((alias, id));
    }
    let id_of = |alias: &str| {
        created.iter().find(|(a, _)| *a == alias).map(|(_, id)| id.clone()).unwrap_or_default()
    };
    line.set_default_rich_menu(&id_of(layout::EVERYDAY.alias))
        .await
        .map_err(at_line("making the everyday menu the default"))?;
    report += &format!("{} is everyone's default\n", layout::EVERYDAY.alias);
    let links = CareMenuLinks::new(line.clone(), store.clone());
    let relinked = links
        .relink_all(&id_of(layout::CARE.alias))
        .await
        .map_err(|e| RichMenuError::Store(e.to_string()))?;
    report += &format!(
        "{} is linked to {relinked} person(s) a care plan asks (others follow within a care round)\n",
        layout::CARE.alias
    );
    let english = links
        .english()
        .relink_all(&id_of(layout::EVERYDAY_EN.alias))
        .await
        .map_err(|e| RichMenuError::Store(e.to_string()))?;
    report += &format!(
        "{} is linked to {english} person(s) whose LINE profile says English\n",
        layout::EVERYDAY_EN.alias
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
    let ours =
        richmenu::hearths(&line.rich_menus().await.map_err(at_line("listing the rich menus"))?);
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
    CareMenuLinks::new(line.clone(), store.clone())
        .forget_all()
        .await
        .map_err(|e| RichMenuError::Store(e.to_string()))?;
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
