//! The `hearth` command: `serve` (the LINE webhook), `chat` (the agent in a terminal), `tools`
//! (the tool definitions as sent to the LLM), `migrate`, `doctor` (checks a deployment), `eval`
//! (the model's tool routing, scored), `usage` (each chat's LLM tokens and cost in a month),
//! `richmenu` (hearth's rich menus at LINE), and who is served: `chats`, `approve`, `revoke`, `pair`.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use hearth::contract::schema::Audience;
use hearth::platform::clock::SystemClock;
use hearth::platform::config::{Config, LogFormat};
use hearth::server::app::Hearth;
use tracing_subscriber::EnvFilter;

/// hearth — a family assistant for LINE.
#[derive(Parser)]
#[command(name = "hearth", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    config: Config,
}

#[derive(Subcommand)]
enum Command {
    /// Run the LINE webhook server (POST /callback, GET /healthz).
    Serve,
    /// Talk to the agent in the terminal, as a 1:1 chat (needs only the LLM settings).
    Chat,
    /// Print the tool definitions exactly as sent to the LLM in a 1:1 chat, or in a group with
    /// `--group` (with those of the MCP servers that answered); with `--tokens`, what they cost
    /// in both.
    Tools {
        /// The definitions a group is sent (group-only arguments included).
        #[arg(long)]
        group: bool,
        /// Print the o200k tokens of each tool's definition and of the whole list, for a 1:1
        /// chat and for a group, instead of the definitions.
        #[arg(long)]
        tokens: bool,
    },
    /// Apply the database migrations (DATABASE_URL) and exit; `serve` applies them too.
    Migrate,
    /// Write a consistent copy of the SQLite database to PATH while it stays in use (a new
    /// file); on PostgreSQL use pg_dump.
    Backup {
        /// The copy to write.
        path: std::path::PathBuf,
    },
    /// Copy everything of a SQLite database into an empty PostgreSQL one, in one transaction,
    /// each table's row count checked (the way from one machine to several replicas).
    CopyData {
        /// The SQLite database: sqlite://path/to/hearth.db (refused while `serve` uses it).
        #[arg(long)]
        from: String,
        /// The PostgreSQL database: postgres://… (empty; migrated here).
        #[arg(long)]
        to: String,
    },
    /// Write everything hearth keeps for one chat as one JSON document (its format:
    /// docs/export.md), to standard output or --out.
    Export {
        /// The chat (its id, as `hearth chats` shows it).
        #[arg(long)]
        chat: String,
        /// Write the document to this new file instead of standard output (an existing file or
        /// a symbolic link is refused unless `--force`).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Replace the file `--out` names if it exists.
        #[arg(long)]
        force: bool,
    },
    /// Put a copy made by `hearth backup` in place of the SQLite database, after checking it
    /// (integrity, migrations); refused while a server uses the database.
    Restore {
        /// The copy to put back.
        path: std::path::PathBuf,
    },
    /// Check this deployment (settings, database, LINE token and webhook, LLM, search, quota,
    /// MCP servers): a ✓/⚠/✗ list, each ✗ with its fix; exits non-zero on any ✗.
    Doctor(hearth::cli::doctor::DoctorArgs),
    /// Measure the model's tool routing on a data set of family requests (needs only the LLM
    /// settings): precision and recall per tool, argument accuracy, the fenced pairs' confusion.
    Eval(hearth::cli::eval::EvalArgs),
    /// List the chats hearth has heard from: pending (waiting for approval), approved, revoked.
    Chats,
    /// Approve a chat (its id, as `hearth chats` or its waiting message shows it).
    Approve {
        /// The chat: a user (U…), group (C…) or room (R…) id.
        id: String,
    },
    /// Stop serving a chat until it is approved again.
    Revoke {
        /// The chat: a user (U…), group (C…) or room (R…) id.
        id: String,
    },
    /// Print each chat's turns, LLM tokens (input / cached / output) and cost in a month (the
    /// cost when HEARTH_LLM_PRICE_INPUT, HEARTH_LLM_PRICE_CACHED and HEARTH_LLM_PRICE_OUTPUT are set).
    Usage {
        /// The month, YYYY-MM (default: this month in HEARTH_TIMEZONE).
        #[arg(long, value_parser = hearth::cli::usage::month)]
        month: Option<String>,
    },
    /// hearth's rich menus at LINE (the panel of big buttons under a 1:1 chat): `install`
    /// (replacing hearth's earlier ones), `remove`, or `draw` their images to look at.
    #[command(subcommand)]
    Richmenu(hearth::cli::richmenu::RichMenuCommand),
    /// Print a one-time pairing code: sent by a person in a chat within ten minutes, it
    /// approves that chat (the way a family sets hearth up from their phones).
    Pair,
    /// Do the LINE console's chores through the API, safe to run again: check the token, register
    /// and test the webhook URL (HEARTH_PUBLIC_URL/callback), install the rich menus, print the
    /// add-friend link with its QR code and a pairing code, and say what only the console can do.
    Setup(hearth::cli::setup::SetupArgs),
}

