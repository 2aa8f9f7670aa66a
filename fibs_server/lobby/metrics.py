"""What `/metrics` shows, in Prometheus's text exposition format (version 0.0.4), and the
latency histograms the server records as it goes (docs/OPERATIONS.md lists every metric).

Here in the lobby, as `token_bucket.py` is, because the lobby records command latency and
bot decisions' (the bots' pool, below it, cannot see it), and the store (above it) its
transactions'; net only renders. Pure: no I/O, and the time comes in
as an argument. One process is one node, so the histograms are the process's own. Everything
records on the event loop's thread, so an observation is one bucket increment and one
addition, without a lock.
"""
from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Seconds: from a fraction of a millisecond (a `who` on a quiet server) to the stalls a
# loaded machine or a locked database may cause.
LATENCY_BOUNDS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
                  2.5, 5.0, 10.0)


class Histogram:
    """Fixed buckets: `counts[i]` holds the observations in (bounds[i-1], bounds[i]], the last
    those above every bound; cumulated only when shown."""

    __slots__ = ("name", "help", "bounds", "counts", "total")

    def __init__(self, name: str, help: str, bounds: tuple[float, ...] = LATENCY_BOUNDS
                 ) -> None:
        self.name = name
        self.help = help
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.total = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.total += value

    def exposition(self) -> list[str]:
        lines = header(self.name, "histogram", self.help)
        running = 0
        for bound, count in zip((*self.bounds, math.inf), self.counts, strict=True):
            running += count
            lines.append(f'{self.name}_bucket{{le="{number(bound)}"}} {running}')
        lines += [f"{self.name}_sum {number(self.total)}", f"{self.name}_count {running}"]
        return lines


COMMAND_SECONDS = Histogram(
    "fibs_command_duration_seconds",
    "Seconds from a logged-in user's command line reaching the session to its handling done.")
STORE_SECONDS = Histogram(
    "fibs_store_transaction_duration_seconds",
    "Seconds a store transaction took, from the event loop's request to its result "
    "(queueing for the database's threads or connections included).")
BOT_DECISION_SECONDS = Histogram(
    "fibs_bot_decision_duration_seconds",
    "Seconds from asking the bots' pool for a decision (a bot's, or a timed match's expired "
    "turn's) to having it: queueing for a worker and the engine, or the rules of thumb.")


def number(value: float) -> str:
    if value == math.inf:
        return "+Inf"
    if value == -math.inf:
        return "-Inf"
    if math.isnan(value):
        return "NaN"
    return str(int(value)) if float(value).is_integer() and abs(value) < 2 ** 53 else repr(
        float(value))


def escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def header(name: str, kind: str, help: str) -> list[str]:
    help_text = help.replace("\\", "\\\\").replace("\n", "\\n")
    return [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]


def family(name: str, kind: str, help: str,
           samples: Iterable[tuple[Mapping[str, str], float]]) -> list[str]:
    """A gauge's or counter's lines: `samples` are (labels, value)."""
    lines = header(name, kind, help)
    for labels, value in samples:
        shown = ",".join(f'{label}="{escaped(text)}"' for label, text in labels.items())
        lines.append(f"{name}{{{shown}}} {number(value)}" if shown
                     else f"{name} {number(value)}")
    return lines


def exposition(families: Iterable[list[str]]) -> str:
    return "".join(line + "\n" for lines in families for line in lines)
