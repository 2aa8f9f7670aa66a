"""The page's pure modules (the lines and prompt of a message, the play assembled from the
typed board, the board's SVG, the review, the plots, the catalogues), tested by node's
built-in test runner: tests/web/js/*.test.mjs."""
from __future__ import annotations

import pathlib
import subprocess

JS_TESTS = sorted((pathlib.Path(__file__).parent / "js").glob("*.test.mjs"))


def test_the_page_modules_pass_their_node_tests(node):
    assert JS_TESTS, "no JavaScript tests found"
    result = subprocess.run([node, "--test", *map(str, JS_TESTS)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout
