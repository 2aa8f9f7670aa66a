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
  attribute read (`x.name` or `self.x.name` loaded, a call's method included) counts when what
  binds `x` in the innermost function (or lambda) binding it says it is the class: a parameter
  or variable annotated with the class, alone or in a union (`Session | None`, not
  `list[Session]`), where the module imports the class from the lobby, or assigned the class's
  call or a variable said to be one; for an attribute, any such binding of it in the module
  (`self.x: Session`, `x: Session` in a class body, `self.x = session`). A `with ... as x`
  target is something else, as is anything annotated otherwise or made by another class's
  call. When nothing in its scope says what `x` is, the read counts if the module's bindings
  of that name elsewhere say the class and nothing else, or, when they say nothing, if `x` is
  named as the class in snake case (`session`, `self.match_table`) and the module gives the
  class's name no other meaning (a store module's `Session` is SQLAlchemy's). For each class:
  how many distinct names are read, in how many files, how many reads.
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


# What a variable, parameter or attribute is known to be: one of our classes, something else
# (`OTHER`), or, when nothing says, unknown (`None`: its name alone decides).
OTHER = ""


@dataclass(frozen=True)
class Scope:
    """A function's (or the module's) names: what each is known to be, and what it inherits."""
    outer: Scope | None
    bound: set[str]  # names bound here (parameters, assignments, loop and `with` targets)
    known: dict[str, set[str]]  # name -> what the bindings here say it is

    def kinds(self, name: str) -> set[str] | None:
        """What `name` is said to be where it is read: the innermost scope binding it decides;
        None when nothing there says."""
        scope: Scope | None = self
        while scope is not None:
            if name in scope.bound:
                return scope.known.get(name) or None
            scope = scope.outer
        return None


@dataclass(frozen=True)
class FileReads:
    """One module's attribute reads off a variable or an attribute, with what is known of it."""
    reads: Counter[tuple[str, str, frozenset[str] | None]]  # (base, name read, kinds) -> uses
    anywhere: dict[str, set[str]]  # variable -> what its bindings anywhere in the module say
    imported: dict[str, str]  # local name -> the class of ours (lobby) it is imported as
    foreign: set[str]  # names the module binds to something not a lobby class


def module_names(module: str, tree: ast.Module) -> tuple[dict[str, str], set[str]]:
    """The module's names for lobby classes (imported from a lobby module, under any alias),
    and its names bound to anything else: imported from elsewhere or defined at its top."""
    classes = lobby_classes()
    imported: dict[str, str] = {}
    foreign: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            base = node.module
            if node.level:
                base = ".".join((*module.split(".")[:-node.level], node.module))
            for alias in node.names:
                local = alias.asname or alias.name
                if base.startswith(LOBBY) and alias.name in classes:
                    imported[local] = alias.name
                else:
                    foreign.add(local)
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            foreign.add(node.name)
    return imported, foreign - set(imported)


class _Reader(ast.NodeVisitor):
    """Walks a module scope by scope, noting what each binding says of its name."""

    def __init__(self, imported: dict[str, str], foreign: set[str]) -> None:
        self.imported = imported
        self.foreign = foreign
        self.scope = Scope(None, set(), defaultdict(set))
        self.attributes: dict[str, set[str]] = defaultdict(set)  # attribute -> what it is said to be
        self.anywhere: dict[str, set[str]] = defaultdict(set)  # variable -> what any scope says
        self.reads: list[tuple[Scope, str, str, bool]] = []  # scope, base, name, base is attribute

    def said(self, annotation: ast.expr) -> set[str]:
        """What an annotation says: the lobby class it names, alone or in a union (`Session |
        None`, `"Session"`); OTHER for anything else, a container of the class included."""
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            return self.said(ast.parse(annotation.value, mode="eval").body)
        if isinstance(annotation, ast.Constant) and annotation.value is None:
            return set()
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            return self.said(annotation.left) | self.said(annotation.right)
        if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) == "Optional":
            return self.said(annotation.slice)
        if isinstance(annotation, ast.Name) and annotation.id in self.imported:
            return {self.imported[annotation.id]}
        return {OTHER}

    def made(self, value: ast.expr | None) -> set[str]:
        """What an assigned value says: a class's call (or its class method's) makes one of
        it; a variable already known passes on what it is; anything else says nothing."""
        if isinstance(value, ast.Await):
            value = value.value
        if isinstance(value, ast.Name):
            return set(self.scope.kinds(value.id) or ())
        if not isinstance(value, ast.Call):
            return set()
        callee = value.func
        if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name):
            callee = callee.value
        if isinstance(callee, ast.Name) and callee.id[:1].isupper():
            return {self.imported.get(callee.id, OTHER)}
        return set()

    def bind(self, target: ast.expr, kinds: set[str]) -> None:
        if isinstance(target, ast.Name):
            self.scope.bound.add(target.id)
            self.scope.known[target.id] |= kinds
            if kinds:
                self.anywhere[target.id] |= kinds
        elif isinstance(target, ast.Attribute):
            self.attributes[target.attr] |= kinds
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind(element, set())
        elif isinstance(target, ast.Starred):
            self.bind(target.value, set())

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        for default in (*node.args.defaults, *node.args.kw_defaults):
            if default is not None:
                self.visit(default)
        if not isinstance(node, ast.Lambda):
            for decorator in node.decorator_list:
                self.visit(decorator)
        outer = self.scope
        self.scope = Scope(outer, set(), defaultdict(set))
        arguments = node.args
        for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                         *filter(None, (arguments.vararg, arguments.kwarg))):
            self.bind(ast.Name(argument.arg),
                      self.said(argument.annotation) if argument.annotation else set())
        for statement in (node.body if isinstance(node.body, list) else [node.body]):
            self.visit(statement)
        self.scope = outer

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = function

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        self.bind(node.target, self.said(node.annotation))

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        for target in node.targets:
            self.bind(target, self.made(node.value))

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.generic_visit(node)
        self.bind(node.target, self.made(node.value))

    def for_loop(self, node: ast.For | ast.AsyncFor | ast.comprehension) -> None:
        self.generic_visit(node)
        self.bind(node.target, set())

    visit_For = visit_AsyncFor = visit_comprehension = for_loop

    def visit_withitem(self, node: ast.withitem) -> None:
        self.generic_visit(node)
        if node.optional_vars is not None:  # what a context manager hands: not our class
            self.bind(node.optional_vars, {OTHER})

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load):
            if isinstance(node.value, ast.Name):
                self.reads.append((self.scope, node.value.id, node.attr, False))
            elif isinstance(node.value, ast.Attribute):
                self.reads.append((self.scope, node.value.attr, node.attr, True))


