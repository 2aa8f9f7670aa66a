"""Every FIBS text is written in `fibs_server.protocol` ("texts in one place"): the
lobby only calls it. Checking our wording against FIBS means reading that one package."""
from __future__ import annotations

import ast
from pathlib import Path

import fibs_server

LOBBY = Path(fibs_server.__file__).parent / "lobby"
ALLOWED: set[tuple[str, str]] = set()


def fibs_lines_written_in(path: Path) -> list[str]:
    """The string literals (f-string parts too) that begin like a FIBS `**` line."""
    tree = ast.parse(path.read_text(), str(path))
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value.startswith("** ")]


def test_the_lobby_writes_no_fibs_line():
    written = [(path.name, text) for path in sorted(LOBBY.rglob("*.py"))
               for text in fibs_lines_written_in(path)]
    assert set(written) <= ALLOWED, written


def test_the_check_sees_a_literal_and_an_f_string(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('a = "** plain"\nb = f"** {a} formatted"\nc = "not ** this"\n')
    assert fibs_lines_written_in(sample) == ["** plain", "** "]
