//! Photos, voice messages and files: how much is downloaded, and the sandboxed children that parse
//! untrusted content.

use clap::Args;

/// Downloading what the family sends and parsing it safely.
#[derive(Debug, Clone, Args)]
pub struct MediaSettings {
    /// Most bytes of a photo, voice message or file downloaded from LINE; larger ones are refused.
    #[arg(long, env = "HEARTH_MEDIA_MAX_BYTES", default_value_t = 10_000_000, global = true)]
    pub media_max_bytes: usize,
    /// Most child processes parsing untrusted content (PDFs, photos, text files, web pages) at
    /// once; more wait their turn, one chat at a time.
    #[arg(long, env = "HEARTH_PARSERS", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=64), global = true)]
    pub parsers: u64,
    /// Address space of one parsing child, in MiB: a file that needs more is refused politely.
    #[arg(long, env = "HEARTH_PARSER_MEMORY_MB", default_value_t = 512, value_parser = clap::value_parser!(u64).range(128..=65_536), global = true)]
    pub parser_memory_mb: u64,
    /// Seconds one parsing child may run (wall clock and CPU time) before it is killed.
    #[arg(long, env = "HEARTH_PARSER_SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=600), global = true)]
    pub parser_secs: u64,
    /// The executable started as a parsing child (default: this one).
    #[arg(long, env = "HEARTH_PARSER_PROGRAM", hide = true, global = true)]
    pub parser_program: Option<std::path::PathBuf>,
}
