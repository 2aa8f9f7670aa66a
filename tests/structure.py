"""Figures of the package's shape, read off its source (`python -m tests.structure`).

- Modules per folder: every folder of `fibs_server` with the number of its modules
  (`__init__.py` aside), the largest first.
- The longest import chain in the lobby: the most lobby modules on one path of the lobby's
  import graph, where an edge is any import of one lobby module by another, at module level or
  inside a function (`from package import module` imports the module), an import under
  `if TYPE_CHECKING:` aside. The graph has no circle (tests/test_layers.py proves it), so the
  longest path is well defined.
- Command modules that import command modules, and other lobby modules that import command
  modules: a command module is one whose name ends in `_commands`; `common` and the registry
  `command_table` are what they may share.
- Names read off an object from outside its module, for each class the lobby defines: an
  approximation on the syntax tree. In every module of `fibs_server` but the class's own, an
  attribute read (`x.name` loaded, a call's method included) counts when `x` is a variable,
  parameter or attribute named as the class is in snake case (`lobby`, `self.lobby`,
  `match_table`) or a variable or parameter annotated with the class (`table: MatchTable`).
  For each class: how many distinct names are read, in how many files, how many reads.
"""
from __future__ import annotations

import ast
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import fibs_server

PACKAGE = Path(fibs_server.__file__).parent
LOBBY = "fibs_server.lobby"


@cache
def modules() -> dict[str, Path]:
    """Dotted module name -> its file, for every module of the package (migrations aside)."""
    return {".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts): path
            for path in sorted(PACKAGE.rglob("*.py")) if "migrations" not in path.parts}


@cache
def tree_of(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def modules_per_folder() -> dict[str, int]:
    """Folder (relative to the repository) -> how many modules it holds, the largest first."""
    counts = Counter(str(path.parent.relative_to(PACKAGE.parent)) for path in modules().values()
                     if path.name != "__init__.py")
    return dict(counts.most_common())


def lobby_folders() -> set[Path]:
    return {path.parent for name, path in modules().items() if name.startswith(LOBBY + ".")}


@cache
def only_for_types(module: str) -> set[ast.AST]:
    """The nodes under `if TYPE_CHECKING:` in a module (no import there runs)."""
    return {inner for node in ast.walk(tree_of(modules()[module]))
            if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
            for statement in node.body for inner in ast.walk(statement)}


def imported_modules(module: str) -> set[str]:
    """The modules of ours `module` imports, anywhere in its file."""
    path = modules()[module]
    known = {name.removesuffix(".__init__"): name for name in modules()}
    found: set[str] = set()
    for node in ast.walk(tree_of(path)):
        if node in only_for_types(module):
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            base = node.module
            if node.level:
                package = module.split(".")[:-node.level]
                base = ".".join((*package, node.module))
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                     for alias in node.names]
        found |= {known[name] for name in names if name in known}
    return found - {module}


def lobby_graph() -> dict[str, set[str]]:
    lobby = {name for name in modules() if name.startswith(LOBBY + ".")}
    return {name: imported_modules(name) & lobby for name in lobby}


def longest_import_chain() -> list[str]:
    """The lobby modules on the longest path of the lobby's import graph, importer first."""
    graph = lobby_graph()

    @cache
    def chain_from(module: str) -> tuple[str, ...]:
        below = [chain_from(imported) for imported in sorted(graph[module])]
        return (module, *(max(below, key=len) if below else ()))

    chains: list[tuple[str, ...]] = [chain_from(module) for module in sorted(graph)]
    longest: tuple[str, ...] = max(chains, key=len) if chains else ()
    return list(longest)


def is_command_module(module: str) -> bool:
    return module.startswith(LOBBY + ".") and module.endswith("_commands")


def command_imports(importers: bool = True) -> dict[str, list[str]]:
    """Command module (or, with `importers` False, any other lobby module) -> the command
    modules it imports (only those that import any)."""
    found = {module: sorted(filter(is_command_module, imported_modules(module)))
             for module in modules()
             if module.startswith(LOBBY + ".") and is_command_module(module) == importers}
    return {module: imported for module, imported in sorted(found.items()) if imported}


