"""Logs that name their request: a request id per HTTP request, on every log line it causes
and in the X-Request-ID response header; JSON lines when ENGRAM_LOG_FORMAT=json.

The id is the caller's X-Request-ID when it looks like an id (a proxy's or a client's, so one
id follows a request across services), else a new one.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Literal

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID_HEADER = "X-Request-ID"
# Anything else a caller sends is replaced: it goes into every log line unescaped by text logs.
_USABLE_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
request_id: ContextVar[str | None] = ContextVar("engram_request_id", default=None)
access_log = logging.getLogger("engram.access")


class RequestIdFilter(logging.Filter):
    """Adds the current request id (or None outside a request) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request id, extras, traceback."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
        }
        line.update(getattr(record, "fields", {}))
        if record.exc_info:
            line["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
_HANDLER_NAME = "engram"


def configure_logging(log_format: Literal["text", "json"]) -> logging.Handler:
    """Install (or replace) Engram's stderr handler on the root logger; Engram's own loggers
    log INFO, libraries keep the root's level (WARNING). Installed before the MCP server is
    built, it also keeps the MCP SDK's logging.basicConfig from adding a plain-text handler.
    """
    handler = logging.StreamHandler()
    handler.set_name(_HANDLER_NAME)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(
        JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)
    )
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
    root.addHandler(handler)
    logging.getLogger("engram").setLevel(logging.INFO)
    return handler


def request_id_for(asked: str) -> str:
    """The id of a request that sent ``asked`` in X-Request-ID: that, if usable, else new."""
    return asked if _USABLE_ID.fullmatch(asked) else uuid.uuid4().hex


class RequestIdMiddleware:
    """Sets the request id for the request's duration, returns it in X-Request-ID and logs one
    access line (method, path, status, milliseconds) on engram.access."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = request_id_for(Headers(scope=scope).get(REQUEST_ID_HEADER, ""))
        token = request_id.set(rid)
        status, start = 500, time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = rid
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            ms = round((time.perf_counter() - start) * 1000, 1)
            fields = {"method": scope["method"], "path": scope["path"], "status": status, "ms": ms}
            access_log.info("%s %s %s %.1f ms", *fields.values(), extra={"fields": fields})
            request_id.reset(token)
