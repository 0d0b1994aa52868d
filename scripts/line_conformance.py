#!/usr/bin/env python3
"""Check JSON bodies that hearth sends to LINE (and webhook fixtures) against LINE's own models.

Usage:
    line_conformance.py [--allow-empty] DIR [DIR...]
    line_conformance.py --self-test
    line_conformance.py --spec-examples OUT DIR [DIR...]

Every ``*.json`` file under the given directories is checked; its kind comes from the suffix
before ``.json`` (``NAME.reply.json``, ``NAME.push.json``, ``NAME.loading.json``,
``NAME.callback.json``, ``NAME.message.json``, ``NAME.richmenu.json``, ``NAME.richmenualias.json``,
``NAME.richmenualiasupdate.json``), the channel's settings hearth setup sends
(``NAME.webhookendpoint.json``, ``NAME.webhooktest.json``), or ``NAME.answer.json``: what LINE answers, which hearth reads
(``{"endpoint": "GET /v2/bot/info", "model": "BotInfoResponse", "body": {...}}``; the fixtures of
``tests/fixtures/line-answers`` are served to hearth's client by ``tests/it/line_answers.rs``).
Other files are ignored, so a deliberately invalid fixture can be kept as e.g.
``NAME.callback.invalid.json``.

``--spec-examples OUT`` writes, for every endpoint the answers under the DIRs name, each example
LINE's spec gives of its answer as ``OUT/spec-*.answer.json`` (needs ``LINE_OPENAPI_DIR``), for
the same Rust test to read through hearth's client: LINE's own examples, not copied into the
project.

Checks per file:

1. The official Python SDK (``line-bot-sdk==3.27.0``, ``linebot.v3``) must parse it with
   ``Model.from_dict``. Reply/push bodies are parsed message by message with
   ``linebot.v3.messaging.Message`` (so errors carry an index), and as a request envelope; a
   callback is parsed event by event with ``linebot.v3.webhooks.Event``.
   Events whose ``type`` the SDK does not know are skipped with a note (LINE adds event types
   without notice).
2. Round trip: ``from_dict(x).to_dict()`` must equal ``x``. The SDK silently drops unknown keys,
   so this is what catches a misspelled key or wrong nesting. Normalisation rule:
     * nothing is removed from the input: a key the SDK output lacks is an error. That includes
       keys whose value is ``null`` (``to_dict`` omits nulls; LINE's spec declares no field we
       send as nullable, so hearth must omit the key rather than send ``null``);
     * a key only the SDK output has is accepted if its value equals the SDK model field's
       declared default (``notificationDisabled: false``, flex image ``animated: false``), except
       ``type``, which we always require to be explicit;
     * scalars compare strictly by JSON type (``true`` is not ``1``; ``1`` equals ``1.0``),
       objects ignore key order, arrays compare element by element.
3. Limits that neither the SDK nor the spec enforce (docs: "Message objects", "Character
   counting in a text"): text <= 5000 UTF-16 code units; altText <= 1500 (counted in UTF-16
   code units, the stricter reading of "characters"); <= 5 messages; quick reply <= 13 items,
   only on the last message, every item label present and <= 20 graphemes; message-action
   ``text`` and postback ``displayText`` <= 300 graphemes; flex button label <= 40 graphemes;
   flex bubble <= 30000 bytes and carousel <= 12 bubbles and <= 50000 bytes of minified UTF-8
   JSON; loadingSeconds a multiple of 5 in 5..60 and chatId a user ID (1:1 chats only); a rich
   menu's image 800..2500 pixels wide, at least 250 high, width/height >= 1.45, at most 20
   areas, each inside the image, each action's label <= 20 graphemes. Graphemes are approximated: code points,
   not counting combining marks, variation selectors, emoji modifiers, tag characters, the
   character after a zero-width joiner, and the second regional indicator of a flag.
   An answer's body is parsed with the SDK model it names (``linebot.v3.messaging``), round
   trip included.
4. If ``LINE_OPENAPI_DIR`` names a directory with ``messaging-api.yml`` and ``webhook.yml``,
   the body is validated with ``jsonschema.Draft4Validator`` against the spec (an answer against the
   schema of its endpoint's 200 answer, which must be the model it names), after rewriting
   the schemas so that every discriminator base dispatches on its discriminator (a plain
   validator ignores ``discriminator``). Callback events whose type the spec lacks (such as
   ``messageEdited``) are left out of that check with a note. OpenAPI ``nullable`` is ignored;
   ``format: uri`` is checked as "has a scheme, no whitespace".

Exit status: 0 if every file conforms, 1 if any file fails or no file was found (unless
``--allow-empty``), 2 on a usage or environment error.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import enum
import functools
import importlib
import json
import os
import re
import sys
import unicodedata
from pathlib import Path

KINDS = ("reply", "push", "loading", "callback", "message", "richmenu", "richmenualias", "richmenualiasupdate",
         "webhookendpoint", "webhooktest", "answer")
SCHEMA_PREFIX = "#/components/schemas/"
OPENAPI_SKIPPED = "openapi: skipped (LINE_OPENAPI_DIR not set or not found)"

MAX_MESSAGES = 5
MAX_TEXT_UTF16 = 5000
MAX_ALT_TEXT_UTF16 = 1500
MAX_QUICK_REPLY_ITEMS = 13
MAX_QUICK_REPLY_LABEL = 20
MAX_ACTION_TEXT = 300
MAX_FLEX_BUTTON_LABEL = 40
MAX_BUBBLE_BYTES = 30_000
MAX_CAROUSEL_BUBBLES = 12
MAX_CAROUSEL_BYTES = 50_000
MAX_RICH_MENU_AREAS = 20
MAX_RICH_MENU_LABEL = 20


class Report:
    """Problems (make the file fail) and notes (informational) for one body."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.notes: list[str] = []

    def fail(self, message: str) -> None:
        if message not in self.problems:
            self.problems.append(message)

    def note(self, message: str) -> None:
        self.notes.append(message)


