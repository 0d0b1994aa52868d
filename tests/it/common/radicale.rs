//! A real CalDAV server for the calendar sync's tests: Radicale (from PyPI, in the Python of
//! `HEARTH_BROWSER_PYTHON`, which `.ci/run` makes), on a free local port, keeping its calendars
//! in a temporary directory, with one user signing in by password. Stopped when dropped.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The user hearth and the family's phones sign in as (an e-mail-like name: the server lists
/// its paths percent-encoded, `/mom%40family/`).
pub const USER: &str = "mom@family";
/// Their password.
pub const PASSWORD: &str = "s3cret-app-password";

/// A running Radicale.
pub struct Radicale {
    child: Child,
    port: u16,
    dir: std::path::PathBuf,
}

impl Radicale {
    /// Starts one and waits until it answers.
    pub async fn start() -> Self {
        let dir = super::scratch_dir("radicale");
        let users = dir.join("users");
        std::fs::write(&users, format!("{USER}:{PASSWORD}\n")).expect("users");
        let port = super::unclaimed_port();
        let python = std::env::var("HEARTH_BROWSER_PYTHON")
            .unwrap_or_else(|_| "target/ci-venv/bin/python".into());
        let child = Command::new(python)
            .args(["-m", "radicale", "--server-hosts", &format!("127.0.0.1:{port}")])
            .arg("--storage-filesystem-folder")
            .arg(dir.join("calendars"))
            .args(["--auth-type", "htpasswd", "--auth-htpasswd-encryption", "plain"])
            .arg("--auth-htpasswd-filename")
            .arg(&users)
            .args(["--rights-type", "owner_only", "--logging-level", "error"])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start Radicale (HEARTH_BROWSER_PYTHON: a Python with radicale)");
        let radicale = Self { child, port, dir };
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                return radicale;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("Radicale did not start");
    }

    /// The family's calendar home: `HEARTH_CALDAV_URL`.
    pub fn home(&self) -> String {
        format!("http://127.0.0.1:{}/{USER}/", self.port)
    }

    /// The address of `path` on the server.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// A phone's request: `method` on `path`, signed in.
    pub fn phone(&self, method: &str, path: &str) -> reqwest::RequestBuilder {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        reqwest::Client::new().request(method, self.url(path)).basic_auth(USER, Some(PASSWORD))
    }
}

impl Drop for Radicale {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