def reads_in(module: str, tree: ast.Module) -> FileReads:
    imported, foreign = module_names(module, tree)
    reader = _Reader(imported, foreign)
    reader.visit(tree)
    reads: Counter[tuple[str, str, frozenset[str] | None]] = Counter()
    for scope, base, name, is_attribute in reader.reads:
        kinds = reader.attributes.get(base) if is_attribute else scope.kinds(base)
        reads[base, name, frozenset(kinds) if kinds else None] += 1
    return FileReads(reads, dict(reader.anywhere), imported, foreign)


@cache
def file_reads(module: str) -> FileReads:
    return reads_in(module, tree_of(modules()[module]))


def counted_reads(found: FileReads, cls: str) -> Counter[str]:
    """The names read off `cls` in one module: off a variable, parameter or attribute that
    something says is one (its annotation names the class, alone or in a union, or it is made
    by the class's call or from a variable said to be one); off a variable nothing in its scope
    says anything of, when bindings of that name elsewhere in the module say the class and
    nothing else; and off a variable or attribute nothing says anything of that is named as
    the class in snake case, in a module where the class's name means nothing else."""
    here: Counter[str] = Counter()
    by_name = cls not in found.foreign
    for (base, name, kinds), count in found.reads.items():
        elsewhere = found.anywhere.get(base)
        if kinds is not None:
            counts = cls in kinds
        elif elsewhere:
            counts = elsewhere == {cls}
        else:
            counts = by_name and base == snake(cls)
        if counts:
            here[name] += count
    return here


def names_read_off(cls: str, home: str) -> Reads:
    names: Counter[str] = Counter()
    files = 0
    for module in modules():
        if module == home:
            continue
        here = counted_reads(file_reads(module), cls)
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