fn main() -> ExitCode {
    // A parsing child limits itself and does its one job before anything else is set up.
    if let Some(code) = hearth::sources::sandbox::child::run_if_child() {
        return code;
    }
    hearth::platform::tls::install_crypto_provider();
    // No setting's value is shown in `--help`: URL settings may carry credentials.
    let mut command = Cli::command().mut_args(|arg| arg.hide_env_values(true));
    command.build();
    // A renamed setting's former name still works: given as the new name's flag.
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let former = hearth::platform::config::renamed::as_flags(
        |name| std::env::var(name).ok(),
        &command,
        &args,
    );
    args.extend(former);
    let cli = match command.try_get_matches_from(args).and_then(|m| Cli::from_arg_matches(&m)) {
        Ok(cli) => cli,
        // A refused value is quoted in the message: a URL's credentials are masked there too.
        Err(e) if e.use_stderr() => {
            eprint!("{}", hearth::platform::config::redact_urls_in(&e.render().to_string()));
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
        Err(e) => e.exit(),
    };
    init_logs(cli.config.log_format, default_log_level(&cli.command));
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("hearth: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hearth: {}", hearth::platform::config::redact_urls_in(&format!("{e:#}")));
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let config = cli.config.with_public_url_from_https();
    match cli.command {
        Command::Tools { group, tokens } => {
            let deps = hearth::features::deps::Deps::offline(
                &config,
                hearth::server::app::sources(&config)?,
                hearth::store::Store::in_memory().await?,
                hearth::sources::calendar::WorkCalendar::load(
                    config.family.work_calendar.as_deref(),
                )?,
            )?;
            let mcp = hearth::llm::mcp::McpServers::start(&config).await?;
            let registry = hearth::tools::registry(&deps)?
                .with_sources(mcp.sources())?
                .with_max_tools(config.llm.max_tools);
            if tokens {
                print!("{}", hearth::llm::tokens::table(&registry, config.llm.llm_strict));
            } else {
                let audience = if group { Audience::Group } else { Audience::OneToOne };
                let definitions = registry.definitions(audience);
                let sent = hearth::llm::openai::tool_specs(&definitions, config.llm.llm_strict);
                println!("{}", serde_json::to_string_pretty(&sent)?);
            }
        }
        Command::Eval(args) => {
            require(config.llm.missing())?;
            hearth::cli::eval::run_cli(&config, &args).await?;
        }
        Command::Chats => {
            let door = hearth::cli::access::door(&config).await?;
            print!("{}", hearth::cli::access::chats(&door).await?);
        }
        Command::Approve { id } => {
            let door = hearth::cli::access::door(&config).await?;
            println!("{}", hearth::cli::access::approve(&door, &id).await?);
        }
        Command::Revoke { id } => {
            let door = hearth::cli::access::door(&config).await?;
            println!("{}", hearth::cli::access::revoke(&door, &id).await?);
        }
        Command::Usage { month } => {
            let store = hearth::store::Store::connect(&config.store.database_url).await?;
            let month = match month {
                Some(month) => month,
                None => {
                    let tz = jiff::tz::TimeZone::get(&config.family.timezone)?;
                    jiff::Timestamp::now().to_zoned_datetime(tz).strftime("%Y-%m").to_string()
                }
            };
            let prices = hearth::cli::usage::Prices::from_config(&config);
            let spent = hearth::features::budget::Spent::new(store);
            print!("{}", hearth::cli::usage::report(&spent, &month, prices).await?);
        }
        Command::Pair => {
            let door = hearth::cli::access::door(&config).await?;
            let code = hearth::cli::access::pair(&door).await?;
            let valid = hearth::turn::limits::access::PAIRING_VALID;
            println!("{code}");
            eprintln!(
                "Send this code to hearth in the chat to approve (a 1:1 chat or a group) within {} minutes; it works once.",
                valid.as_secs() / 60
            );
        }
        Command::Backup { path } => {
            print!("{}", hearth::cli::backup::backup(&config, &path).await?);
        }
        Command::CopyData { from, to } => {
            // A server writing the source while it is read would leave the copy behind.
            let _lock = match hearth::store::sqlite_file(&from) {
                Some(file) => Some(hearth::store::ServeLock::take(&file)?),
                None => None,
            };
            let source = hearth::store::Store::open(&from).await?;
            let target = hearth::store::Store::open(&to).await?;
            let counts = hearth::store::copy_data(&source, &target).await?;
            for (table, rows) in &counts {
                println!("{table:<28} {rows:>8}");
            }
            let total: i64 = counts.iter().map(|(_, rows)| rows).sum();
            println!("copied {total} rows in {} tables, every count checked", counts.len());
        }
        Command::Export { chat, out, force } => {
            let store = hearth::store::Store::connect(&config.store.database_url).await?;
            let chat = hearth::turn::limits::access::chat_id(&chat)?;
            let tz = jiff::tz::TimeZone::get(&config.family.timezone)?;
            let lang = hearth::platform::i18n::Lang::ZhTw;
            let calendar = hearth::sources::calendar::WorkCalendar::load(
                config.family.work_calendar.as_deref(),
            )?;
            let now = jiff::Timestamp::now();
            let document =
                hearth::features::export::ops::export(&store, &chat, &tz, lang, &calendar, now)
                    .await?;
            // A typo must not read as a family with nothing kept.
            let door = hearth::cli::access::door(&config).await?;
            if document.is_empty() && door.standing(&chat).await?.is_none() {
                anyhow::bail!(
                    "hearth has never heard from {chat} and keeps nothing for it: see `hearth chats` for the chats it knows"
                );
            }
            let json = serde_json::to_string_pretty(&document)? + "\n";
            match out {
                Some(path) => {
                    hearth::cli::export::write_new(&path, json.as_bytes(), force)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                    println!("wrote everything kept for {chat} to {}", path.display());
                }
                None => print!("{json}"),
            }
        }
        Command::Richmenu(command) => {
            use hearth::cli::richmenu::{self, RichMenuCommand};
            let store = || hearth::store::Store::connect(&config.store.database_url);
            print!(
                "{}",
                match command {
                    RichMenuCommand::Install => richmenu::install(&config, &store().await?).await?,
                    RichMenuCommand::Remove => richmenu::remove(&config, &store().await?).await?,
                    RichMenuCommand::Draw { out } => richmenu::draw(&config, &out)?,
                }
            );
        }
        Command::Restore { path } => {
            print!("{}", hearth::cli::backup::restore(&config, &path).await?);
        }
        Command::Migrate => {
            let store = hearth::store::Store::connect(&config.store.database_url).await?;
            println!("{} database is up to date", store.backend_name());
        }
        Command::Setup(args) => {
            let done = hearth::cli::setup::run(&config, args.dry_run).await;
            print!("{}", done.render(std::io::IsTerminal::is_terminal(&std::io::stdout())));
            let failed = done.report.count(hearth::cli::doctor::Status::Fail);
            if failed > 0 {
                anyhow::bail!("{failed} step(s) need the fix above; run hearth setup again after");
            }
        }
        Command::Doctor(args) => {
            let report = hearth::cli::doctor::examine(&config, &args.options()).await;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", report.render());
            }
            let failed = report.count(hearth::cli::doctor::Status::Fail);
            if failed > 0 {
                anyhow::bail!("{failed} problem(s) found: see the fixes above");
            }
        }
        Command::Chat => {
            require(config.llm.missing())?;
            let mut config = config;
            config.store.database_url = "sqlite::memory:".into();
            let app = Hearth::build(&config, Arc::new(SystemClock)).await?;
            hearth::cli::chat::run(app.turns.clone()).await?;
        }
        Command::Serve => {
            require(config.missing_for_serve())?;
            // Held until the process ends: no restore, and no second server, on this file.
            let _lock = match hearth::store::sqlite_file(&config.store.database_url) {
                Some(file) => Some(hearth::store::ServeLock::take(&file)?),
                None => None,
            };
            let app = Hearth::build(&config, Arc::new(SystemClock)).await?;
            let listener = tokio::net::TcpListener::bind(config.server.listen)
                .await
                .with_context(|| format!("cannot listen on {}", config.server.listen))?;
            tracing::info!(listen = %config.server.listen, "hearth is serving the LINE webhook at /callback");
            hearth::server::serve(listener, app, shutdown_signal()).await?;
        }
    }
    Ok(())
}

fn require(missing: Vec<&'static str>) -> anyhow::Result<()> {
    if missing.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "missing settings: {} (set them in the environment; see --help)",
        missing.join(", ")
    )
}

/// The log level when `RUST_LOG` is not set: `hearth chat` keeps the terminal for the
/// conversation (warnings only); the other commands log at `info`.
fn default_log_level(command: &Command) -> &'static str {
    match command {
        Command::Chat
        | Command::Doctor(_)
        | Command::Setup(_)
        | Command::Eval(_)
        | Command::Chats
        | Command::Approve { .. }
        | Command::Revoke { .. }
        | Command::Usage { .. }
        | Command::Pair => "warn",
        Command::Serve | Command::Tools { .. } | Command::Migrate => "info",
        Command::Backup { .. }
        | Command::Restore { .. }
        | Command::Export { .. }
        | Command::Richmenu(_)
        | Command::CopyData { .. } => "warn",
    }
}

fn init_logs(format: LogFormat, default_level: &str) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_level));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| hearth::platform::config::Redacting(std::io::stderr()));
    match format {
        LogFormat::Json => builder.json().init(),
        LogFormat::Text => builder.init(),
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down: finishing the work in hand");
}
