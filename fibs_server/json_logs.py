"""`--log-format json`: one JSON object a line, for log collectors (docs/OPERATIONS.md)."""
from __future__ import annotations

import datetime
import functools
import json
import logging
from collections.abc import Callable


class JsonFormatter(logging.Formatter):
    """time (UTC, ISO 8601, milliseconds), level, logger, message, and exception (the
    traceback's text) when the record carries one."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc)
            .isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry)


def log_json(level: int) -> None:
    """Logging as the server's under `--log-format json`, in a process of its own (a worker)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    logging.basicConfig(level=level, handlers=[handler], force=True)
    logging.captureWarnings(True)


def for_workers() -> Callable[[], None] | None:
    """What a spawned worker calls to log as this process does: JSON if it logs JSON (plain
    text is Python's default)."""
    root = logging.getLogger()
    if any(isinstance(handler.formatter, JsonFormatter) for handler in root.handlers):
        return functools.partial(log_json, root.level)
    return None
