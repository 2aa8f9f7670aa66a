"""The page's pure modules (the lines and prompt of a message, the play assembled from the
typed board, the board's SVG, the review, the plots, the catalogues), tested by node's
built-in test runner: tests/web/js/*.test.mjs."""
from __future__ import annotations

import dataclasses
import pathlib
import re
import subprocess

from fibs_server.net.http import STATIC
from fibs_server.protocol.views.web_events import PagePace

JS_TESTS = sorted((pathlib.Path(__file__).parent / "js").glob("*.test.mjs"))


def test_the_page_modules_pass_their_node_tests(node):
    assert JS_TESTS, "no JavaScript tests found"
    result = subprocess.run([node, "--test", *map(str, JS_TESTS)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout


def test_the_pages_own_pace_is_the_servers_default():
    """Until the hello tells it the server's pace, the page keeps its connection at the
    server's default pace (connection.js, DEFAULT_PACE)."""
    source = (STATIC / "connection.js").read_text()
    block = re.search(r"DEFAULT_PACE = Object\.freeze\(\{(.*?)\}\)", source, re.DOTALL)
    assert block is not None
    own = {name: float(value) for name, value in re.findall(r"(\w+): ([\d.]+)", block[1])}
    assert own == dataclasses.asdict(PagePace())
