# Sourced by scripts/idle_rss.sh: how it starts `hearth serve`
# idle, on a fresh SQLite file, with every external URL at a closed local port (nothing leaves
# the machine; start-up's quota reading fails at once, as it would with LINE unreachable).

# A free TCP port on 127.0.0.1.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_idle_server DIR PORT COMMAND...: runs COMMAND serve (COMMAND is the binary, perhaps
# behind a wrapper such as taskset) in the background with a clean environment, its database
# in DIR and its log in DIR/log; sets IDLE_PID and returns once /healthz answers.
start_idle_server() {
    local dir=$1 port=$2 closed
    shift 2
    closed="http://127.0.0.1:$(free_port)"
    rm -f "$dir"/hearth.db*
    env -i PATH="$PATH" \
        LINE_CHANNEL_SECRET=idle-rss-secret LINE_CHANNEL_ACCESS_TOKEN=idle-rss-token \
        OPENAI_API_KEY=sk-idle-rss OPENAI_BASE_URL="$closed" LINE_API_BASE="$closed" \
        LINE_DATA_API_BASE="$closed" HEARTH_OPEN_METEO_URL="$closed" \
        HEARTH_GEOCODING_URL="$closed" HEARTH_FX_URL="$closed" HEARTH_YAHOO_URL="$closed" \
        DATABASE_URL="sqlite://$dir/hearth.db" HEARTH_LISTEN="127.0.0.1:$port" RUST_LOG=warn \
        "$@" serve >/dev/null 2>"$dir/log" &
    IDLE_PID=$!
    for _ in $(seq 1 1500); do
        curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && return 0
        kill -0 "$IDLE_PID" 2>/dev/null || { cat "$dir/log" >&2; exit 1; } # it exited by itself
        sleep 0.02
    done
    echo "hearth did not answer /healthz" >&2
    kill "$IDLE_PID" 2>/dev/null || true
    exit 1
}
