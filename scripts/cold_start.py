#!/usr/bin/env python3
"""Cold start of `hearth serve`: from exec to `/healthz` answering, on an existing database and
on a new one (every migration run), the same way every time (the guard rail of issue 44,
BENCHMARKS.md).

The binary is started pinned to one CPU (`taskset -c $COLD_START_CPU`, default 0) with a clean
environment and every upstream at a closed local port (nothing leaves the machine), and
`/healthz` is polled every 2 ms; each run is stopped once it answered. Prints every run and the
medians, in milliseconds.

Usage: scripts/cold_start.py [BINARY] [RUNS]   (default: target/release/hearth, 9)
"""

from __future__ import annotations

import http.client
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(port: int) -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=0.05)
        connection.request("GET", "/healthz")
        ok = connection.getresponse().status == 200
        connection.close()
        return ok
    except OSError:
        return False


def one_start(binary: str, database: str, cpu: str) -> float:
    port, closed = free_port(), f"http://127.0.0.1:{free_port()}"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LINE_CHANNEL_SECRET": "cold-start-secret", "LINE_CHANNEL_ACCESS_TOKEN": "cold-start-token",
        "OPENAI_API_KEY": "sk-cold-start", "OPENAI_BASE_URL": closed, "LINE_API_BASE": closed,
        "LINE_DATA_API_BASE": closed, "HEARTH_OPEN_METEO_URL": closed, "HEARTH_GEOCODING_URL": closed,
        "HEARTH_FX_URL": closed, "HEARTH_YAHOO_URL": closed, "DATABASE_URL": f"sqlite://{database}",
        "HEARTH_LISTEN": f"127.0.0.1:{port}", "RUST_LOG": "warn",
    }
    started = time.perf_counter()
    server = subprocess.Popen(["taskset", "-c", cpu, binary, "serve"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not answers(port):
            if server.poll() is not None:
                sys.exit(f"hearth exited with {server.returncode} before answering")
            if time.perf_counter() - started > 30:
                sys.exit("hearth did not answer /healthz within 30 s")
            time.sleep(0.002)
        return (time.perf_counter() - started) * 1000
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    binary = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "target/release/hearth")
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    cpu = os.environ.get("COLD_START_CPU", "0")
    with tempfile.TemporaryDirectory() as work:
        database = os.path.join(work, "hearth.db")
        new, existing = [], []
        for _ in range(runs):
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(database + suffix):
                    os.remove(database + suffix)
            new.append(one_start(binary, database, cpu))
            existing.append(one_start(binary, database, cpu))
    print(f"{binary}: {runs} runs, pinned to CPU {cpu}")
    print("existing database (ms): " + ", ".join(f"{t:.0f}" for t in existing) + f"; median {statistics.median(existing):.0f}")
    print("new database (ms):      " + ", ".join(f"{t:.0f}" for t in new) + f"; median {statistics.median(new):.0f}")


if __name__ == "__main__":
    main()
