//! A local fake of the web: search providers (SearXNG, Tavily and Brave JSON shapes, with their
//! empty answers and errors) and pages for `summarize_url` (an article with navigation, ads and
//! scripts; plain text; a 20 MB page; a PDF; a PNG; pages with injected instructions, one asking
//! for `/exfil?d=…`, where the family's data would leave; redirects; hostile pages nested deep or
//! very large, in `hostile`).
//!
//! Search answers are chosen by the query: `empty`, `down` (SearXNG: all engines unresponsive),
//! `e401`, `e422`, `e429`, `e500`, `html` (a non-JSON page); anything else gets three results.
//! Every request is recorded by path; `/huge` counts the bytes it managed to send.

pub mod hostile;
pub mod pages;
mod search;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::Router;
use axum::http::{HeaderMap, Uri};
use axum::routing::{get, post};
use tokio::net::TcpListener;

/// One recorded request.
#[derive(Clone, Debug)]
pub struct WebRequest {
    /// Path and query.
    pub target: String,
    /// Request headers, lower-case names.
    pub headers: HashMap<String, String>,
}

/// Handle to the running fake; clones share the server and records.
#[derive(Clone)]
pub struct FakeWeb {
    inner: Arc<Inner>,
}

struct Inner {
    port: u16,
    requests: Mutex<Vec<WebRequest>>,
    huge_sent: AtomicUsize,
}

impl FakeWeb {
    /// Binds `127.0.0.1:0` and serves on a background task.
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind fake web");
        let port = listener.local_addr().expect("fake web address").port();
        let web = Self {
            inner: Arc::new(Inner {
                port,
                requests: Mutex::new(Vec::new()),
                huge_sent: AtomicUsize::new(0),
            }),
        };
        let router = Router::new()
            .route("/searxng/search", get(search::searxng))
            .route("/tavily/search", post(search::tavily))
            .route("/brave/res/v1/web/search", get(search::brave))
            .route("/article", get(pages::article))
            .route("/inject", get(pages::inject))
            .route("/inject-exfil", get(pages::inject_exfil))
            .route("/exfil", get(pages::article))
            .route("/plain.txt", get(pages::plain))
            .route("/term.ics", get(pages::school_calendar))
            .route("/huge", get(pages::huge))
            .route("/doc.pdf", get(pages::pdf))
            .route("/image.png", get(pages::png))
            .route("/secret", get(pages::secret))
            .route("/redirect", get(pages::redirect))
            .route("/loop", get(pages::redirect_loop))
            .route("/hostile/{kind}", get(hostile::serve))
            .with_state(web.clone());
        tokio::spawn(async move {
            axum::serve(listener, router).await.expect("fake web server");
        });
        web
    }

    /// Base URL, e.g. `http://127.0.0.1:41234`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.inner.port)
    }

    /// The socket address served.
    pub fn addr(&self) -> std::net::SocketAddr {
        std::net::SocketAddr::from(([127, 0, 0, 1], self.inner.port))
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<WebRequest> {
        self.lock().clone()
    }

    /// How many requests had this path.
    pub fn hits(&self, path: &str) -> usize {
        self.lock().iter().filter(|r| r.target.split('?').next() == Some(path)).count()
    }

    /// Bytes `/huge` sent before the client stopped reading.
    pub fn huge_bytes_sent(&self) -> usize {
        self.inner.huge_sent.load(Ordering::SeqCst)
    }

    fn record(&self, uri: &Uri, headers: &HeaderMap) {
        let target = uri.path_and_query().map_or_else(|| uri.path().to_owned(), |p| p.to_string());
        let headers = headers
            .iter()
            .map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into()))
            .collect();
        self.lock().push(WebRequest { target, headers });
    }

    fn lock(&self) -> MutexGuard<'_, Vec<WebRequest>> {
        self.inner.requests.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
