"""Refusal texts that carry what a page's typed `refusal` message needs (docs/WEB-PROTOCOL.md):
a stable code and the facts the text is filled with.

A `RefusalText` is a `str`, so every place that sends the text sends it as before and telnet
and CLIP users see exactly the same line; the session, sending to a page that asked for typed
messages, pairs each refusal line with its message (`refusal_of`). A `** ` line with no code
yet still counts as a refusal (code None), unless it is a `NoticeText`: the `** ` lines that
refuse nothing (a toggle's answer, a match starting, a chat echo).
"""
from __future__ import annotations

Param = str | int | None
Params = dict[str, Param]


class RefusalText(str):
    """A refusal's FIBS text, with its `code` (stable, snake_case) and `params`."""
    code: str
    params: Params


class NoticeText(str):
    """A `** ` line that is no refusal."""


def refusal(code: str, text: str, /, **params: Param) -> RefusalText:
    coded = RefusalText(text)
    coded.code, coded.params = code, params
    return coded


def notice(text: str) -> NoticeText:
    return NoticeText(text)


def refusal_of(line: str) -> tuple[str | None, Params] | None:
    """The code and params of a refusal line (None and {} for one without a code yet), or
    None for a line that refuses nothing. (A text that went through `str()`, a format or a
    concatenation is a plain `str` again: a `** ` one is then a refusal without a code.)"""
    if isinstance(line, RefusalText):
        return line.code, line.params
    if line.startswith("** ") and not isinstance(line, NoticeText):
        return None, {}
    return None


def refusal_words(line: str) -> str:
    """The refusal's FIBS text without its `** ` (and a prompt's blanks and line end)."""
    return line.strip().removeprefix("** ")
