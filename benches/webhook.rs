//! Benchmark of the real `hearth serve` binary against in-process fakes of LINE, the LLM and the
//! data sources: webhook acknowledgement latency under a steady load of signed events, the time
//! and CPU a full turn costs when every fake answers at once, and resident memory.
//!
//! Run with `cargo bench --bench webhook` (a release build). Options through the environment:
//! `BENCH_RATES` (events/s, comma-separated, default `500,2000`), `BENCH_SECS` (seconds per rate,
//! default 10), `BENCH_TURNS` (sequential full turns, default 300), `BENCH_SUSTAINED` (events for
//! the sustained-throughput run, default 3000), `BENCH_FLOOD` (untriggered group messages sent
//! as fast as hearth takes them, then drained: ack rate, peak memory, time until every one is
//! handled; default 0, off), `BENCH_DRAIN_SECS` (how long the flood waits for the inbox to
//! drain before it reports what is still pending; default 1800), `BENCH_DATABASE_URL` (default: an SQLite file; give an empty
//! PostgreSQL database to measure that backend), `BENCH_SERVER_LOG` (a file for the server's
//! log; default: discarded), `BENCH_HEARTH_BIN` (the server binary to run instead of this
//! build's, to compare two builds in the same conditions), `BENCH_SERVER_CPU` (runs the server
//! under `taskset -c` that CPU; run the bench itself pinned to another:
//! `taskset -c 1 cargo bench --bench webhook` with `BENCH_SERVER_CPU=0`). The flood alone:
//! `BENCH_TURNS=0 BENCH_RATES= BENCH_SUSTAINED=0 BENCH_FLOOD=160000 cargo bench --bench webhook`.
//! The SQLite file is made in the temporary folder (`TMPDIR`): on tmpfs (`/dev/shm`) the figures
//! are the CPU's alone; in a folder on a disk they include what the disk costs (the syncs of
//! SQLite's checkpoints), as a deployment's would.
//!
//! `BENCH_PEER=1` sends the same load to a peer instead of hearth: `scripts/peer_bot.py`, a
//! Python LINE bot's webhook (aiohttp and LINE's SDK: the signature checked, the events parsed,
//! 200); `BENCH_PEER=flask`, to `scripts/peer_flask_bot.py`, LINE's Python sample (Flask and the
//! SDK's `WebhookHandler`) under gunicorn's default worker. Either runs under
//! `BENCH_PEER_PYTHON` (default `python3`; it needs `scripts/requirements-bench.txt`) and is
//! pinned like hearth. Only the phases that ask for an acknowledgement run against a peer: the
//! ack rates and the flood's ack rate.

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{FakeLine, FakeLlm, FakeUpstreams};
use hearth::line::signature;
use serde_json::json;

const SECRET: &str = "8c570fa6dd201bb328f1c1eac23a96d8";

