//! The daily backup a serving process takes of its SQLite database (`HEARTH_BACKUP_DIR`): a
//! consistent copy while it serves ([`crate::store::Store::backup_into`]), one per calendar day
//! in the deployment's time zone (`hearth-20261203.db`), taken only when today's is missing — at
//! start and then hourly — so a process restarting in a loop takes one copy that day and never
//! pushes older days out. The copies of the newest `HEARTH_BACKUP_KEEP` days are kept. Pruning
//! touches only files hearth wrote: the exact name ([`day_of`]) and, inside, hearth's own first
//! migration ([`crate::store::Snapshot::is_hearths`]); anything else in the folder stays. Which
//! copies go is a pure function of the names ([`to_remove`]).

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;

use crate::store::{BackupError, Snapshot, Store};

/// The start of a backup's file name; the rest is its day and `.db`.
const PREFIX: &str = "hearth-";
/// The end of a backup's file name.
const SUFFIX: &str = ".db";

/// Where the daily backups go and how many days are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backups {
    /// The folder.
    pub dir: PathBuf,
    /// How many days' copies are kept, the newest (at least one).
    pub keep: usize,
    /// The deployment's time zone: what "today" is.
    pub tz: TimeZone,
}

impl Backups {
    /// Takes today's backup of `store` (today in the deployment's zone at `now`) unless it
    /// exists, then removes hearth's copies of days beyond the newest `keep`; the new file, or
    /// `None` when today's was there already.
    pub async fn take(
        &self,
        store: &Store,
        now: Timestamp,
    ) -> Result<Option<PathBuf>, BackupError> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|source| BackupError::File { path: self.dir.clone(), source })?;
        let path = self.dir.join(file_name(self.tz.to_datetime(now).date()));
        if path.exists() {
            return Ok(None);
        }
        store.backup_into(&path).await?;
        let names = backup_names(&self.dir)
            .map_err(|source| BackupError::File { path: self.dir.clone(), source })?;
        for old in to_remove(&names, self.keep) {
            let old = self.dir.join(old);
            if !Snapshot::is_hearths(&old).await {
                tracing::warn!(file = %old.display(), "not a copy hearth wrote: left as it is");
                continue;
            }
            if let Err(e) = std::fs::remove_file(&old) {
                tracing::warn!(file = %old.display(), error = %e, "could not remove an old backup");
            }
        }
        Ok(Some(path))
    }
}

/// The name of the backup of day `day`: `hearth-20261203.db` (names sort by day).
pub fn file_name(day: Date) -> String {
    format!("{PREFIX}{}{SUFFIX}", day.strftime("%Y%m%d"))
}

/// The day of a backup named `name` by hearth: `hearth-YYYYMMDD.db`, or the
/// `hearth-YYYYMMDDTHHMMSSZ.db` of earlier releases (the UTC day); `None` for any other name.
pub fn day_of(name: &str) -> Option<Date> {
    let stem = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    let (day, time) = match stem.split_once('T') {
        Some((day, time)) => (day, Some(time)),
        None => (stem, None),
    };
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(day, 8)
        || time.is_some_and(|t| !(t.len() == 7 && digits(&t[..6], 6) && t.ends_with('Z')))
    {
        return None;
    }
    Date::strptime("%Y%m%d", day).ok()
}

/// The names in `dir` that are named as hearth names its backups.
fn backup_names(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if day_of(&name).is_some() && entry.file_type()?.is_file() {
            names.push(name);
        }
    }
    Ok(names)
}

/// Of `names`, hearth's backups to remove so those of the newest `keep` days (at least one)
/// remain; a name hearth does not give its backups is never among them.
pub fn to_remove(names: &[String], keep: usize) -> Vec<String> {
    let mut days: Vec<Date> = names.iter().filter_map(|n| day_of(n)).collect();
    days.sort_unstable_by(|a, b| b.cmp(a));
    days.dedup();
    let kept = &days[..days.len().min(keep.max(1))];
    names.iter().filter(|n| day_of(n).is_some_and(|d| !kept.contains(&d))).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn the_copies_of_the_newest_days_are_kept_and_the_oldest_removed() {
        let names = names(&["hearth-20261201.db", "hearth-20261203.db", "hearth-20261130.db"]);
        let mut gone = to_remove(&names, 2);
        gone.sort();
        assert_eq!(gone, ["hearth-20261130.db"]);
        assert_eq!(to_remove(&names, 1).len(), 2);
        assert!(to_remove(&names, 7).is_empty());
        assert_eq!(to_remove(&names, 0).len(), 2, "at least the newest day stays");
    }

    #[test]
    fn keep_counts_days_not_files_so_many_copies_of_one_day_push_no_other_day_out() {
        let mut list: Vec<String> =
            (0..7).map(|s| format!("hearth-20261203T08000{s}Z.db")).collect();
        list.extend(names(&["hearth-20261202.db", "hearth-20261201.db"]));
        assert_eq!(to_remove(&list, 3), Vec::<String>::new());
        assert_eq!(to_remove(&list, 2), ["hearth-20261201.db"]);
    }

    #[test]
    fn only_hearth_s_own_names_are_ever_removed() {
        let list = names(&[
            "hearth-0-grandma-photos-index.db",
            "hearth-keep.db",
            "hearth-2026120.db",
            "hearth-20261203.db.partial",
            "hearth-20261203T0800Z.db",
            "hearth-20261201.db",
            "hearth-20261203.db",
        ]);
        assert_eq!(to_remove(&list, 1), ["hearth-20261201.db"]);
        for other in &list[..5] {
            assert_eq!(day_of(other), None, "{other}");
        }
    }

    #[test]
    fn a_backup_is_named_by_its_day() {
        let day = jiff::civil::date(2026, 12, 3);
        assert_eq!(file_name(day), "hearth-20261203.db");
        assert_eq!(day_of("hearth-20261203.db"), Some(day));
        assert_eq!(day_of("hearth-20261203T080005Z.db"), Some(day), "earlier releases' names");
    }
}
