//! The daily backup a serving process takes of its SQLite database (`HEARTH_BACKUP_DIR`): a
//! consistent copy while it serves ([`crate::store::Store::backup_into`]), named by its instant,
//! keeping the newest `HEARTH_BACKUP_KEEP`. Which copies go is a pure function of the names
//! ([`to_remove`]).

use std::path::{Path, PathBuf};

use jiff::Timestamp;

use crate::store::{BackupError, Store};

/// The start of a backup's file name; the rest is its instant and `.db`.
const PREFIX: &str = "hearth-";
/// The end of a backup's file name.
const SUFFIX: &str = ".db";

/// Where the daily backups go and how many are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backups {
    /// The folder.
    pub dir: PathBuf,
    /// How many of the newest are kept (at least one).
    pub keep: usize,
}

impl Backups {
    /// Takes a backup of `store` now (named by `now`, UTC) and removes the oldest beyond
    /// `keep`; returns the new file.
    pub async fn take(&self, store: &Store, now: Timestamp) -> Result<PathBuf, BackupError> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|source| BackupError::File { path: self.dir.clone(), source })?;
        let path = self.dir.join(file_name(now));
        store.backup_into(&path).await?;
        let names = backup_names(&self.dir)
            .map_err(|source| BackupError::File { path: self.dir.clone(), source })?;
        for old in to_remove(&names, self.keep) {
            let old = self.dir.join(old);
            if let Err(e) = std::fs::remove_file(&old) {
                tracing::warn!(file = %old.display(), error = %e, "could not remove an old backup");
            }
        }
        Ok(path)
    }
}

/// The name of a backup taken at `at`: `hearth-20261203T080000Z.db` (names sort by time).
pub fn file_name(at: Timestamp) -> String {
    format!("{PREFIX}{}{SUFFIX}", at.strftime("%Y%m%dT%H%M%SZ"))
}

/// The names of the backups in `dir`.
fn backup_names(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.starts_with(PREFIX) && name.ends_with(SUFFIX) {
            names.push(name);
        }
    }
    Ok(names)
}

/// Of the backup `names` (other files are never among them), the ones to remove so the newest
/// `keep` (at least one) remain.
pub fn to_remove(names: &[String], keep: usize) -> Vec<String> {
    let mut sorted: Vec<&String> = names.iter().collect();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    sorted.into_iter().skip(keep.max(1)).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_backups_are_kept_and_the_oldest_removed() {
        let names: Vec<String> = ["20261201", "20261203", "20261130", "20261202"]
            .iter()
            .map(|d| format!("hearth-{d}T040000Z.db"))
            .collect();
        let mut gone = to_remove(&names, 2);
        gone.sort();
        assert_eq!(gone, ["hearth-20261130T040000Z.db", "hearth-20261201T040000Z.db"]);
        assert!(to_remove(&names, 7).is_empty());
        assert_eq!(to_remove(&names, 0).len(), 3, "at least the newest stays");
    }

    #[test]
    fn a_backup_is_named_by_its_instant() {
        let at: Timestamp = "2026-12-03T08:00:05Z".parse().expect("instant");
        assert_eq!(file_name(at), "hearth-20261203T080005Z.db");
    }
}