@dataclass(frozen=True)
class Reads:
    names: Counter[str]
    files: int

    @property
    def uses(self) -> int:
        return sum(self.names.values())


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def lobby_classes() -> dict[str, str]:
    """Class name -> the lobby module defining it (a name defined twice keeps the first)."""
    classes: dict[str, str] = {}
    for module, path in modules().items():
        if module.startswith(LOBBY + "."):
            for node in tree_of(path).body:
                if isinstance(node, ast.ClassDef):
                    classes.setdefault(node.name, module)
    return classes


@dataclass(frozen=True)
class FileReads:
    """One module's attribute reads, keyed by what they are read off, and its annotations."""
    reads: Counter[tuple[str, str]]  # (variable or attribute read off, name read) -> uses
    annotated: dict[str, set[str]]  # variable or parameter -> the names in its annotation


@cache
def file_reads(module: str) -> FileReads:
    reads: Counter[tuple[str, str]] = Counter()
    annotated: dict[str, set[str]] = defaultdict(set)
    for node in ast.walk(tree_of(modules()[module])):
        if isinstance(node, ast.arg) and node.annotation is not None:
            annotated[node.arg] |= annotation_names(node.annotation)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            annotated[node.target.id] |= annotation_names(node.annotation)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            if isinstance(node.value, ast.Name):
                reads[node.value.id, node.attr] += 1
            elif isinstance(node.value, ast.Attribute):
                reads[node.value.attr, node.attr] += 1
    return FileReads(reads, dict(annotated))


def annotation_names(annotation: ast.expr) -> set[str]:
    """The names an annotation mentions (`Lobby`, `"Lobby"`, `Lobby | None`)."""
    return set(re.split(r"[^\w]+", ast.unparse(annotation)))


def names_read_off(cls: str, home: str) -> Reads:
    names: Counter[str] = Counter()
    files = 0
    for module in modules():
        if module == home:
            continue
        found = file_reads(module)
        typed = {snake(cls)} | {name for name, mentioned in found.annotated.items()
                                if cls in mentioned}
        here: Counter[str] = Counter()
        for (base, attr), count in found.reads.items():
            if base in typed:
                here[attr] += count
        if here:
            files += 1
            names.update(here)
    return Reads(names, files)


def reads_per_class() -> dict[str, Reads]:
    """Class -> the names read off it from outside its module, the most read classes first."""
    reads = {cls: names_read_off(cls, home) for cls, home in lobby_classes().items()}
    return dict(sorted(((cls, found) for cls, found in reads.items() if found.uses),
                       key=lambda item: (-len(item[1].names), -item[1].uses, item[0])))


def report(folders: int = 8, classes: int = 12) -> str:
    lines = ["Modules per folder (largest first):"]
    counts = modules_per_folder()
    lines += [f"  {count:3d}  {folder}" for folder, count in list(counts.items())[:folders]]
    lobby = sum(count for folder, count in counts.items()
                if folder.split("/")[:2] == LOBBY.split("."))
    lines.append(f"  (lobby modules: {lobby}, in {len(lobby_folders())} folders;"
                 f" folders over 12 modules: {sum(1 for count in counts.values() if count > 12)})")
    chain = longest_import_chain()
    lines.append(f"Longest lobby import chain: {len(chain)} modules")
    lines += [f"  {name.removeprefix(LOBBY + '.')}" for name in chain]
    for title, importers in (("Command modules", True), ("Other lobby modules", False)):
        imports = command_imports(importers)
        lines.append(f"{title} importing command modules: {len(imports)}")
        lines += [f"  {module.removeprefix(LOBBY + '.')} -> "
                  + ", ".join(name.removeprefix(LOBBY + ".") for name in imported)
                  for module, imported in imports.items()]
    lines.append("Names read off a lobby class from outside its module (names, files, uses):")
    for cls, found in list(reads_per_class().items())[:classes]:
        top = ", ".join(f"{name} {count}" for name, count in found.names.most_common(5))
        lines.append(f"  {cls:16s} {len(found.names):3d} names {found.files:3d} files"
                     f" {found.uses:4d} uses   ({top}, ...)")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report())