# --------------------------------------------------------------------------- counting


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _extends_cluster(ch: str) -> bool:
    cp = ord(ch)
    return (
        unicodedata.category(ch) in ("Mn", "Me", "Mc")
        or cp == 0x200D  # zero-width joiner
        or 0xFE00 <= cp <= 0xFE0F  # variation selectors
        or 0x1F3FB <= cp <= 0x1F3FF  # emoji skin-tone modifiers
        or 0xE0020 <= cp <= 0xE007F  # tag characters (subdivision flags)
        or 0xE0100 <= cp <= 0xE01EF  # variation selectors supplement
    )


def grapheme_len(text: str) -> int:
    """Approximate count of extended grapheme clusters (see the module docstring)."""
    count, after_zwj, open_flag = 0, False, False
    for ch in text:
        if _extends_cluster(ch):
            after_zwj = ord(ch) == 0x200D
            continue
        if after_zwj:
            after_zwj = False
            continue
        is_regional = 0x1F1E6 <= ord(ch) <= 0x1F1FF
        if is_regional and open_flag:
            open_flag = False
            continue
        open_flag = is_regional
        count += 1
    return count


def minified_size(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def one_line(error: BaseException, limit: int = 300) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------- SDK


def require(module: str):
    """Import a dependency or exit 2 with a hint."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        print(f"error: cannot import {module} ({error}); pip install -r scripts/requirements-ci.txt", file=sys.stderr)
        sys.exit(2)


@functools.cache
def sdk():
    """The SDK classes used here, imported once."""
    messaging, webhooks = require("linebot.v3.messaging"), require("linebot.v3.webhooks")
    return {
        "reply": messaging.ReplyMessageRequest,
        "push": messaging.PushMessageRequest,
        "loading": messaging.ShowLoadingAnimationRequest,
        "message": messaging.Message,
        "event": webhooks.Event,
        "callback": webhooks.CallbackRequest,
        "richmenu": messaging.RichMenuRequest,
        "richmenualias": messaging.CreateRichMenuAliasRequest,
        "richmenualiasupdate": messaging.UpdateRichMenuAliasRequest,
        "webhookendpoint": messaging.SetWebhookEndpointRequest,
        "webhooktest": messaging.TestWebhookEndpointRequest,
        "messaging": messaging,
        # Name-mangled class attribute of the generated model: the SDK's known event types.
        "event_types": set(getattr(webhooks.Event, "_Event__discriminator_value_class_map")),
    }


def sdk_default(model: object, key: str) -> object:
    """Declared default of the field serialised as `key` on a pydantic (v1 API) model, or None."""
    for field in getattr(type(model), "__fields__", {}).values():
        if field.alias == key:
            return field.default
    return None


def sdk_child(model: object, key: object) -> object:
    """The sub-model (or plain value) at `key`, to look up defaults one level down."""
    if isinstance(key, int):
        return model[key] if isinstance(model, list) and key < len(model) else None
    if isinstance(model, dict):
        return model.get(key)
    for name, field in getattr(type(model), "__fields__", {}).items():
        if field.alias == key:
            return getattr(model, name, None)
    return None


def same_scalar(a: object, b: object) -> bool:
    a, b = (x.value if isinstance(x, enum.Enum) else x for x in (a, b))
    # A date-time the SDK parsed (an answer's `timestamp`) against the text it came from.
    if isinstance(b, datetime.datetime) and isinstance(a, str):
        try:
            return datetime.datetime.fromisoformat(a) == b
        except ValueError:
            return False
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def diff(sent: object, parsed: object, model: object, path: str, report: Report) -> None:
    """Compare the input with the SDK's to_dict() output under the module's normalisation rule."""
    if isinstance(sent, dict) and isinstance(parsed, dict):
        for key, value in sent.items():
            where = f"{path}.{key}"
            if key not in parsed:
                reason = "null value (omit the key instead)" if value is None else "key dropped by the SDK (unknown or misspelled)"
                report.fail(f"round trip: {where}: {reason}")
            else:
                diff(value, parsed[key], sdk_child(model, key), where, report)
        for key, value in parsed.items():
            if key in sent:
                continue
            default = sdk_default(model, key)
            if key == "type" or default is None or not same_scalar(value, default):
                report.fail(f"round trip: {path}.{key}: added by the SDK as {json.dumps(value)[:80]}")
    elif isinstance(sent, list) and isinstance(parsed, list):
        if len(sent) != len(parsed):
            report.fail(f"round trip: {path}: {len(sent)} items sent, {len(parsed)} after the SDK")
        for index, (a, b) in enumerate(zip(sent, parsed)):
            diff(a, b, sdk_child(model, index), f"{path}[{index}]", report)
    elif not same_scalar(sent, parsed):
        report.fail(f"round trip: {path}: sent {json.dumps(sent)[:80]}, SDK gives {json.dumps(parsed, default=str)[:80]}")


def sdk_round_trip(cls: type, value: object, path: str, report: Report) -> None:
    """from_dict must succeed and to_dict must give the input back."""
    try:
        model = cls.from_dict(value)
    except Exception as error:  # pydantic ValidationError, ValueError, KeyError, ...
        report.fail(f"sdk {cls.__name__} at {path}: {one_line(error)}")
        return
    diff(value, model.to_dict(), model, path, report)


# --------------------------------------------------------------------------- limits


def check_action(action: object, path: str, report: Report, in_quick_reply: bool) -> None:
    if not isinstance(action, dict):
        return
    label = action.get("label")
    if in_quick_reply and not isinstance(label, str):
        report.fail(f"limit: {path}.label: required on a quick reply action")
    elif in_quick_reply and grapheme_len(label) > MAX_QUICK_REPLY_LABEL:
        report.fail(f"limit: {path}.label: {grapheme_len(label)} graphemes (max {MAX_QUICK_REPLY_LABEL})")
    for key in ("text", "displayText"):
        if key == "text" and action.get("type") != "message":
            continue
        value = action.get(key)
        if isinstance(value, str) and grapheme_len(value) > MAX_ACTION_TEXT:
            report.fail(f"limit: {path}.{key}: {grapheme_len(value)} graphemes (max {MAX_ACTION_TEXT})")


def check_nested_actions(node: object, path: str, report: Report) -> None:
    """Actions anywhere inside a message body (flex components, templates, imagemaps)."""
    if isinstance(node, dict):
        if node.get("type") == "button" and isinstance(node.get("action"), dict):
            label = node["action"].get("label")
            if isinstance(label, str) and grapheme_len(label) > MAX_FLEX_BUTTON_LABEL:
                report.fail(f"limit: {path}.action.label: {grapheme_len(label)} graphemes (max {MAX_FLEX_BUTTON_LABEL})")
        for key, value in node.items():
            if key in ("action", "defaultAction"):
                check_action(value, f"{path}.{key}", report, in_quick_reply=False)
            if key != "quickReply":
                check_nested_actions(value, f"{path}.{key}", report)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            if path.endswith(".actions"):  # template and imagemap action lists
                check_action(item, f"{path}[{index}]", report, in_quick_reply=False)
            check_nested_actions(item, f"{path}[{index}]", report)


def check_flex_size(contents: object, path: str, report: Report) -> None:
    if not isinstance(contents, dict):
        return
    if contents.get("type") == "bubble" and minified_size(contents) > MAX_BUBBLE_BYTES:
        report.fail(f"limit: {path}: bubble is {minified_size(contents)} bytes (max {MAX_BUBBLE_BYTES})")
    if contents.get("type") == "carousel":
        bubbles = contents.get("contents") if isinstance(contents.get("contents"), list) else []
        if len(bubbles) > MAX_CAROUSEL_BUBBLES:
            report.fail(f"limit: {path}.contents: {len(bubbles)} bubbles (max {MAX_CAROUSEL_BUBBLES})")
        if minified_size(contents) > MAX_CAROUSEL_BYTES:
            report.fail(f"limit: {path}: carousel is {minified_size(contents)} bytes (max {MAX_CAROUSEL_BYTES})")
        for index, bubble in enumerate(bubbles):
            check_flex_size(bubble, f"{path}.contents[{index}]", report)


def check_quick_reply(quick_reply: object, path: str, report: Report) -> None:
    items = quick_reply.get("items") if isinstance(quick_reply, dict) else None
    if not isinstance(items, list):
        return
    if len(items) > MAX_QUICK_REPLY_ITEMS:
        report.fail(f"limit: {path}.items: {len(items)} items (max {MAX_QUICK_REPLY_ITEMS})")
    for index, item in enumerate(items):
        if isinstance(item, dict):
            check_action(item.get("action"), f"{path}.items[{index}].action", report, in_quick_reply=True)


def check_message_limits(message: object, path: str, report: Report) -> None:
    if not isinstance(message, dict):
        return
    text = message.get("text")
    if message.get("type") in ("text", "textV2") and isinstance(text, str) and utf16_len(text) > MAX_TEXT_UTF16:
        report.fail(f"limit: {path}.text: {utf16_len(text)} UTF-16 units (max {MAX_TEXT_UTF16})")
    alt_text = message.get("altText")
    if isinstance(alt_text, str) and utf16_len(alt_text) > MAX_ALT_TEXT_UTF16:
        report.fail(f"limit: {path}.altText: {utf16_len(alt_text)} UTF-16 units (max {MAX_ALT_TEXT_UTF16})")
    if message.get("type") == "flex":
        check_flex_size(message.get("contents"), f"{path}.contents", report)
    check_quick_reply(message.get("quickReply"), f"{path}.quickReply", report)
    check_nested_actions(message, path, report)


def check_messages_limits(messages: object, report: Report) -> None:
    if not isinstance(messages, list):
        return
    if len(messages) > MAX_MESSAGES:
        report.fail(f"limit: $.messages: {len(messages)} messages (max {MAX_MESSAGES})")
    for index, message in enumerate(messages):
        path = f"$.messages[{index}]"
        check_message_limits(message, path, report)
        if index < len(messages) - 1 and isinstance(message, dict) and "quickReply" in message:
            report.fail(f"limit: {path}.quickReply: only the last message's quick reply is shown")


# --------------------------------------------------------------------------- OpenAPI


def dispatch_schemas(schemas: dict) -> dict:
    """Copy of an OpenAPI schema set in which each discriminator base B gets a B__dispatch schema.

    B__dispatch = allOf[B, oneOf[type == v and S, for each mapping v -> S]]; every $ref to B now
    points at B__dispatch, except a subtype's own back-reference to B (top-level allOf item).
    """
    schemas = copy.deepcopy(schemas)
    mappings = {
        name: {value: ref.removeprefix(SCHEMA_PREFIX) for value, ref in schema["discriminator"]["mapping"].items()}
        for name, schema in schemas.items()
        if isinstance(schema, dict) and schema.get("discriminator", {}).get("mapping")
    }
    subtype_links = {(sub, base) for base, mapping in mappings.items() for sub in mapping.values()}

    def target(name: str) -> str:
        return SCHEMA_PREFIX + (f"{name}__dispatch" if name in mappings else name)

    def redirect(node: object, owner: str | None = None) -> None:
        if isinstance(node, list):
            for item in node:
                redirect(item)
        elif isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(SCHEMA_PREFIX):
                node["$ref"] = target(ref.removeprefix(SCHEMA_PREFIX))
            for key, value in node.items():
                if key == "allOf" and owner and isinstance(value, list):
                    for item in value:
                        back_ref = isinstance(item, dict) and set(item) == {"$ref"} and \
                            (owner, str(item["$ref"]).removeprefix(SCHEMA_PREFIX)) in subtype_links
                        if not back_ref:
                            redirect(item)
                elif key != "$ref":
                    redirect(value)

    for name, schema in schemas.items():
        redirect(schema, owner=name)
    for base, mapping in mappings.items():
        prop = schemas[base]["discriminator"]["propertyName"]
        branches = [
            {"allOf": [{"properties": {prop: {"enum": [value]}}, "required": [prop]}, {"$ref": target(sub)}]}
            for value, sub in mapping.items()
        ]
        schemas[f"{base}__dispatch"] = {"allOf": [{"$ref": SCHEMA_PREFIX + base}, {"oneOf": branches}]}
    return schemas


def openapi_dir() -> Path | None:
    raw = os.environ.get("LINE_OPENAPI_DIR", "")
    folder = Path(raw) if raw else None
    if folder and (folder / "messaging-api.yml").is_file() and (folder / "webhook.yml").is_file():
        return folder
    return None


@functools.cache
def openapi_schemas(spec_file: str) -> dict:
    """Load one spec and apply the dispatch rewrite; cached, so it runs once per file per run."""
    yaml = require("yaml")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(spec_file, encoding="utf-8") as handle:
        spec = yaml.load(handle, Loader=loader)
    return dispatch_schemas(spec["components"]["schemas"])


def uri_format_checker():
    checker = require("jsonschema").FormatChecker(formats=())
    checker.checks("uri")(lambda value: not isinstance(value, str) or bool(re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:\S*$", value)))
    return checker


@functools.cache
def openapi_validator(spec_file: str, schema_name: str):
    jsonschema = require("jsonschema")
    schemas = openapi_schemas(spec_file)
    name = f"{schema_name}__dispatch" if f"{schema_name}__dispatch" in schemas else schema_name
    root = {"$ref": SCHEMA_PREFIX + name, "components": {"schemas": schemas}}
    return jsonschema.Draft4Validator(root, format_checker=uri_format_checker())


def openapi_event_types(folder: Path) -> set[str]:
    return set(openapi_schemas(str(folder / "webhook.yml"))["Event"]["discriminator"]["mapping"])


def is_branch_miss(error) -> bool:
    """An error saying a B__dispatch branch is for another discriminator value."""
    where = list(error.relative_schema_path)
    return len(where) == 6 and where[1:4] == ["allOf", 0, "properties"] and where[5] == "enum"


def relevant_errors(error) -> list:
    """Leaf errors, leaving out the oneOf branches whose discriminator value did not match."""
    if not error.context:
        return [error]
    branches: dict = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    leaves = []
    for errors in branches.values():
        if not any(is_branch_miss(sub) for sub in errors):
            leaves += [leaf for sub in errors for leaf in relevant_errors(sub)]
    return leaves


def describe(error) -> str:
    if error.validator == "oneOf" and isinstance(error.instance, dict):
        return f"{error.json_path}: no subtype matches type {error.instance.get('type')!r}"
    if len(error.message) > 120 and isinstance(error.instance, (list, dict)):
        size = f" ({len(error.instance)} items)" if isinstance(error.instance, list) else ""
        return f"{error.json_path}: fails {error.validator} {json.dumps(error.validator_value)[:60]}{size}"
    return f"{error.json_path}: {one_line(error.message, 160)}"


def check_openapi(spec: str, schema_name: str, body: object, report: Report) -> None:
    folder = openapi_dir()
    if folder is None:
        return
    for error in openapi_validator(str(folder / spec), schema_name).iter_errors(body):
        leaves = relevant_errors(error) or [error]
        for leaf in leaves[:3]:
            report.fail(f"openapi {schema_name}: {describe(leaf)}")
        if len(leaves) > 3:
            report.fail(f"openapi {schema_name}: {len(leaves) - 3} more errors")


# --------------------------------------------------------------------------- kinds


def check_send_request(kind: str, body: object, report: Report) -> None:
    """Reply or push: each message on its own, then the envelope.

    The envelope is parsed with every message replaced by a trivial text message, so that a bad
    message (reported with its index above) cannot hide an envelope error; the count is kept.
    """
    messages = body.get("messages") if isinstance(body, dict) else None
    if isinstance(messages, list):
        for index, message in enumerate(messages):
            sdk_round_trip(sdk()["message"], message, f"$.messages[{index}]", report)
        envelope = {**body, "messages": [{"type": "text", "text": "-"} for _ in messages]}
    else:
        envelope = body
    sdk_round_trip(sdk()[kind], envelope, "$", report)
    check_messages_limits(messages, report)
    check_openapi("messaging-api.yml", "ReplyMessageRequest" if kind == "reply" else "PushMessageRequest", body, report)


def check_loading(body: object, report: Report) -> None:
    sdk_round_trip(sdk()["loading"], body, "$", report)
    seconds = body.get("loadingSeconds") if isinstance(body, dict) else None
    if isinstance(seconds, int) and not isinstance(seconds, bool) and (seconds % 5 or not 5 <= seconds <= 60):
        report.fail(f"limit: $.loadingSeconds: {seconds} (must be a multiple of 5 in 5..60)")
    chat_id = body.get("chatId") if isinstance(body, dict) else None
    if isinstance(chat_id, str) and not chat_id.startswith("U"):
        report.fail(f"limit: $.chatId: {chat_id[:12]}...: the loading animation is for 1:1 chats (user IDs) only")
    check_openapi("messaging-api.yml", "ShowLoadingAnimationRequest", body, report)


def check_message(body: object, report: Report) -> None:
    sdk_round_trip(sdk()["message"], body, "$", report)
    check_message_limits(body, "$", report)
    check_openapi("messaging-api.yml", "Message", body, report)


def check_rich_menu(body: object, report: Report) -> None:
    """A rich menu object: the SDK round trip, the image's size, the areas within it, the spec."""
    sdk_round_trip(sdk()["richmenu"], body, "$", report)
    size = body.get("size") if isinstance(body, dict) else None
    width, height = (size.get("width"), size.get("height")) if isinstance(size, dict) else (None, None)
    if not (isinstance(width, int) and isinstance(height, int)):
        report.fail("limit: $.size: width and height are required")
        return
    if not 800 <= width <= 2500 or height < 250 or width / height < 1.45:
        report.fail(f"limit: $.size: {width}x{height} (800..2500 wide, >= 250 high, width/height >= 1.45)")
    chat_bar = body.get("chatBarText")
    if not isinstance(chat_bar, str) or not 1 <= len(chat_bar) <= 14:
        report.fail("limit: $.chatBarText: 1 to 14 characters")
    areas = body.get("areas") if isinstance(body.get("areas"), list) else []
    if len(areas) > MAX_RICH_MENU_AREAS:
        report.fail(f"limit: $.areas: {len(areas)} areas (max {MAX_RICH_MENU_AREAS})")
    for index, area in enumerate(areas):
        bounds = area.get("bounds") if isinstance(area, dict) else None
        values = [bounds.get(k) for k in ("x", "y", "width", "height")] if isinstance(bounds, dict) else []
        if len(values) != 4 or not all(isinstance(v, int) for v in values) \
                or values[0] + values[2] > width or values[1] + values[3] > height:
            report.fail(f"limit: $.areas[{index}].bounds: not inside the {width}x{height} image")
        action = area.get("action") if isinstance(area, dict) else None
        check_action(action, f"$.areas[{index}].action", report, in_quick_reply=False)
        label = action.get("label") if isinstance(action, dict) else None
        if isinstance(label, str) and grapheme_len(label) > MAX_RICH_MENU_LABEL:
            report.fail(f"limit: $.areas[{index}].action.label: {grapheme_len(label)} graphemes (max {MAX_RICH_MENU_LABEL})")
    check_openapi("messaging-api.yml", "RichMenuRequest", body, report)


def check_alias(kind: str, schema: str, body: object, report: Report) -> None:
    sdk_round_trip(sdk()[kind], body, "$", report)
    alias = body.get("richMenuAliasId", "") if isinstance(body, dict) else ""
    if kind == "richmenualias" and not re.fullmatch(r"[a-z0-9_-]{1,32}", str(alias)):
        report.fail(f"limit: $.richMenuAliasId: {alias!r} is not [a-z0-9_-]{{1,32}}")
    check_openapi("messaging-api.yml", schema, body, report)


def check_request(kind: str, schema: str, body: object, report: Report) -> None:
    """A request body of the channel's settings (`hearth setup`): the SDK's model reads it back
    whole, and the spec agrees."""
    sdk_round_trip(sdk()[kind], body, "$", report)
    check_openapi("messaging-api.yml", schema, body, report)


def check_callback(body: object, report: Report) -> None:
    if not isinstance(body, dict) or not isinstance(body.get("events"), list):
        report.fail("callback: expected an object with an 'events' array")
        return
    known = sdk()["event_types"]
    kept = []
    for index, event in enumerate(body["events"]):
        event_type = event.get("type") if isinstance(event, dict) else None
        if isinstance(event_type, str) and event_type not in known:
            report.note(f"events[{index}]: type {event_type!r} unknown to the SDK: skipped")
            continue
        kept.append(event)
        sdk_round_trip(sdk()["event"], event, f"$.events[{index}]", report)
    envelope = {key: value for key, value in body.items() if key != "events"}
    sdk_round_trip(sdk()["callback"], {**envelope, "events": []}, "$", report)
    folder = openapi_dir()
    if folder is not None:
        spec_types = openapi_event_types(folder)
        for index, event in enumerate(body["events"]):
            event_type = event.get("type") if isinstance(event, dict) else None
            if event_type in known and event_type not in spec_types:
                report.note(f"events[{index}]: type {event_type!r} not in webhook.yml: OpenAPI check skipped")
        in_spec = [e for e in kept if not isinstance(e, dict) or e.get("type") not in known - spec_types]
        check_openapi("webhook.yml", "CallbackRequest", {**envelope, "events": in_spec}, report)


def answer_schema(endpoint: str) -> str | None:
    """The schema name of the 200 JSON answer of ``METHOD /path`` in the spec, if any."""
    folder = openapi_dir()
    if folder is None or " " not in endpoint:
        return None
    method, path = endpoint.split(" ", 1)
    yaml = require("yaml")
    spec = spec_document(str(folder / "messaging-api.yml"), yaml)
    operation = spec["paths"].get(path, {}).get(method.lower(), {})
    media = operation.get("responses", {}).get("200", {}).get("content", {}).get("application/json", {})
    ref = media.get("schema", {}).get("$ref", "")
    return ref.removeprefix(SCHEMA_PREFIX) or None


@functools.cache
def spec_document(spec_file: str, yaml) -> dict:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(spec_file, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=loader)


def check_answer(fixture: object, report: Report) -> None:
    """What LINE answers: the SDK's model of it parses it back whole, and the spec agrees."""
    if not isinstance(fixture, dict) or not all(isinstance(fixture.get(k), str) for k in ("endpoint", "model")) or "body" not in fixture:
        report.fail('answer: expected {"endpoint": "METHOD /path", "model": "SdkModel", "body": ...}')
        return
    model = getattr(sdk()["messaging"], fixture["model"], None)
    if model is None:
        report.fail(f"answer: the SDK has no model {fixture['model']}")
        return
    sdk_round_trip(model, fixture["body"], "$.body", report)
    if openapi_dir() is not None:
        schema = answer_schema(fixture["endpoint"])
        if schema != fixture["model"]:
            report.fail(f"answer: the spec's answer of {fixture['endpoint']} is {schema}, not {fixture['model']}")
        else:
            check_openapi("messaging-api.yml", schema, fixture["body"], report)


def spec_examples(out: str, roots: list[str]) -> int:
    """Writes the spec's examples of the answers of every endpoint the fixtures under roots name."""
    folder = openapi_dir()
    if folder is None:
        print(f"error: {OPENAPI_SKIPPED}", file=sys.stderr)
        return 2
    files, errors = collect(roots, False)
    if errors:
        print("error: " + "; ".join(errors), file=sys.stderr)
        return 2
    endpoints = {}
    for path, kind in files:
        if kind == "answer":
            fixture = json.loads(path.read_text(encoding="utf-8"))
            endpoints.setdefault(fixture["endpoint"], fixture["model"])
    spec = spec_document(str(folder / "messaging-api.yml"), require("yaml"))
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    written = 0
    for endpoint, model in sorted(endpoints.items()):
        method, path = endpoint.split(" ", 1)
        operation = spec["paths"].get(path, {}).get(method.lower(), {})
        media = operation.get("responses", {}).get("200", {}).get("content", {}).get("application/json", {})
        examples = {name: example.get("value") for name, example in media.get("examples", {}).items()}
        if "example" in media:
            examples["example"] = media["example"]
        for name, body in examples.items():
            slug = re.sub(r"[^a-z0-9]+", "-", f"{path}-{name}".lower()).strip("-")
            document = {"endpoint": endpoint, "model": model, "body": body}
            (target / f"spec-{method.lower()}-{slug}.answer.json").write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
            written += 1
    print(f"wrote {written} examples of LINE's spec for {len(endpoints)} endpoints to {target}")
    return 0 if written else 1


CHECKS = {
    "reply": lambda body, report: check_send_request("reply", body, report),
    "push": lambda body, report: check_send_request("push", body, report),
    "loading": check_loading,
    "callback": check_callback,
    "message": check_message,
    "richmenu": check_rich_menu,
    "richmenualias": lambda body, report: check_alias("richmenualias", "CreateRichMenuAliasRequest", body, report),
    "richmenualiasupdate": lambda body, report: check_alias("richmenualiasupdate", "UpdateRichMenuAliasRequest", body, report),
    "webhookendpoint": lambda body, report: check_request("webhookendpoint", "SetWebhookEndpointRequest", body, report),
    "webhooktest": lambda body, report: check_request("webhooktest", "TestWebhookEndpointRequest", body, report),
    "answer": check_answer,
}


def check_body(kind: str, body: object) -> Report:
    report = Report()
    CHECKS[kind](body, report)
    return report


# --------------------------------------------------------------------------- files


def kind_of(path: Path) -> str | None:
    parts = path.name.split(".")
    if len(parts) >= 3 and parts[-1] == "json" and parts[-2] in KINDS and parts[0]:
        return parts[-2]
    return None


def collect(roots: list[str], allow_empty: bool) -> tuple[list[tuple[Path, str]], list[str]]:
    """(file, kind) pairs under the roots, and errors for roots that do not exist."""
    found, errors = [], []
    for root in map(Path, roots):
        if root.is_file():
            candidates = [root]
        elif root.is_dir():
            candidates = sorted(root.rglob("*.json"))
        else:
            if allow_empty:
                print(f"note: {root}: not found")
            else:
                errors.append(f"{root}: not found")
            continue
        found += [(path, kind_of(path)) for path in candidates if kind_of(path)]
    return found, errors


def check_file(path: Path, kind: str) -> Report:
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        report = Report()
        report.fail(f"unreadable JSON: {one_line(error)}")
        return report
    return check_body(kind, body)


def print_openapi_mode() -> None:
    folder = openapi_dir()
    print(f"openapi: validating against {folder}" if folder else OPENAPI_SKIPPED)


def run(roots: list[str], allow_empty: bool) -> int:
    files, errors = collect(roots, allow_empty)
    for error in errors:
        print(f"error: {error}")
    if errors:
        return 1
    print_openapi_mode()
    counts = {kind: 0 for kind in KINDS}
    failed = 0
    for path, kind in files:
        counts[kind] += 1
        report = check_file(path, kind)
        for note in report.notes:
            print(f"note: {path}: {note}")
        if report.problems:
            failed += 1
            print(f"FAIL {path} [{kind}]: " + "; ".join(report.problems))
    by_kind = ", ".join(f"{kind}: {count}" for kind, count in counts.items() if count)
    summary = f"checked {len(files)} files" + (f" ({by_kind})" if by_kind else "")
    if not files:
        print(f"{summary}: no request bodies found" + (" (allowed)" if allow_empty else ""))
        return 0 if allow_empty else 1
    print(f"{summary}: all conform" if not failed else f"{summary}: {failed} of {len(files)} failed")
    return 1 if failed else 0


# --------------------------------------------------------------------------- self-test

USER = "U0123456789abcdef0123456789abcdef"


def good_reply() -> dict:
    bubble = {
        "type": "bubble",
        "body": {"type": "box", "layout": "vertical", "spacing": "sm", "contents": [
            {"type": "text", "text": "台北 明天", "weight": "bold", "size": "lg", "wrap": True},
            {"type": "box", "layout": "baseline", "contents": [
                {"type": "text", "text": "降雨機率", "flex": 2, "color": "#888888"},
                {"type": "text", "text": "80%", "flex": 3, "align": "end"},
            ]},
            {"type": "separator", "margin": "md"},
        ]},
        "footer": {"type": "box", "layout": "horizontal", "contents": [
            {"type": "button", "style": "link", "height": "sm",
             "action": {"type": "uri", "label": "詳細", "uri": "https://www.cwa.gov.tw/"}},
            {"type": "button", "style": "primary", "height": "sm",
             "action": {"type": "postback", "label": "提醒我帶傘", "data": "a=remind&t=abc", "displayText": "提醒我帶傘"}},
        ]},
    }
    chips = {"items": [
        {"type": "action", "action": {"type": "message", "label": "後天呢？", "text": "hearth 後天台北天氣"}},
        {"type": "action", "action": {"type": "postback", "label": "👨‍👩‍👧 全家", "data": "a=fam", "displayText": "全家"}},
    ]}
    return {"replyToken": "7f3c1b2e9a4d4c5e8b6a0d1e2f3a4b5c", "messages": [
        {"type": "text", "text": "明天台北會下雨，記得帶傘 ☔", "quoteToken": "q-abc123"},
        {"type": "flex", "altText": "台北明天天氣", "contents": bubble, "quickReply": chips},
    ]}


def good_callback() -> dict:
    common = {"mode": "active", "timestamp": 1764470000000, "deliveryContext": {"isRedelivery": False},
              "source": {"type": "group", "groupId": "C0123456789abcdef0123456789abcdef", "userId": USER}}
    return {"destination": "U8e742f61d673b39c7fff3cecb7536ef0", "events": [
        {**common, "type": "message", "webhookEventId": "01KB3Q7E5V8W9X0Y1Z2A3B4C5D", "replyToken": "r1",
         "message": {"id": "590000000000000001", "type": "text", "quoteToken": "q-1", "text": "@hearth hi",
                     "mention": {"mentionees": [{"index": 0, "length": 7, "type": "user",
                                                 "userId": "U8e742f61d673b39c7fff3cecb7536ef0", "isSelf": True}]}}},
        {**common, "type": "messageEdited", "webhookEventId": "01KB3Q7E5V8W9X0Y1Z2A3B4C5E", "replyToken": "r2",
         "message": {"id": "590000000000000001", "type": "text", "quoteToken": "q-2", "text": "@hearth hello"}},
        {**common, "type": "somethingNew", "webhookEventId": "01KB3Q7E5V8W9X0Y1Z2A3B4C5F"},
    ]}


def good_rich_menu() -> dict:
    third, half = 2500 // 3, 1686 // 2
    return {"size": {"width": 2500, "height": 1686}, "selected": False, "name": "hearth-everyday 0123456789ab",
            "chatBarText": "選單", "areas": [
                {"bounds": {"x": 0, "y": 0, "width": third, "height": half},
                 "action": {"type": "message", "label": "今天天氣", "text": "今天天氣"}},
                {"bounds": {"x": third, "y": 0, "width": third, "height": half},
                 "action": {"type": "postback", "label": "我吃藥了", "data": "a=care_menu_taken&i=0&s=abc", "displayText": "✅ 我吃藥了"}},
            ]}


def mutate(body: dict, change) -> dict:
    body = copy.deepcopy(body)
    change(body)
    return body


def bad_cases() -> list[tuple[str, str, dict, str]]:
    """(name, kind, body, a substring expected among the problems)."""
    flex = lambda b: b["messages"][1]["contents"]  # noqa: E731
    chip = {"type": "action", "action": {"type": "message", "label": "x", "text": "x"}}
    return [
        ("webhook endpoint without one", "webhookendpoint", {}, "endpoint"),
        ("box layout diagonal", "reply", mutate(good_reply(), lambda b: flex(b)["body"].update(layout="diagonal")), "layout"),
        ("misspelled key wieght", "reply", mutate(good_reply(), lambda b: flex(b)["body"]["contents"][0].update(
            wieght=flex(b)["body"]["contents"][0].pop("weight"))), "wieght"),
        ("14 quick-reply items", "reply", mutate(good_reply(), lambda b: b["messages"][1]["quickReply"].update(
            items=[chip] * 14)), "items"),
        ("6000-char text", "reply", mutate(good_reply(), lambda b: b["messages"][0].update(text="雨" * 6000)), "6000 UTF-16"),
        ("6 messages", "push", {"to": USER, "messages": [{"type": "text", "text": str(i)} for i in range(6)]}, "6 messages"),
        ("loadingSeconds 61", "loading", {"chatId": USER, "loadingSeconds": 61}, "loadingSeconds"),
        ("bot info without its name", "answer", {"endpoint": "GET /v2/bot/info", "model": "BotInfoResponse",
                                                  "body": {"userId": USER, "basicId": "@hearth"}}, "BotInfoResponse"),
        ("answer with a misspelled key", "answer", {"endpoint": "GET /v2/bot/message/quota/consumption",
                                                    "model": "QuotaConsumptionResponse", "body": {"totalUsage": 1, "totalUsed": 1}}, "totalUsed"),
        ("loadingSeconds 7", "loading", {"chatId": USER, "loadingSeconds": 7}, "multiple of 5"),
        ("loading in a group", "loading", {"chatId": "C0123456789abcdef0123456789abcdef"}, "1:1 chats"),
        ("quick reply not last", "reply", mutate(good_reply(), lambda b: b["messages"][0].update(
            quickReply=b["messages"][1].pop("quickReply"))), "only the last"),
        ("21-grapheme label", "message", {"type": "text", "text": "x", "quickReply": {"items": [
            {"type": "action", "action": {"type": "message", "label": "標" * 21, "text": "x"}}]}}, "21 graphemes"),
        ("null key", "message", {"type": "text", "text": "x", "sender": None}, "null value"),
        ("rich menu area outside", "richmenu", mutate(good_rich_menu(), lambda b: b["areas"][1]["bounds"].update(x=2400)), "not inside"),
        ("rich menu too narrow", "richmenu", mutate(good_rich_menu(), lambda b: b["size"].update(width=1686)), "width/height"),
        ("chat bar of 15", "richmenu", mutate(good_rich_menu(), lambda b: b.update(chatBarText="選" * 15)), "chatBarText"),
        ("alias in capitals", "richmenualias", {"richMenuAliasId": "Hearth-Care", "richMenuId": "richmenu-1"}, "richMenuAliasId"),
        ("text without quoteToken", "callback", mutate(good_callback(), lambda b: b["events"][0]["message"].pop("quoteToken")), "quoteToken"),
    ]


# Bad cases that the OpenAPI check must catch on its own when the spec is available.
OPENAPI_CATCHES = ("box layout diagonal", "14 quick-reply items", "6 messages", "loadingSeconds 61", "text without quoteToken",
                   "chat bar of 15", "alias in capitals")


def self_test() -> int:
    print_openapi_mode()
    with_openapi = openapi_dir() is not None
    failures = []
    goods = [("good reply", "reply", good_reply()),
             ("good push", "push", {"to": USER, "messages": good_reply()["messages"], "notificationDisabled": True}),
             ("good loading", "loading", {"chatId": USER, "loadingSeconds": 20}),
             ("good message", "message", good_reply()["messages"][1]),
             ("good callback", "callback", good_callback()),
             ("good rich menu", "richmenu", good_rich_menu()),
             ("good alias", "richmenualias", {"richMenuAliasId": "hearth-care", "richMenuId": "richmenu-1"}),
             ("good alias update", "richmenualiasupdate", {"richMenuId": "richmenu-1"}),
             ("good webhook endpoint", "webhookendpoint", {"endpoint": "https://hearth.example/callback"}),
             ("good webhook test", "webhooktest", {"endpoint": "https://hearth.example/callback"}),
             ("good answer", "answer", {"endpoint": "GET /v2/bot/message/quota", "model": "MessageQuotaResponse",
                                        "body": {"type": "limited", "value": 200}})]
    if grapheme_len("👨‍👩‍👧🇹🇼e\u0301") != 3 or utf16_len("🍎") != 2:
        failures.append("counting")
    for name, kind, body in goods:
        report = check_body(kind, body)
        ok = not report.problems
        if kind == "callback":  # the unknown type is skipped, messageEdited too with the spec
            ok = ok and len(report.notes) == (2 if with_openapi else 1)
        print(f"  {'ok ' if ok else 'BAD'} {name}: passes" + ("" if ok else f" -- but: {'; '.join(report.problems)}"))
        failures += [] if ok else [name]
    for name, kind, body, expected in bad_cases():
        report = check_body(kind, body)
        ok = any(expected in problem for problem in report.problems)
        if with_openapi and name in OPENAPI_CATCHES:
            ok = ok and any(problem.startswith("openapi ") for problem in report.problems)
        detail = "; ".join(report.problems) or "no problem found"
        print(f"  {'ok ' if ok else 'BAD'} {name}: rejected ({detail[:160]})")
        failures += [] if ok else [name]
    print("self-test: passed" if not failures else f"self-test: FAILED ({', '.join(failures)})")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="*", metavar="DIR", help="directories (or files) to check recursively")
    parser.add_argument("--allow-empty", action="store_true", help="exit 0 when no files are found")
    parser.add_argument("--self-test", action="store_true", help="check built-in good and bad bodies")
    parser.add_argument("--spec-examples", metavar="OUT", help="write the spec's examples of the answers the DIRs name to OUT")
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test()
    if not args.dirs:
        parser.error("give at least one DIR (or --self-test)")
    if args.spec_examples:
        return spec_examples(args.spec_examples, args.dirs)
    return run(args.dirs, args.allow_empty)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
