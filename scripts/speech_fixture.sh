#!/usr/bin/env bash
# Makes tests/fixtures/speech.aac, the audio the fake speech server (tests/it/common/fake_media.rs)
# answers: 1.5 s of a 440 Hz tone, AAC LC in ADTS frames, mono at 24 kHz (what an
# OpenAI-compatible /audio/speech answers for response_format "aac"). Needs Debian's ffmpeg.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ffmpeg -hide_banner -loglevel error -y \
    -f lavfi -i "sine=frequency=440:duration=1.5:sample_rate=24000" \
    -ac 1 -c:a aac -b:a 24k -f adts tests/fixtures/speech.aac
ls -l tests/fixtures/speech.aac
