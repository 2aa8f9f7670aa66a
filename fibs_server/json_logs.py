"""`--log-format json`: one JSON object a line, for log collectors (docs/OPERATIONS.md)."""
from __future__ import annotations

import datetime
import json
import logging


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
