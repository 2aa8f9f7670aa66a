"""Long output for telnet users: lines broken at `linelength` (when `toggle wrap` says the
terminal cannot) and replies cut into pages of `pagelength` lines. Never for CLIP clients,
which parse whole lines. Pure functions of lines and numbers."""
from __future__ import annotations

import textwrap

# Ours: FIBS's pager text is not known (docs/PROTOCOL.md).
MORE_PROMPT = "-- more -- (Enter: next page, any command: stop) "


def wrapped(lines: list[str] | tuple[str, ...], width: int) -> list[str]:
    """`lines` with each one longer than `width` broken at blanks (a word longer than `width`
    is cut); `board:` lines stay whole, since programs read them."""
    result: list[str] = []
    for line in lines:
        if len(line) <= width or line.startswith("board:"):
            result.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip(" "))]
        result += textwrap.wrap(line, width, subsequent_indent=indent[:width // 2],
                                break_on_hyphens=False, drop_whitespace=True) or [""]
    return result


def first_page(lines: list[str], page_length: int) -> tuple[list[str], list[str]]:
    """The page to show now and the lines left for later: a page is `page_length` lines,
    one of them taken by the `-- more --` prompt when more follow."""
    if len(lines) <= page_length:
        return lines, []
    shown = max(1, page_length - 1)
    return lines[:shown], lines[shown:]
