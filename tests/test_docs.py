"""The docs stay true to the code and to the repository.

1. Every code reference in docs/*.md and README.md resolves. A reference is an inline code span
   (`...`, outside fenced blocks) that starts with a dotted name or a path, optionally followed
   by call arguments, an index or ` -> type` (`Matches.act`, `Match.roll(player)`,
   `lobby/play/turn_clock.py`, `net/websocket.text_frame`). Which ones are checked:
   - a path with a `/` whose first part is `fibs_server`, `tests`, `bench`, `docs` or a
     subpackage of fibs_server (`lobby/play/match_play.py`: under fibs_server/) must be a file or
     folder of the repository; after a `.py`, a `.name` must be defined in that module;
   - a bare file name ending in `.py` must be a file somewhere in the repository;
   - a dotted name whose first part is `fibs_server`, a subpackage of it, or the name of one
     of its modules (`match_play`, `rules.match`, `protocol.refusals`) must import and then
     resolve attribute by attribute (for a module name that two packages share, either will
     do);
   - a dotted name whose first part is a class defined in fibs_server (`Lobby.dispatch`,
     `Keeping.snapshot`) must name a member of that class, its bases, its dataclass
     fields or an attribute its methods assign (`self.name = ...`).
   Anything else (`asyncio.sleep`, `accounts.is_admin` as a column is written `is_admin`
   of `accounts`) is not a reference to our code and is not checked; a reference written with
   a module's name must mean that module, so a variable is named by its class
   (`Match.roll`, not `match.roll`).
2. No doc, comment or docstring refers to a tracker's issue numbers (`issue 14`, `#27`): the
   tracker is not in the repository; say what is meant.
3. Every `.md` file named in docs, README, code, tests and bench is one of the repository's
   (README.md, docs/*.md), and nothing points outside the repository (`../shared/...`, or a
   relative path that leaves it): what the project relies on of the FIBS protocol is in
   docs/PROTOCOL.md, in its own words. Section numbers (`§7.1`) are an outside document's
   and are not used either, except an RFC's (`RFC 6455 §5.2`).
"""
from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import os
import re
from functools import cache
from pathlib import Path

import fibs_server

PACKAGE = Path(fibs_server.__file__).parent
ROOT = PACKAGE.parent
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
HISTORY = ROOT / "docs" / "CHANGES.md"  # names the code as it was then: not resolved
ROOT_FOLDERS = {"fibs_server", "tests", "bench", "docs"}
SUBPACKAGES = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
FILE_ENDINGS = {"py", "js", "mjs", "md", "c", "txt", "db", "toml", "ini", "mako", "css",
                "html", "json", "sh"}
# The files whose comments and docstrings the issue-number and outside-link rules read.
SOURCES = [path for folder in ("fibs_server", "tests", "bench", ".ci")
           for path in sorted((ROOT / folder).rglob("*"))
           if path.suffix in {".py", ".js", ".mjs", ".html", ""} and path.is_file()
           and "__pycache__" not in path.parts and path.name != "test_docs.py"]

FENCE = re.compile(r"^\s*```.*?^\s*```", re.S | re.M)
SPAN = re.compile(r"`([^`]+)`")
TARGET = re.compile(r"(?:[\w.-]+/)+[\w.-]*\w|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
ISSUE = re.compile(r"\b[Ii]ssues?\s+#?\d+|(?<![&\w])#\d+\b")
MD_NAME = re.compile(r"(?<![\w./-])[\w./-]*\.md\b")
OUTSIDE_SECTION = re.compile(r"(?<!RFC \d{4} )§")
RELATIVE = re.compile(r"(?<![\w.])(?:\.\./)+[\w./-]*\w")


def spans(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of every inline code span outside fenced blocks; a span may wrap."""
    text = FENCE.sub(lambda fence: "\n" * fence.group().count("\n"), path.read_text())
    return [(text.count("\n", 0, match.start()) + 1, " ".join(match.group(1).split()))
            for match in SPAN.finditer(text)]


def target_of(span: str) -> str | None:
    """The dotted name or path a span starts with, if the whole span is a reference to it."""
    match = TARGET.match(span.strip())
    if not match:
        return None
    rest = span.strip()[match.end():]
    if "/" in match.group() or match.group().rsplit(".", 1)[-1] in FILE_ENDINGS:
        return match.group()  # a path or a file: what follows may be a command's arguments
    if rest and rest[0] in "-.":
        return None  # `a.b-c`, `1.2.3`: not a name
    if rest == "" or rest[0] in "([" or rest.startswith(" ->"):
        return match.group()
    return None


@cache
def repository_file_names() -> set[str]:
    """The names of the repository's files (not its .venv's, .git's or other hidden folders')."""
    names = set()
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if not name.startswith(".")]
        names.update(files)
    return names


@cache
def module_files() -> dict[str, Path]:
    """Every module of fibs_server (the migrations aside): dotted name -> file."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "migrations" not in path.parts:
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


@cache
def modules() -> dict[str, list[str]]:
    """Every module of fibs_server by its last name: `match` -> [fibs_server.rules.match]."""
    found: dict[str, list[str]] = {}
    for dotted in module_files():
        found.setdefault(dotted.rsplit(".", 1)[-1], []).append(dotted)
    return found


@cache
def classes() -> dict[str, list[tuple[str, str]]]:
    """Every top-level class of fibs_server: name -> [(module, name)]."""
    found: dict[str, list[tuple[str, str]]] = {}
    for dotted, path in module_files().items():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append((dotted, node.name))
    return found


@cache
def assigned_on_self(cls: type) -> set[str]:
    """The attributes a class's own methods assign: `self.name = ...`, `self.name: T = ...`."""
    try:
        tree = ast.parse(inspect.getsource(cls).lstrip())  # a nested class is indented
    except (OSError, TypeError, SyntaxError):
        return set()
    names = set()
    for node in ast.walk(tree):
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign))
                   else [])
        names |= {target.attr for target in targets if isinstance(target, ast.Attribute)
                  and isinstance(target.value, ast.Name) and target.value.id == "self"}
    return names


