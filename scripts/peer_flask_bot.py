"""The second peer hearth's webhook is measured against: a LINE bot's webhook as LINE's own
Python sample builds it (Flask, and ``line-bot-sdk`` v3's ``WebhookHandler``), served by
gunicorn with one worker of its default (sync) kind, the way such a bot is usually deployed. It
checks the signature, parses the events and hands each to the handler registered for its
type, which does nothing (a bot would reply there); it stores nothing and calls nothing.

``scripts/peer_bot.py`` is the other peer: aiohttp, parse only, the least a Python bot spends.

``benches/webhook.rs`` starts this one with ``BENCH_PEER=flask``. By hand::

    python3 -m venv /tmp/peer && /tmp/peer/bin/pip install -r scripts/requirements-bench.txt
    LINE_CHANNEL_SECRET=... /tmp/peer/bin/python scripts/peer_flask_bot.py 127.0.0.1:8001

Routes: ``POST /callback`` (400 without a valid signature, as the sample answers, 200
otherwise) and ``GET /healthz``.
"""

import os
import sys

from flask import Flask, abort, request
from gunicorn.app.base import BaseApplication
from linebot.v3 import WebhookHandler
from linebot.v3.exceptions import InvalidSignatureError
from linebot.v3.webhooks import MessageEvent, TextMessageContent


def application(channel_secret: str) -> Flask:
    """The sample's routes, checking signatures with ``channel_secret``."""
    app = Flask(__name__)
    handler = WebhookHandler(channel_secret)
    handled = [0]  # events handed to the handler so far

    @app.route("/callback", methods=["POST"])
    def callback():
        signature = request.headers.get("X-Line-Signature", "")
        body = request.get_data(as_text=True)
        try:
            handler.handle(body, signature)
        except InvalidSignatureError:
            abort(400)
        return "OK"

    @handler.add(MessageEvent, message=TextMessageContent)
    def handle_message(_event):
        # The sample replies here (`MessagingApi.reply_message`); the peer only counts.
        handled[0] += 1

    @app.route("/healthz")
    def healthz():
        return "ok"

    return app


class Gunicorn(BaseApplication):
    """gunicorn serving ``app`` with ``options``, configured here instead of on a command line."""

    def __init__(self, app, options):
        self.app = app
        self.options = options
        super().__init__()

    def load_config(self):
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self):
        return self.app


def main() -> None:
    """Serves on the ``host:port`` given as the only argument (default ``127.0.0.1:8001``)."""
    bind = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:8001"
    app = application(os.environ["LINE_CHANNEL_SECRET"])
    Gunicorn(app, {"bind": bind, "workers": 1, "loglevel": "warning"}).run()


if __name__ == "__main__":
    main()
