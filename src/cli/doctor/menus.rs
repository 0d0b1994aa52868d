//! Whether hearth's rich menus are installed at LINE and are the ones this build would install:
//! the names at LINE (which carry a content hash) against the names this build gives them, the
//! aliases and the default.

use crate::features::richmenu::{self, layout};
use crate::line::client::{LineClient, LineError};
use crate::line::richmenu::{Alias, ListedMenu};
use crate::platform::config::Config;

use super::Finding;

/// What `hearth doctor` says of the menus at LINE, given what this deployment would install
/// (`expected`: alias and name): installed and current, missing, or out of date.
pub fn verdict(
    expected: &[(&str, &str)],
    menus: &[ListedMenu],
    aliases: &[Alias],
    default: Option<&str>,
) -> Finding {
    let fix = "run `hearth richmenu install`";
    let ours = richmenu::hearths(menus);
    if ours.is_empty() {
        return Finding::warn("hearth's rich menus are not installed", fix);
    }
    let name_of = |id: &str| menus.iter().find(|m| m.rich_menu_id == id).map(|m| m.name.as_str());
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
    let key = crate::cli::richmenu::key(config);
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

    fn menu(id: &str, name: &str) -> ListedMenu {
        ListedMenu { rich_menu_id: id.into(), name: name.into() }
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