def has_member(owner: object, name: str) -> bool:
    if hasattr(owner, name):
        return True
    if not inspect.isclass(owner):
        return False
    for cls in owner.__mro__:
        if (name in getattr(cls, "__annotations__", {}) or name in assigned_on_self(cls)
                or (dataclasses.is_dataclass(cls)
                    and name in {field.name for field in dataclasses.fields(cls)})):
            return True
    return False


def resolves(owner: object, names: list[str]) -> bool:
    """`owner.names...`: each name a member of what the one before it names."""
    for index, name in enumerate(names):
        if not has_member(owner, name):
            return False
        if index < len(names) - 1:
            owner = inspect.getattr_static(owner, name, None)
            if not (inspect.isclass(owner) or inspect.ismodule(owner)):
                return False  # an instance attribute or a function: nothing to look into
    return True


def resolves_in_module(dotted: str, names: list[str]) -> bool:
    """`dotted.names...`, the longest importable prefix as the module."""
    parts = dotted.split(".") + names
    for cut in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        return resolves(module, parts[cut:])
    return False


def problem(target: str) -> str | None:
    """Why `target` does not resolve, or None when it does or is not a reference of ours."""
    if "/" in target:
        folder, _, name = target.rpartition("/")
        stem, _, attribute = name.partition(".")
        if not attribute or name.rsplit(".", 1)[-1] in FILE_ENDINGS:
            path, attribute = target, ""
        else:  # `net/websocket.text_frame`: a module's file, then a name in it
            path, attribute = f"{folder}/{stem}.py", attribute.removeprefix("py.")
        first = path.split("/")[0]
        if first in ROOT_FOLDERS:
            file = ROOT / path
        elif first in SUBPACKAGES:
            file = PACKAGE / path
        else:
            return None
        if not file.exists():
            return f"no file {file.relative_to(ROOT)}"
        if attribute:
            dotted = ".".join(file.relative_to(ROOT).with_suffix("").parts)
            if not resolves_in_module(dotted, attribute.split(".")):
                return f"{dotted} has no {attribute}"
        return None
    parts = target.split(".")
    if parts[-1] in FILE_ENDINGS:
        if parts[-1] == "py" and target not in repository_file_names():
            return f"no file {target} in the repository"
        return None
    first, names = parts[0], parts[1:]
    if first == "fibs_server" or first in SUBPACKAGES:
        dotted = first if first == "fibs_server" else f"fibs_server.{first}"
        return None if resolves_in_module(dotted, names) else f"{target} does not resolve"
    if first in modules():
        if any(resolves_in_module(dotted, names) for dotted in modules()[first]):
            return None
        return f"{target} does not resolve in {' or '.join(modules()[first])}"
    if first in classes():
        for dotted, name in classes()[first]:
            if resolves(getattr(importlib.import_module(dotted), name), names):
                return None
        return f"{target}: no such member of {first}"
    return None


def references() -> list[tuple[str, str]]:
    found = []
    for path in (path for path in DOCS if path != HISTORY):
        for number, span in spans(path):
            target = target_of(span)
            if target:
                found.append((f"{path.relative_to(ROOT)}:{number}", target))
    return found


def test_the_rule_finds_references():
    targets = {target for _, target in references()}
    assert {"Matches.act", "lobby/play/match_play.py", "Lobby.dispatch"} <= targets
    assert problem("Matches.act") is None
    assert problem("match_play.Matches.act") is None
    assert problem("match_play.no_such_function") is not None
    assert problem("Lobby.no_such_method") is not None
    assert problem("lobby/no_such_module.py") is not None
    assert problem("Keeping.snapshot") is None
    assert problem("asyncio.sleep") is None


def test_every_code_reference_in_the_docs_resolves():
    broken = [f"{where}: `{target}`: {why}" for where, target in references()
              if (why := problem(target))]
    assert not broken, "\n".join(broken)


def texts() -> list[Path]:
    return DOCS + SOURCES


def test_nothing_refers_to_a_trackers_issue_numbers():
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for path in texts()
             for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
             if ISSUE.search(line)]
    assert not found, "\n".join(found)


def test_nothing_points_outside_the_repository():
    known = {path.name for path in DOCS}
    found = []
    for path in texts():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            names = [name for name in MD_NAME.findall(line)
                     if name.removeprefix("docs/") not in known
                     or (name.startswith("docs/") and not (ROOT / name).exists())]
            outside = [relative for relative in RELATIVE.findall(line)
                       if not (path.parent / relative).resolve().is_relative_to(ROOT)
                       or not (path.parent / relative).exists()]
            if names or outside or OUTSIDE_SECTION.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
