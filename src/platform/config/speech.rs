//! Voice: transcribing voice messages and speaking answers.

use clap::Args;

use super::Secret;

/// Voice messages heard and answers spoken.
#[derive(Debug, Clone, Args)]
pub struct SpeechSettings {
    /// The model that transcribes voice messages (`/audio/transcriptions`); empty: voice off.
    #[arg(long, env = "HEARTH_TRANSCRIBE_MODEL", default_value = "whisper-1", global = true)]
    pub transcribe_model: String,
    /// Base URL of the OpenAI-compatible transcription API, with the version (a local Whisper
    /// server, say); empty: OPENAI_BASE_URL with OPENAI_API_KEY.
    #[arg(long, env = "HEARTH_TRANSCRIBE_URL", default_value = "", global = true)]
    pub transcribe_url: String,
    /// API key for HEARTH_TRANSCRIBE_URL (OPENAI_API_KEY is never sent to another server); may
    /// be empty for local servers.
    #[arg(
        long,
        env = "HEARTH_TRANSCRIBE_API_KEY",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub transcribe_api_key: Secret,
    /// Longest voice message transcribed, in seconds; longer ones get a polite refusal.
    #[arg(long, env = "HEARTH_VOICE_MAX_SECS", default_value_t = 120, global = true)]
    pub voice_max_secs: u64,
    /// Transcribe voice messages in groups too, to find the trigger keyword in them (every voice
    /// message of the group then goes to the transcription server); off: voice in groups is
    /// ignored.
    #[arg(long, env = "HEARTH_GROUP_VOICE", default_value_t = false, action = clap::ArgAction::Set, global = true)]
    pub group_voice: bool,
    /// The model that speaks answers (an OpenAI-compatible `/audio/speech`, e.g. gpt-4o-mini-tts
    /// or tts-1): a chat that asks for spoken answers, and a voice message, get the answer as
    /// text and as a voice message. Empty: answers are never spoken. Needs HEARTH_PUBLIC_URL
    /// (LINE fetches the audio from there).
    #[arg(long, env = "HEARTH_TTS_MODEL", default_value = "", global = true)]
    pub tts_model: String,
    /// The voice HEARTH_TTS_MODEL speaks with (OpenAI: alloy, nova, shimmer, …).
    #[arg(long, env = "HEARTH_TTS_VOICE", default_value = "nova", global = true)]
    pub tts_voice: String,
    /// Base URL of the OpenAI-compatible speech API, with the version (a local server, say);
    /// empty: OPENAI_BASE_URL with OPENAI_API_KEY.
    #[arg(long, env = "HEARTH_TTS_URL", default_value = "", global = true)]
    pub tts_url: String,
    /// API key for HEARTH_TTS_URL (OPENAI_API_KEY is never sent to another server); may be
    /// empty for local servers.
    #[arg(
        long,
        env = "HEARTH_TTS_API_KEY",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub tts_api_key: Secret,
    /// Seconds the speech server has to answer (the whole audio): past it the text goes alone,
    /// in the reply, and a care prompt goes without its audio. Well inside a reply token's
    /// life, so the text is never pushed (and charged) for waiting on speech.
    #[arg(
        long,
        env = "HEARTH_TTS_TIMEOUT_SECS",
        default_value_t = 8,
        value_parser = clap::value_parser!(u64).range(1..=30),
        global = true
    )]
    pub tts_timeout_secs: u64,
    /// Answer a voice message with a spoken answer too (besides the text), whatever the chat
    /// asked for; off: only chats that asked for spoken answers get them.
    #[arg(long, env = "HEARTH_TTS_FOR_VOICE", default_value_t = true, action = clap::ArgAction::Set, global = true)]
    pub tts_for_voice: bool,
}
