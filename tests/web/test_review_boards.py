"""Every review position `review.js` turns into a typed board (tests/web/js/fixtures/review.json,
a real match and analysis, seen from either side) is a `board` message of the schema the
server's own boards follow: the page draws it with its normal board renderer."""
from __future__ import annotations

import json
import pathlib
import subprocess

from tests.protocol.test_web_events import VALIDATOR

HERE = pathlib.Path(__file__).parent
BOARDS = f"""
import {{ readFileSync }} from "node:fs";
import {{ reviewSteps, toBoardMessage }} from "{HERE.parent.parent}/fibs_server/web/static/review.js";
const {{ match, analysis }} = JSON.parse(readFileSync("{HERE}/js/fixtures/review.json"));
const boards = reviewSteps(match, analysis).steps.flatMap((step) =>
  [0, 1].flatMap((viewer) => [step.before, step.afterPlayed, step.afterBest]
    .map((position) => toBoardMessage(position, match.players, step, viewer))));
console.log(JSON.stringify(boards));
"""


def test_review_positions_are_typed_boards_of_the_schema(node):
    result = subprocess.run([node, "--input-type=module", "-e", BOARDS], capture_output=True,
                            text=True, timeout=60, check=True)
    boards = json.loads(result.stdout)
    assert len(boards) > 400
    for board in boards:
        VALIDATOR.validate(board)
