#!/usr/bin/env bash
# Idle memory of `hearth serve`, measured the same way every time (issue 17, BENCHMARKS.md
# "Idle RSS"): the binary is started pinned to one CPU (`taskset -c $IDLE_RSS_CPU`, default 0) on
# a fresh SQLite file, read from /proc/<pid>/status two seconds after /healthz answers, then
# stopped; RUNS starts (default 3), each figure reported as the median. Every external URL
# points at a closed local port, so nothing leaves the machine (start-up's quota reading fails
# at once, as it would with LINE unreachable).
#
# Usage: scripts/idle_rss.sh [BINARY] [RUNS]   (default: target/release/hearth, 3)
# Prints one line per run and the medians: VmRSS, RssAnon, RssFile, threads, the executable's
# size, and the resident pages of the executable's mappings by kind (code, read-only data,
# writable data), from /proc/<pid>/smaps.
set -euo pipefail

bin=${1:-target/release/hearth}
runs=${2:-3}
cpu=${IDLE_RSS_CPU:-0}
[ -x "$bin" ] || { echo "no executable at $bin (cargo build --release first)" >&2; exit 1; }
bin=$(realpath "$bin")

# shellcheck source=scripts/idle_server.sh
. "$(dirname "$0")/idle_server.sh"

# The KiB of field $2 in /proc/$1/status.
status_kib() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }

# Resident KiB of the executable's mappings with permissions $3 in /proc/$1/smaps.
exe_rss_kib() {
    awk -v exe="$2" -v perms="$3" '
        /^[0-9a-f]+-[0-9a-f]+ / { mine = ($6 == exe && $2 == perms) }
        mine && $1 == "Rss:" { kib += $2 }
        END { print kib + 0 }' "/proc/$1/smaps"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

mib() { awk '{ printf "%.1f", $1 / 1024 }'; }

# The executable dropped from the page cache, then read whole, before the runs: the kernel maps
# cached pages around each fault, so RssFile depends on what is cached and how it got there (a
# binary just written by the linker reads differently from one read back), and two binaries
# are compared only in the same state.
python3 -c 'import os, sys; os.posix_fadvise(os.open(sys.argv[1], os.O_RDONLY), 0, 0, os.POSIX_FADV_DONTNEED)' "$bin"
cat "$bin" >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "executable: $bin ($(stat -c %s "$bin") bytes); pinned to CPU $cpu; $(cut -d' ' -f1-3 /proc/loadavg) load"
printf '%-4s %8s %8s %8s %7s %8s %8s %8s   (KiB)\n' run VmRSS RssAnon RssFile threads code rodata data
for run in $(seq 1 "$runs"); do
    port=$(free_port)
    start_idle_server "$work" "$port" taskset -c "$cpu" "$bin"
    pid=$IDLE_PID
    sleep 2
    row="$(status_kib $pid VmRSS) $(status_kib $pid RssAnon) $(status_kib $pid RssFile)"
    row="$row $(awk '$1 == "Threads:" { print $2 }' /proc/$pid/status)"
    for perms in r-xp r--p rw-p; do row="$row $(exe_rss_kib $pid "$bin" $perms)"; done
    kill "$pid"
    wait "$pid" || true
    echo "$row" >>"$work/rows"
    # shellcheck disable=SC2086
    printf '%-4s %8s %8s %8s %7s %8s %8s %8s\n' "$run" $row
done
printf '%-4s' median
for col in 1 2 3 4 5 6 7; do
    value=$(cut -d' ' -f$col "$work/rows" | median)
    if [ $col -eq 4 ]; then printf ' %7s' "$value"; else printf ' %6sMiB' "$(echo "$value" | mib)"; fi
done
echo