struct Server {
    child: Child,
    url: String,
    /// hearth's database; none for the peer.
    db: Option<String>,
    _dir: Option<TempDir>,
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Drop for Server {
    /// Stops the server as a service manager would (SIGTERM, then SIGKILL after 60 s), so a
    /// wrapper given as `BENCH_HEARTH_BIN` (callgrind, perf) writes what it measured.
    fn drop(&mut self) {
        let _ = Command::new("kill").arg("-TERM").arg(self.child.id().to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn pid(&self) -> u32 {
        self.child.id()
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port")
}

async fn start_server(line: &FakeLine, llm: &FakeLlm, upstreams: &FakeUpstreams) -> Server {
    let dir = std::env::temp_dir().join(format!("hearth-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let port = free_port();
    let db = std::env::var("BENCH_DATABASE_URL")
        .unwrap_or_else(|_| format!("sqlite://{}", dir.join("hearth.db").display()));
    let binary =
        std::env::var("BENCH_HEARTH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_hearth").into());
    let child = pinned(&binary)
        .arg("serve")
        .env("LINE_CHANNEL_SECRET", SECRET)
        .env("LINE_CHANNEL_ACCESS_TOKEN", "bench-token")
        .env("LINE_API_BASE", line.url())
        .env("OPENAI_BASE_URL", llm.url())
        .env("OPENAI_API_KEY", "sk-bench")
        .env("DATABASE_URL", &db)
        .env("HEARTH_LISTEN", format!("127.0.0.1:{port}"))
        .env("HEARTH_OPEN_METEO_URL", upstreams.url())
        .env("HEARTH_GEOCODING_URL", upstreams.url())
        .env("HEARTH_FX_URL", upstreams.url())
        .env("HEARTH_YAHOO_URL", upstreams.url())
        // The bench measures hearth's own throughput: 64 users sending hundreds of turns a
        // minute would otherwise meet the turn rates and the daily budgets.
        .env("HEARTH_CHAT_TURNS_PER_MINUTE", "0")
        .env("HEARTH_USER_TURNS_PER_MINUTE", "0")
        .env("HEARTH_DAILY_TOKENS_PER_CHAT", "0")
        .env("HEARTH_DAILY_TOKENS_TOTAL", "0")
        .env("HEARTH_OPEN", "true")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(match std::env::var("BENCH_SERVER_LOG") {
            Ok(path) => Stdio::from(std::fs::File::create(path).expect("server log file")),
            Err(_) => Stdio::null(),
        })
        .spawn()
        .expect("spawn hearth serve");
    let url = format!("http://127.0.0.1:{port}");
    healthy(&url, Duration::from_secs(10)).await;
    Server { child, url, db: Some(db), _dir: Some(TempDir(dir)) }
}

/// The Python peers, by the value of `BENCH_PEER` that picks them: the script, and what the
/// bench says it is.
const PEERS: [(&str, &str, &str); 2] = [
    ("1", "peer_bot.py", "aiohttp and line-bot-sdk, parse only"),
    (
        "flask",
        "peer_flask_bot.py",
        "Flask and line-bot-sdk's WebhookHandler under gunicorn, one sync worker",
    ),
];

/// Starts the peer `script` (under `BENCH_PEER_PYTHON`) with hearth's channel secret, pinned
/// like hearth.
async fn start_peer(script: &str) -> Server {
    let port = free_port();
    let python = std::env::var("BENCH_PEER_PYTHON").unwrap_or_else(|_| "python3".into());
    let child = pinned(&python)
        .arg(format!("{}/scripts/{script}", env!("CARGO_MANIFEST_DIR")))
        .arg(format!("127.0.0.1:{port}"))
        .env("LINE_CHANNEL_SECRET", SECRET)
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn the peer (BENCH_PEER_PYTHON with scripts/requirements-bench.txt)");
    let url = format!("http://127.0.0.1:{port}");
    healthy(&url, Duration::from_secs(30)).await;
    Server { child, url, db: None, _dir: None }
}

/// `program` run pinned to the CPU `BENCH_SERVER_CPU` when it is set: the server then competes
/// with the fakes and the load generator only when the bench itself is pinned to the same one.
fn pinned(program: &str) -> Command {
    match std::env::var("BENCH_SERVER_CPU") {
        Ok(cpu) if !cpu.is_empty() => {
            let mut taskset = Command::new("taskset");
            taskset.args(["-c", &cpu, program]);
            taskset
        }
        _ => Command::new(program),
    }
}

/// Waits until `url` answers `/healthz`, at most `within`.
async fn healthy(url: &str, within: Duration) {
    let deadline = Instant::now() + within;
    while common::get(format!("{url}/healthz")).await.is_err() {
        assert!(Instant::now() < deadline, "the server did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `pid` and every process it started, and theirs: a server's figures are its whole tree's
/// (gunicorn's worker is a child of its master; hearth's parsers of outside content are its own).
fn process_tree(pid: u32) -> Vec<u32> {
    let mut tree = vec![pid];
    let mut next = 0;
    while let Some(&parent) = tree.get(next) {
        let threads = std::fs::read_dir(format!("/proc/{parent}/task")).into_iter().flatten();
        for thread in threads.flatten() {
            let children =
                std::fs::read_to_string(thread.path().join("children")).unwrap_or_default();
            tree.extend(children.split_whitespace().filter_map(|c| c.parse::<u32>().ok()));
        }
        next += 1;
    }
    tree
}

/// (VmRSS, VmHWM) of a process and the processes under it, summed, in KiB.
fn memory_kib(pid: u32) -> (u64, u64) {
    process_tree(pid).into_iter().fold((0, 0), |(rss, hwm), pid| {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let field = |name: &str| -> u64 {
            status
                .lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        (rss + field("VmRSS:"), hwm + field("VmHWM:"))
    })
}

/// Clock ticks per second in `/proc/<pid>/stat` (`getconf CLK_TCK`: 100 on Linux here).
const TICKS_PER_SECOND: f64 = 100.0;

/// CPU time (user + system) a process and the processes under it have used, in clock ticks
/// (see [`TICKS_PER_SECOND`]).
fn cpu_ticks(pid: u32) -> u64 {
    let ticks = |pid: u32| -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let after_name = stat.rsplit(')').next().unwrap_or("");
        let fields: Vec<&str> = after_name.split_whitespace().collect();
        let utime: u64 = fields.get(11).and_then(|v| v.parse().ok()).unwrap_or(0);
        let stime: u64 = fields.get(12).and_then(|v| v.parse().ok()).unwrap_or(0);
        utime + stime
    };
    process_tree(pid).into_iter().map(ticks).sum()
}

fn event(n: u64, text: &str) -> serde_json::Value {
    json!({
        "type": "message", "mode": "active",
        "timestamp": jiff::Timestamp::now().as_millisecond(),
        "webhookEventId": format!("01BENCH{n:019}"),
        "deliveryContext": {"isRedelivery": false},
        "replyToken": format!("bench-token-{n}"),
        "source": {"type": "user", "userId": format!("U{:032x}", n % 64)},
        "message": {"id": format!("{}", 700_000_000_000_000_000u64 + n), "type": "text",
                    "quoteToken": format!("q-{n}"), "text": text},
    })
}

fn signed(n: u64, text: &str) -> (String, String) {
    sign_events(vec![event(n, text)])
}

fn sign_events(events: Vec<serde_json::Value>) -> (String, String) {
    let body =
        json!({"destination": "U8e742f61d673b39c7fff3cecb7536ef0", "events": events}).to_string();
    let sig = signature::sign(SECRET, body.as_bytes());
    (body, sig)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Sends `rate` signed events per second for `secs` seconds on a fixed schedule (open loop: a
/// slow answer does not slow the sender) and returns each acknowledgement's latency.
async fn steady_load(
    server: &Server,
    first: u64,
    rate: u64,
    secs: u64,
) -> (Vec<Duration>, usize, u64) {
    let client = reqwest::Client::builder().pool_max_idle_per_host(512).build().expect("client");
    let total = rate * secs;
    let bodies: Vec<(String, String)> = (0..total).map(|i| signed(first + i, "你好")).collect();
    let interval = Duration::from_secs_f64(1.0 / rate as f64);
    let start = tokio::time::Instant::now();
    let mut tasks = Vec::with_capacity(bodies.len());
    let mut peak_rss = 0;
    for (i, (body, sig)) in bodies.into_iter().enumerate() {
        tokio::time::sleep_until(start + interval * i as u32).await;
        if i % (rate as usize / 10).max(1) == 0 {
            peak_rss = peak_rss.max(memory_kib(server.pid()).0);
        }
        let client = client.clone();
        let url = format!("{}/callback", server.url);
        tasks.push(tokio::spawn(async move {
            let t = Instant::now();
            let ok = client
                .post(url)
                .header("x-line-signature", sig)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .map(|r| r.status() == 200)
                .unwrap_or(false);
            (t.elapsed(), ok)
        }));
    }
    let mut latencies = Vec::with_capacity(tasks.len());
    let mut failures = 0;
    for task in tasks {
        let (latency, ok) = task.await.expect("join");
        if !ok {
            failures += 1;
        }
        latencies.push(latency);
    }
    latencies.sort();
    (latencies, failures, peak_rss)
}

/// Posts `count` events as fast as the server takes them (64 in flight) and waits until every one
/// is answered; returns how many were answered and how long it took.
async fn sustained_turns(
    server: &Server,
    line: &FakeLine,
    first: u64,
    count: u64,
) -> (u64, Duration) {
    use futures::StreamExt;
    line.clear();
    let client = reqwest::Client::builder().pool_max_idle_per_host(128).build().expect("client");
    let bodies: Vec<(String, String)> = (0..count).map(|i| signed(first + i, "在嗎")).collect();
    let start = Instant::now();
    futures::stream::iter(bodies)
        .map(|(body, sig)| {
            let client = client.clone();
            let url = format!("{}/callback", server.url);
            async move {
                let _ = client.post(url).header("x-line-signature", sig).body(body).send().await;
            }
        })
        .buffer_unordered(64)
        .collect::<Vec<()>>()
        .await;
    let deadline = start + Duration::from_secs(300);
    loop {
        let answered = line.requests().iter().filter(|r| r.path.ends_with("/reply")).count() as u64;
        if answered >= count || Instant::now() > deadline {
            return (answered, start.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A webhook with one group message that does not call hearth (logged for recaps, not
/// answered), and its signature. Formatted from a template rather than built as JSON values:
/// the flood's sender spends a few microseconds per message, so the rate it sees is hearth's.
fn untriggered_group_webhook(n: u64) -> (String, String) {
    let now = jiff::Timestamp::now().as_millisecond();
    let (group, user) = (n % 8, n % 64);
    let body = format!(
        r#"{{"destination":"U8e742f61d673b39c7fff3cecb7536ef0","events":[{{"type":"message","mode":"active","timestamp":{now},"webhookEventId":"01BENCH{n:019}","deliveryContext":{{"isRedelivery":false}},"replyToken":"bench-token-{n}","source":{{"type":"group","groupId":"C{group:032x}","userId":"U{user:032x}"}},"message":{{"id":"{id}","type":"text","quoteToken":"q-{n}","text":"今天晚餐吃什麼？我買了滷味"}}}}]}}"#,
        id = 700_000_000_000_000_000u64 + n,
    );
    let sig = signature::sign(SECRET, body.as_bytes());
    (body, sig)
}

/// Posts the messages numbered `first + i` for every `i` in `mine` over one HTTP/1.1
/// connection, one after another; returns how many were acknowledged. A server that closes its
/// connection after an answer (gunicorn's sync worker does after each) is connected to again,
/// so connecting is part of what its acknowledgements cost.
async fn flood_connection(address: String, first: u64, mine: impl Iterator<Item = u64>) -> u64 {
    use http_body_util::{BodyExt, Full};
    type Sender = hyper::client::conn::http1::SendRequest<Full<bytes::Bytes>>;
    async fn connect(address: &str) -> Sender {
        let stream = tokio::net::TcpStream::connect(address).await.expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        let io = hyper_util::rt::TokioIo::new(stream);
        let (sender, connection) =
            hyper::client::conn::http1::handshake(io).await.expect("handshake");
        tokio::spawn(connection);
        sender
    }
    let mut open: Option<Sender> = None;
    let mut acked = 0;
    for i in mine {
        let (body, sig) = untriggered_group_webhook(first + i);
        let request = hyper::Request::post("/callback")
            .header("host", &address)
            .header("content-type", "application/json")
            .header("x-line-signature", sig)
            .body(Full::new(bytes::Bytes::from(body)))
            .expect("request");
        let mut sender = match open.take() {
            Some(sender) if !sender.is_closed() => sender,
            _ => connect(&address).await,
        };
        let Ok(response) = sender.send_request(request).await else { break };
        let kept = response.version() == hyper::Version::HTTP_11
            && response.headers().get(hyper::header::CONNECTION).is_none_or(|v| v != "close");
        acked += u64::from(response.status() == 200);
        let _ = response.into_body().collect().await;
        if kept {
            open = Some(sender);
        }
    }
    acked
}

/// Posts `count` untriggered group messages as fast as the server takes them (`connections` in
/// flight), then (hearth) waits until every one is handled (logged, its inbox row done). Returns
/// the acknowledged count, the time the acks took, the time until all were handled, the
/// server's CPU time over the flood (clock ticks), the peak RSS seen (KiB) and whether each
/// message was logged exactly once.
async fn flood(server: &Server, first: u64, count: u64, connections: u64) -> FloodReport {
    let pid = server.pid();
    let sampling = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let sampler = {
        let sampling = sampling.clone();
        tokio::spawn(async move {
            let mut peak = 0;
            while sampling.load(std::sync::atomic::Ordering::SeqCst) {
                peak = peak.max(memory_kib(pid).0);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            peak
        })
    };
    let address = server.url.trim_start_matches("http://").to_string();
    let cpu_before = cpu_ticks(pid);
    let start = Instant::now();
    let senders: Vec<_> = (0..connections)
        .map(|c| {
            let mine = (c..count).step_by(connections as usize);
            tokio::spawn(flood_connection(address.clone(), first, mine))
        })
        .collect();
    let mut acked = 0;
    for sender in senders {
        acked += sender.await.expect("sender");
    }
    let acked_in = start.elapsed();
    let rss_after_acks = memory_kib(pid).0;
    let drain = match &server.db {
        Some(db) => Some(drained(db).await),
        None => None,
    };
    let handled_in = start.elapsed();
    let cpu = cpu_ticks(pid).saturating_sub(cpu_before);
    sampling.store(false, std::sync::atomic::Ordering::SeqCst);
    let peak_rss = sampler.await.unwrap_or(0);
    FloodReport { acked, acked_in, handled_in, cpu, peak_rss, rss_after_acks, drain }
}

/// What the inbox and the chat log held when the flood drained or the wait ended.
struct Drain {
    /// Events still pending (0 when drained).
    pending: i64,
    /// Group messages in the chat log, and how many distinct.
    logged: i64,
    distinct: i64,
}

impl std::fmt::Display for Drain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pending > 0 {
            write!(f, "NOT DRAINED: {} still pending; ", self.pending)?;
        }
        write!(f, "{} messages logged ({} distinct)", self.logged, self.distinct)
    }
}

/// Waits (up to `BENCH_DRAIN_SECS`) until no event is pending in the inbox of `url`, then
/// counts the group messages logged.
async fn drained(url: &str) -> Drain {
    macro_rules! with_pool {
        ($pool:ident => $body:expr) => {
            if url.starts_with("postgres") {
                let $pool = sqlx::PgPool::connect(url).await.expect("bench database");
                $body
            } else {
                let $pool = sqlx::SqlitePool::connect(url).await.expect("bench database");
                $body
            }
        };
    }
    const PENDING: &str = "SELECT COUNT(*) FROM inbox WHERE status = 'pending'";
    const LOGGED: &str =
        "SELECT COUNT(*), COUNT(DISTINCT message_id) FROM chat_log WHERE conversation_id LIKE 'C%'";
    let wait = std::env::var("BENCH_DRAIN_SECS").ok().and_then(|s| s.parse().ok());
    let deadline = Instant::now() + Duration::from_secs(wait.unwrap_or(1800));
    with_pool!(pool => {
        let mut pending;
        loop {
            pending = sqlx::query_scalar(PENDING).fetch_one(&pool).await.unwrap_or(i64::MAX);
            if pending == 0 || Instant::now() > deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let (logged, distinct): (i64, i64) =
            sqlx::query_as(LOGGED).fetch_one(&pool).await.unwrap_or((-1, -1));
        Drain { pending, logged, distinct }
    })
}

struct FloodReport {
    acked: u64,
    acked_in: Duration,
    handled_in: Duration,
    /// The server's CPU time from the first message until all were handled, in clock ticks
    /// (the drain's polling of the store included).
    cpu: u64,
    peak_rss: u64,
    rss_after_acks: u64,
    /// What hearth's store held after it; none for the peer, which keeps nothing.
    drain: Option<Drain>,
}

#[tokio::main]
async fn main() {
    let rates: Vec<u64> = std::env::var("BENCH_RATES")
        .unwrap_or_else(|_| "500,2000".into())
        .split(',')
        .filter_map(|r| r.trim().parse().ok())
        .collect();
    let secs: u64 = std::env::var("BENCH_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let turns: u64 = std::env::var("BENCH_TURNS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);

    let line = FakeLine::start().await;
    line.set_dump(false);
    for n in 0..64u64 {
        line.set_profile(&format!("U{n:032x}"), &format!("家人{n}"));
    }
    let llm = FakeLlm::start().await;
    let upstreams = FakeUpstreams::start().await;
    let chosen = std::env::var("BENCH_PEER").unwrap_or_default();
    let peer_chosen = PEERS.iter().find(|(name, _, _)| *name == chosen);
    if peer_chosen.is_none() && !chosen.is_empty() {
        panic!("BENCH_PEER={chosen}: not one of {:?}", PEERS.map(|(name, _, _)| name));
    }
    let peer = peer_chosen.is_some();
    let server = match peer_chosen {
        Some((_, script, _)) => start_peer(script).await,
        None => start_server(&line, &llm, &upstreams).await,
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (idle_rss, _) = memory_kib(server.pid());
    let backend = if std::env::var("BENCH_DATABASE_URL").is_ok_and(|u| u.starts_with("postgres")) {
        "PostgreSQL"
    } else {
        "an SQLite file in WAL mode"
    };
    if let Some((_, script, what)) = peer_chosen {
        println!("the peer (scripts/{script}: {what}), the load from the bench process");
    } else {
        println!("hearth serve (release) on {backend}, fakes in the bench process");
    }
    println!("idle RSS after start: {:.1} MiB", idle_rss as f64 / 1024.0);
    if !peer {
        full_turns(&server, &line, &llm, turns).await;
    }

    let mut first = 10_000_000;
    for rate in rates {
        let (latencies, failures, peak_rss) = steady_load(&server, first, rate, secs).await;
        first += rate * secs;
        // Let the background turns drain before the next rate.
        tokio::time::sleep(Duration::from_secs(2)).await;
        line.clear();
        println!(
            "ack at {rate} events/s for {secs} s ({} events, {failures} failed): p50 {} p99 {} max {}; RSS under load up to {:.1} MiB",
            latencies.len(),
            ms(percentile(&latencies, 50.0)),
            ms(percentile(&latencies, 99.0)),
            ms(latencies.last().copied().unwrap_or_default()),
            peak_rss as f64 / 1024.0,
        );
    }
    let sustained: u64 = match peer {
        true => 0,
        false => std::env::var("BENCH_SUSTAINED").ok().and_then(|s| s.parse().ok()).unwrap_or(3000),
    };
    if sustained > 0 {
        let (events, elapsed) = sustained_turns(&server, &line, first, sustained).await;
        println!(
            "sustained full turns (fake LLM answering at once): {events} events answered in {:.1} s = {:.0} turns/s",
            elapsed.as_secs_f64(),
            events as f64 / elapsed.as_secs_f64()
        );
    }
    let flood_events: u64 =
        std::env::var("BENCH_FLOOD").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    if flood_events > 0 {
        let r = flood(&server, first + sustained, flood_events, 32).await;
        println!(
            "flood of untriggered group messages (32 connections): {} of {flood_events} acked in {:.1} s = {:.0}/s; server CPU per message {:.1} µs; RSS at the end of the acks {:.1} MiB, peak {:.1} MiB",
            r.acked,
            r.acked_in.as_secs_f64(),
            r.acked as f64 / r.acked_in.as_secs_f64(),
            r.cpu as f64 / TICKS_PER_SECOND * 1e6 / flood_events as f64,
            r.rss_after_acks as f64 / 1024.0,
            r.peak_rss as f64 / 1024.0,
        );
        if let Some(drain) = &r.drain {
            println!(
                "  all handled after {:.1} s = {:.0}/s handled; {drain}; each logged once: {}",
                r.handled_in.as_secs_f64(),
                (drain.logged.max(0) as f64) / r.handled_in.as_secs_f64(),
                drain.pending == 0
                    && drain.logged == flood_events as i64
                    && drain.distinct == flood_events as i64,
            );
        }
    }
    let (rss, hwm) = memory_kib(server.pid());
    println!(
        "RSS after the load: {:.1} MiB (peak {:.1} MiB)",
        rss as f64 / 1024.0,
        hwm as f64 / 1024.0
    );
}

/// `turns` full turns, one at a time, and what they took: webhook → LLM asks for weather →
/// forecast → LLM answers → reply with a card. Every fake answers at once, so the time is
/// hearth's own plus loopback.
async fn full_turns(server: &Server, line: &FakeLine, llm: &FakeLlm, turns: u64) {
    let mut turn_latency = Vec::new();
    let turns = turns.max(1);
    let cpu_before = cpu_ticks(server.pid());
    let client = hearth::platform::tls::client_builder().build().expect("HTTP client");
    for n in 0..turns {
        llm.reply_tool_calls(&[("weather", json!({"location": "台北", "days": 2}))]);
        llm.reply_text("明天台北有八成機率下雨，記得帶傘");
        let (body, sig) = signed(1_000_000 + n, "台北明天會下雨嗎？");
        let replies_before = line.replies().len();
        let t = Instant::now();
        let status = client
            .post(format!("{}/callback", server.url))
            .header("x-line-signature", sig)
            .body(body)
            .send()
            .await
            .expect("post")
            .status();
        assert_eq!(status, 200);
        let replies = line
            .wait_for(
                |r| r.iter().filter(|r| r.path.ends_with("/reply")).count() > replies_before,
                Duration::from_secs(10),
            )
            .await;
        let reply_at = replies
            .iter()
            .rev()
            .find(|r| r.path.ends_with("/reply"))
            .map(|r| r.received_at)
            .expect("reply");
        turn_latency.push(reply_at.duration_since(t));
        if n % 50 == 49 {
            line.clear();
        }
    }
    let cpu_ticks_used = cpu_ticks(server.pid()).saturating_sub(cpu_before);
    turn_latency.sort();
    println!(
        "full turn with one tool call ({turns} sequential): p50 {} p99 {}; hearth CPU per turn {:.2} ms",
        ms(percentile(&turn_latency, 50.0)),
        ms(percentile(&turn_latency, 99.0)),
        cpu_ticks_used as f64 / TICKS_PER_SECOND * 1e3 / turns as f64,
    );
    line.clear();
}
