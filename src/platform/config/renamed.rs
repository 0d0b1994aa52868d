//! Settings renamed to follow the glossary (`docs/architecture.md`, "Words"): their former
//! names still work — a former name's value is given as the new one's flag when the new one is
//! not set ([`as_flags`]) — and `hearth doctor` says which to rename.

/// Each renamed setting: its former name, its name now.
pub const RENAMED: &[(&str, &str)] = &[
    // `ALERTS` read as price alerts; these are Taiwan's official alerts.
    ("HEARTH_ALERTS_FEED_URL", "HEARTH_OFFICIAL_ALERTS_FEED_URL"),
    ("HEARTH_ALERTS_POLL_SECS", "HEARTH_OFFICIAL_ALERTS_POLL_SECS"),
    ("HEARTH_ALERTS_REQUEST_GAP_MS", "HEARTH_OFFICIAL_ALERTS_REQUEST_GAP_MS"),
    ("HEARTH_ALERTS_EXTRA_HOSTS", "HEARTH_OFFICIAL_ALERTS_EXTRA_HOSTS"),
    // `PRICE` read as a quote's price (`HEARTH_PRICE_POLL_SECS`); these are the model's.
    ("HEARTH_PRICE_INPUT", "HEARTH_LLM_PRICE_INPUT"),
    ("HEARTH_PRICE_CACHED", "HEARTH_LLM_PRICE_CACHED"),
    ("HEARTH_PRICE_OUTPUT", "HEARTH_LLM_PRICE_OUTPUT"),
];

/// What to carry over, given the environment `var`: `(new name, value)` for each former name
/// that is set while its new name is not (a new name set wins).
pub fn carried(var: impl Fn(&str) -> Option<String>) -> Vec<(&'static str, String)> {
    RENAMED
        .iter()
        .filter(|(_, new)| var(new).is_none())
        .filter_map(|(former, new)| var(former).map(|value| (*new, value)))
        .collect()
}

/// The former names set in the environment `var`, each with its name now.
pub fn in_use(var: impl Fn(&str) -> Option<String>) -> Vec<(&'static str, &'static str)> {
    RENAMED.iter().filter(|(former, _)| var(former).is_some()).copied().collect()
}

/// The former names' values as the new names' flags, to follow the command line (a flag given
/// there wins: it is not added): `--official-alerts-poll-secs=30` for
/// `HEARTH_ALERTS_POLL_SECS=30`. `command` holds the settings; `given`, the command line.
pub fn as_flags(
    var: impl Fn(&str) -> Option<String>,
    command: &clap::Command,
    given: &[std::ffi::OsString],
) -> Vec<std::ffi::OsString> {
    let given: Vec<String> = given.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let mut flags = Vec::new();
    for (new, value) in carried(var) {
        let Some(long) = command
            .get_arguments()
            .find(|a| a.get_env().is_some_and(|e| e == new))
            .and_then(|a| a.get_long())
        else {
            continue;
        };
        let flag = format!("--{long}");
        if given.iter().any(|g| *g == flag || g.starts_with(&format!("{flag}="))) {
            continue;
        }
        flags.push(format!("{flag}={value}").into());
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(set: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| set.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_string())
    }

    #[test]
    fn a_former_name_is_carried_to_the_new_one_unless_the_new_one_is_set() {
        let set = [("HEARTH_ALERTS_POLL_SECS", "30"), ("HEARTH_PRICE_INPUT", "0.15")];
        assert_eq!(
            carried(env(&set)),
            vec![
                ("HEARTH_OFFICIAL_ALERTS_POLL_SECS", "30".to_string()),
                ("HEARTH_LLM_PRICE_INPUT", "0.15".to_string())
            ]
        );
        let both = [("HEARTH_ALERTS_POLL_SECS", "30"), ("HEARTH_OFFICIAL_ALERTS_POLL_SECS", "90")];
        assert!(carried(env(&both)).is_empty(), "the new name wins");
        assert_eq!(
            in_use(env(&both)),
            vec![("HEARTH_ALERTS_POLL_SECS", "HEARTH_OFFICIAL_ALERTS_POLL_SECS")]
        );
    }

    #[test]
    fn an_empty_former_value_is_carried_too() {
        // `HEARTH_ALERTS_FEED_URL=` turned the official alerts off; it still does.
        let set = [("HEARTH_ALERTS_FEED_URL", "")];
        assert_eq!(carried(env(&set)), vec![("HEARTH_OFFICIAL_ALERTS_FEED_URL", String::new())]);
    }

    fn settings() -> clap::Command {
        let mut command = <crate::platform::config::Config as clap::Args>::augment_args(
            clap::Command::new("hearth"),
        );
        command.build();
        command
    }

    #[test]
    fn a_former_name_becomes_the_new_flag_unless_the_command_line_gives_it() {
        let set = [("HEARTH_ALERTS_POLL_SECS", "30"), ("HEARTH_PRICE_OUTPUT", "0.6")];
        let flags = as_flags(env(&set), &settings(), &["hearth".into(), "serve".into()]);
        assert_eq!(
            flags,
            vec![
                std::ffi::OsString::from("--official-alerts-poll-secs=30"),
                "--llm-price-output=0.6".into()
            ]
        );
        let given = ["hearth".into(), "serve".into(), "--official-alerts-poll-secs=5".into()];
        assert_eq!(as_flags(env(&set), &settings(), &given), vec!["--llm-price-output=0.6"]);
    }

    #[test]
    fn every_new_name_is_a_setting_and_no_former_name_is() {
        let command = settings();
        let envs: Vec<String> = command
            .get_arguments()
            .filter_map(|a| a.get_env())
            .map(|e| e.to_string_lossy().into_owned())
            .collect();
        for (former, new) in RENAMED {
            assert!(envs.iter().any(|e| e == new), "{new} is read");
            assert!(!envs.iter().any(|e| e == former), "{former} is not read itself");
        }
    }
}
