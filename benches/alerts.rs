//! Benchmark of the price-alert poller at scale: 100,000 alerts on 1,000 symbols (100 watchers
//! each, in 100 conversations), a SQLite file store, the fake Yahoo chart API on 127.0.0.1.
//!
//! Reports, per tick, the upstream requests (they must equal the number of distinct symbols due),
//! the time of a whole tick (fetches from the local fake included), the time of the evaluation
//! step alone with the quotes already in memory (no network: every alert of every symbol
//! evaluated, state changes and fires recorded), and the process's memory.
//!
//! Run with `cargo bench --bench alerts`. `BENCH_ALERT_SYMBOLS` and `BENCH_ALERTS_PER_SYMBOL` set
//! the shape (default 1000 × 100).

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::Instant;

use common::{FakeLine, FakeUpstreams, Route};
use hearth::platform::clock::{Clock, ManualClock};
use hearth::platform::config::Config;
use hearth::platform::i18n::Lang;
use hearth::server::app::Hearth;
use hearth::sources::quotes::Quote;
use hearth::store::{Direction, Frequency, NewAlert, Side, Store};
use jiff::{SignedDuration, Timestamp};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// Resident and peak memory of this process in MiB (Linux), for the report.
fn memory() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or("?".to_string(), |kb| format!("{:.0} MiB", kb / 1024.0))
    };
    format!("RSS {}, peak {}", field("VmRSS:"), field("VmHWM:"))
}

fn symbol(k: usize) -> String {
    format!("S{k:04}-USD")
}

fn base_price(k: usize) -> f64 {
    100.0 + k as f64
}

#[tokio::main]
async fn main() {
    let symbols = env("BENCH_ALERT_SYMBOLS", 1000);
    let per_symbol = env("BENCH_ALERTS_PER_SYMBOL", 100);
    let upstreams = FakeUpstreams::start().await;
    let line = FakeLine::start().await;
    line.set_dump(false);
    line.set_keep_bodies(false);

    let dir = std::env::temp_dir().join(format!("hearth-bench-alerts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut config = Config::defaults();
    config.store.database_url = format!("sqlite://{}", dir.join("hearth.db").display());
    config.line.line_api_base = line.url();
    config.line.line_channel_secret = "bench-secret".into();
    config.line.line_channel_access_token = "bench-token".into();
    config.sources.yahoo_url = upstreams.url();
    config.loops.price_poll_secs = 0;
    let start: Timestamp = "2026-11-30T12:00:00Z".parse().expect("instant");
    let clock = Arc::new(ManualClock::new(start));
    let store = Store::connect(&config.store.database_url).await.expect("store");
    let app = Hearth::with_tools(&config, clock.clone(), store.clone(), hearth::tools::registry)
        .expect("hearth");
    println!("start: {}", memory());

    let set_prices = |factor: f64| {
        for k in 0..symbols {
            upstreams.set_price(&symbol(k), base_price(k) * factor);
            upstreams.set_market_time(&symbol(k), clock.now().as_second());
        }
    };
    set_prices(1.0);

    // 100 watchers per symbol: levels 1–10 % away, half rising, half falling.
    let t = Instant::now();
    for k in 0..symbols {
        let sym = symbol(k);
        for j in 0..per_symbol {
            let up = j % 2 == 0;
            let pct = 1.0 + ((j / 2) % 10) as f64 + (j / 20) as f64 * 0.1;
            let level = base_price(k) * if up { 1.0 + pct / 100.0 } else { 1.0 - pct / 100.0 };
            let conversation = format!("U{j:032x}");
            store
                .price_alerts()
                .create(&NewAlert {
                    conversation_id: &conversation,
                    created_by: None,
                    symbol: &sym,
                    name: None,
                    currency: Some("USD"),
                    direction: if up { Direction::Up } else { Direction::Down },
                    level,
                    band_pct: 0.2,
                    frequency: if j % 4 < 2 { Frequency::Once } else { Frequency::EveryTime },
                    cooldown_s: 3600,
                    initial_side: if up { Side::Below } else { Side::Above },
                    tz: "Asia/Taipei",
                    lang: Lang::ZhTw,
                    now_ms: start.as_millisecond(),
                    deliver_to: None,
                })
                .await
                .expect("insert alert");
        }
    }
    let total = symbols * per_symbol;
    println!(
        "inserted {total} alerts on {symbols} symbols in {:.1} s; {}",
        t.elapsed().as_secs_f64(),
        memory()
    );

    // Whole ticks: every symbol is due; each is fetched once however many alerts watch it.
    for round in 1..=2 {
        let hits = upstreams.hits(Route::Yahoo);
        let t = Instant::now();
        let report = app.loops.price_alerts.tick().await.expect("tick");
        let requests = upstreams.hits(Route::Yahoo) - hits;
        println!(
            "tick {round}: {} symbols due, {requests} upstream requests, {} fired, {:.0} ms (fetches from the local fake included); {}",
            report.symbols_due,
            report.fired,
            t.elapsed().as_secs_f64() * 1000.0,
            memory()
        );
        assert_eq!(requests, report.symbols_due, "one request per distinct symbol due");
        clock.advance(SignedDuration::from_mins(10));
        set_prices(1.0);
    }

    // The evaluation step alone, quotes in memory: first with prices unchanged (nothing to
    // write), then with every price up 3.5 % (the rising alerts within 3.5 % fire, the falling
    // ones change nothing; fires render their card and record their delivery).
    for (label, factor) in [("unchanged prices", 1.0), ("prices +3.5 %", 1.035)] {
        clock.advance(SignedDuration::from_mins(10));
        let now = clock.now();
        let quotes: Vec<(String, Quote)> = (0..symbols)
            .map(|k| {
                let price = base_price(k) * factor;
                (
                    symbol(k),
                    Quote {
                        symbol: symbol(k),
                        name: None,
                        price,
                        previous_close: Some(base_price(k)),
                        currency: Some("USD".into()),
                        exchange: Some("CCC".into()),
                        instrument_type: Some("CRYPTOCURRENCY".into()),
                        day_range: Some((price, price)),
                        market_time: Some(now.as_second()),
                        session: None,
                    },
                )
            })
            .collect();
        let t = Instant::now();
        let mut fired = 0;
        for (sym, quote) in &quotes {
            fired +=
                app.loops.price_alerts.evaluate(sym, quote, now).await.expect("evaluate").len();
        }
        let elapsed = t.elapsed();
        println!(
            "evaluation, {label}: {total} alerts on {symbols} symbols in {:.0} ms ({:.2} µs per alert), {fired} fired; {}",
            elapsed.as_secs_f64() * 1000.0,
            elapsed.as_secs_f64() * 1e6 / total as f64,
            memory()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
