"""The page's refusal catalogues (fibs_server/web/static/refusals_*.js) against the codes the
server can send (docs/WEB-PROTOCOL.md, Refusals): the match rules' `Refusal` reasons and every
`refusal("code", text, **params)` call in the package. Each code has an entry in both
languages, no entry is for a code the server lacks, and an entry's {placeholders} are among the
params the server sends with that code."""
from __future__ import annotations

import ast
import functools
import json
import pathlib
import re
import subprocess

import pytest

import fibs_server
from fibs_server.rules.refusals import Refusal

PACKAGE = pathlib.Path(fibs_server.__file__).parent
STATIC = PACKAGE / "web" / "static"
LANGUAGES = ("en", "es")


def _called(node: ast.Call) -> str | None:
    return getattr(node.func, "id", None) or getattr(node.func, "attr", None)


@functools.cache
def server_codes() -> dict[str, set[str]]:
    """Every code the server can send, with the names of the params it sends with it."""
    codes: dict[str, set[str]] = {reason.name.lower(): {"opponent"} for reason in Refusal}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            first, params = node.args[0], {keyword.arg for keyword in node.keywords if keyword.arg}
            if _called(node) == "refusal" and isinstance(first, ast.Constant) \
                    and isinstance(first.value, str):
                codes.setdefault(first.value, set()).update(params)
            elif isinstance(first, ast.Attribute) \
                    and getattr(first.value, "id", None) == "Refusal":
                # `IllegalAction(Refusal.X, **facts)`, `MoveError(...)`: protocol.refusals sends
                # the facts and the opponent as the params.
                codes[first.attr.lower()].update(params)
    return codes


@pytest.fixture
def catalogues(node: str) -> dict[str, dict[str, str]]:
    return page_catalogues(node, "refusals")


def page_catalogues(node: str, kind: str) -> dict[str, dict[str, str]]:
    """The `kind` catalogues (`refusals`, `messages`) of each language as the page imports them
    (`node`: tests/web/conftest.py)."""
    uri = {language: (STATIC / f"{kind}_{language}.js").as_uri() for language in LANGUAGES}
    imports = "".join(f"import {language} from {json.dumps(uri[language])};"
                      for language in LANGUAGES)
    script = f"{imports} console.log(JSON.stringify({{{', '.join(LANGUAGES)}}}));"
    shown = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True,
                           text=True, check=True, timeout=30)
    return json.loads(shown.stdout)


def test_the_server_has_codes_from_both_sources():
    codes = server_codes()
    assert "illegal_move" in codes and "no_such_user" in codes
    assert codes["no_checker_on_point"] == {"opponent", "point", "step_number"}
    assert codes["too_many_messages_from_you"] == {"count", "name"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_catalogue_has_every_code_and_no_other(catalogues, language):
    keys = {key.removeprefix("refusal.") for key in catalogues[language]}
    codes = set(server_codes())
    assert sorted(codes - keys) == [], "codes without a text"
    assert sorted(keys - codes) == [], "texts for no code the server has"


@pytest.mark.parametrize("language", LANGUAGES)
def test_placeholders_are_the_codes_params(catalogues, language):
    codes = server_codes()
    entries = {key.removeprefix("refusal."): text for key, text in catalogues[language].items()}
    unknown = {code: sorted(set(re.findall(r"\{(\w+)\}", text)) - codes[code])
               for code, text in entries.items() if code in codes}
    assert {key: names for key, names in unknown.items() if names} == {}
