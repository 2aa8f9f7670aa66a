"""The tutor's texts (`tutor`, an extension: a classic session that never types it sees none
of them). Equities in EMG, as the analysis's (docs/ANALYSIS.md)."""
from __future__ import annotations

import math

from fibs_server.protocol.wording.coded_texts import notice, refusal

USAGE = refusal("tutor_usage", "** usage: tutor on [<threshold 0.01-1.0>] | off | play")
RATED = refusal("tutor_rated", "** The tutor is not allowed in rated matches: it helps in "
                "unrated matches and unrated matches against bots.")
UNAVAILABLE = refusal("tutor_unavailable", "** The tutor is not available on this server.")
NO_ANSWER = refusal("tutor_no_answer", "** The tutor has no answer just now: send your "
                    "decision again, or type 'tutor off'.")
NOTHING_HELD = refusal("tutor_nothing_held", "** The tutor holds no decision of yours back.")
SWITCHED_OFF = notice("** The tutor is off.")


def switched_on(threshold: float) -> str:
    return notice(f"** The tutor is on: it warns of a decision that loses more than "
                  f"{threshold:.3f} (unrated matches only).")


def status(threshold: float | None) -> str:
    return SWITCHED_OFF if threshold is None else switched_on(threshold)


def asked_too_often(wait: float) -> str:
    seconds = max(1, math.ceil(wait))
    return refusal("tutor_asked_too_often", f"** The tutor was asked too often: try again in "
                   f"{seconds} second{'s' if seconds != 1 else ''}.", seconds=seconds)


def warning(proposed: str, best: str, loss: float) -> str:
    return notice(f"** Tutor: {proposed} loses {loss:.3f} against {best}. Send it again or "
                  f"type 'tutor play' to play it anyway, or decide again.")
