"""The peer hearth's webhook is measured against: a LINE bot's webhook built the way a typical
Python LINE bot is built (aiohttp and LINE's official SDK, ``line-bot-sdk`` v3). It checks the
signature and parses the events with the SDK's ``WebhookParser`` and answers 200; it stores
nothing and calls nothing, so what it costs is the least such a bot spends on a webhook.

``benches/webhook.rs`` starts it with ``BENCH_PEER=1`` and sends it the same signed webhooks it
sends hearth. By hand::

    python3 -m venv /tmp/peer && /tmp/peer/bin/pip install -r scripts/requirements-bench.txt
    LINE_CHANNEL_SECRET=... /tmp/peer/bin/python scripts/peer_bot.py 127.0.0.1:8001

Routes: ``POST /callback`` (401 without a valid signature, 400 for a body the SDK refuses, 200
otherwise) and ``GET /healthz``.
"""

import os
import sys

from aiohttp import web
from linebot.v3 import WebhookParser
from linebot.v3.exceptions import InvalidSignatureError


def application(channel_secret: str) -> web.Application:
    """The webhook's routes, checking signatures with ``channel_secret``."""
    parser = WebhookParser(channel_secret)
    parsed = [0]  # events parsed so far (a started aiohttp app's own state is read-only)

    async def callback(request: web.Request) -> web.Response:
        signature = request.headers.get("X-Line-Signature", "")
        body = await request.text()
        try:
            events = parser.parse(body, signature)
        except InvalidSignatureError:
            return web.Response(status=401, text="bad signature")
        except ValueError:
            return web.Response(status=400, text="not a LINE webhook")
        # A bot would hand each event to its handler here; the peer only counts them.
        parsed[0] += len(events)
        return web.Response(text="OK")

    async def healthz(_: web.Request) -> web.Response:
        return web.Response(text="ok")

    app = web.Application(client_max_size=1024 * 1024)
    app.router.add_post("/callback", callback)
    app.router.add_get("/healthz", healthz)
    return app


def main() -> None:
    """Serves on the ``host:port`` given as the only argument (default ``127.0.0.1:8001``)."""
    host, _, port = (sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:8001").rpartition(":")
    secret = os.environ["LINE_CHANNEL_SECRET"]
    web.run_app(application(secret), host=host or "127.0.0.1", port=int(port), print=None,
                access_log=None)


if __name__ == "__main__":
    main()
