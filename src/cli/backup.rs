//! `hearth backup PATH` and `hearth restore PATH`: a consistent copy of the SQLite database
//! taken while `serve` runs, and a copy checked and put back while no server runs (see
//! [`crate::store::Snapshot`]). PostgreSQL has `pg_dump` and `pg_restore` for this.

use std::path::Path;

use crate::platform::config::Config;
use crate::store::{BackupError, ServeLock, Snapshot, Store, sqlite_file};

/// Writes the copy; says what was written.
pub async fn backup(config: &Config, path: &Path) -> Result<String, BackupError> {
    let Some(database) = sqlite_file(&config.store.database_url) else {
        return Err(BackupError::Postgres);
    };
    if !database.is_file() {
        return Err(BackupError::Missing(database));
    }
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty())
        && !folder.is_dir()
    {
        return Err(BackupError::NoFolder(folder.to_path_buf()));
    }
    let store = Store::open(&config.store.database_url).await?;
    store.backup_into(path).await?;
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or_default();
    Ok(format!("wrote {} ({size} bytes); `hearth restore` puts it back\n", path.display()))
}

/// Checks the copy and puts it in place of the database; says what was restored.
pub async fn restore(config: &Config, path: &Path) -> Result<String, BackupError> {
    let Some(database) = sqlite_file(&config.store.database_url) else {
        return Err(BackupError::Postgres);
    };
    if !path.is_file() {
        return Err(BackupError::NoCopy(path.to_path_buf()));
    }
    let lock = ServeLock::take(&database)?;
    let copy = Snapshot::check(path).await?;
    copy.put_in_place(&database, &lock)?;
    let version = copy.version.map_or("none".to_string(), |v| v.to_string());
    Ok(format!(
        "restored {} to {} (integrity ok, migration {version}); `hearth serve` applies any newer migrations\n",
        path.display(),
        database.display()
    ))
}
