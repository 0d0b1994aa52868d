//! `hearth export`'s file: written new, never through a link ([`write_new`]); the document
//! itself is gathered by [`crate::features::export::ops::export`].

/// Writes `bytes` to `path`, a new file. Anything already at `path` is refused unless `force`;
/// with `force`, a regular file or a symbolic link is replaced — a new file is written beside
/// it and renamed into place, so neither a symbolic link nor another hard link of the file is
/// written through — and anything else (a folder, a FIFO, a device) is refused.
pub fn write_new(path: &std::path::Path, bytes: &[u8], force: bool) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind, Write};
    let found = std::fs::symlink_metadata(path).ok().map(|m| m.file_type());
    let write = |at: &std::path::Path| -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(at)?;
        file.write_all(bytes)?;
        file.sync_all()
    };
    match found {
        None => write(path).map_err(|e| match e.kind() {
            ErrorKind::AlreadyExists => {
                Error::new(ErrorKind::AlreadyExists, "the file exists (use --force to replace it)")
            }
            _ => e,
        }),
        Some(kind) if !force => Err(Error::new(
            ErrorKind::AlreadyExists,
            if kind.is_symlink() {
                "it is a symbolic link (use --force to replace the link itself)"
            } else {
                "the file exists (use --force to replace it)"
            },
        )),
        Some(kind) if !kind.is_file() && !kind.is_symlink() => Err(Error::new(
            ErrorKind::InvalidInput,
            "it is not a regular file: nothing is written there, even with --force",
        )),
        Some(_) => {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let partial = path.with_file_name(format!(
                ".{}.{}.partial",
                name.unwrap_or_default(),
                std::process::id()
            ));
            let _ = std::fs::remove_file(&partial);
            let written = write(&partial).and_then(|()| std::fs::rename(&partial, path));
            if written.is_err() {
                let _ = std::fs::remove_file(&partial);
            }
            written
        }
    }
}

#[cfg(test)]
mod tests {
    use super::write_new;

    fn folder(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("hearth-export-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("folder");
        dir
    }

    #[test]
    fn forcing_replaces_a_hard_linked_file_without_writing_through_the_other_link() {
        let dir = folder("hardlink");
        let (out, other) = (dir.join("out.json"), dir.join("other.json"));
        std::fs::write(&other, b"the other file").expect("write");
        std::fs::hard_link(&other, &out).expect("link");
        assert!(write_new(&out, b"{}", false).is_err(), "refused without --force");
        write_new(&out, b"{}", true).expect("replaced");
        assert_eq!(std::fs::read(&out).expect("read"), b"{}");
        assert_eq!(std::fs::read(&other).expect("read"), b"the other file");
        let left: Vec<_> = std::fs::read_dir(&dir).expect("list").collect();
        assert_eq!(left.len(), 2, "no partial file is left");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_fifo_or_a_folder_is_refused_at_once_even_with_force() {
        let dir = folder("fifo");
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
        assert!(made.success());
        let refused = write_new(&fifo, b"{}", true).expect_err("a FIFO is refused");
        assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
        assert!(write_new(&dir, b"{}", true).is_err(), "a folder is refused");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_symbolic_link_is_replaced_itself_never_written_through() {
        let dir = folder("symlink");
        let (out, target) = (dir.join("out.json"), dir.join("target.json"));
        std::fs::write(&target, b"kept").expect("write");
        std::os::unix::fs::symlink(&target, &out).expect("symlink");
        assert!(write_new(&out, b"{}", false).is_err());
        write_new(&out, b"{}", true).expect("replaced");
        assert!(!std::fs::symlink_metadata(&out).expect("meta").file_type().is_symlink());
        assert_eq!(std::fs::read(&target).expect("read"), b"kept");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
