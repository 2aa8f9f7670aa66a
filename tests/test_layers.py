"""The layers import only downwards (docs/ARCHITECTURE.md): rules < protocol < bots < lobby
< net, store < app. A lower layer importing a higher one fails here, in CI, not only in a
local hook. `rules` imports nothing of ours outside itself, no I/O, and beside the standard
library only bgsage's compiled legal-play generator. `gnubg_bot` is a client beside the
server: the two import nothing of each other. Inside the lobby, each folder (a wing) imports
only the wings its concern rests on, and no folder of the package grows past twelve modules
(the figures are tests/structure.py's)."""
from __future__ import annotations

import ast
import sys
from collections.abc import Collection
from functools import cache
from pathlib import Path

import fibs_server
from tests import structure

PACKAGE = Path(fibs_server.__file__).parent
LAYER = {"rules": 0, "protocol": 1, "bots": 2, "lobby": 3, "net": 4, "store": 4}
TOP = 5  # __main__, app: they wire everything
BOT = "gnubg_bot"  # fibs-gnubg-bot: gnubg, not our board parser, reads our boards
IO_MODULES = {"asyncio", "socket", "sqlalchemy", "bcrypt", "alembic", "aiosqlite", "asyncpg",
              "os", "subprocess", "threading", "time"}


def layer_of(module: str) -> int:
    parts = module.split(".")
    return LAYER.get(parts[1], TOP) if len(parts) > 1 else TOP


def imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(structure.tree_of(path)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.level:  # relative: resolve against the importing module's package
                base = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-node.level]
                found.append(".".join((*base, node.module)))
            else:
                found.append(node.module)
    return found


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        yield ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts), path


def test_no_layer_imports_a_higher_one():
    wrong = []
    for module, path in modules():
        for imported in imports(path):
            if imported.startswith("fibs_server.") and layer_of(imported) > layer_of(module):
                wrong.append(f"{module} imports {imported}")
    assert not wrong, wrong


def test_net_and_store_do_not_import_each_other():
    def side(module: str) -> str:
        return module.split(".")[1] if module.count(".") else ""

    wrong = [f"{module} imports {imported}" for module, path in modules()
             for imported in imports(path)
             if imported.startswith("fibs_server.")
             and {side(module), side(imported)} == {"net", "store"}]
    assert not wrong, wrong


# The one package beside the standard library that the rules engine may use: bgsage's
# compiled core, for its legal-play generator (a computation: no I/O, no weights loaded).
RULES_THIRD_PARTY = {"bgbot_cpp"}


def rules_imports_of_packages() -> list[tuple[str, str]]:
    """(module, top-level package it imports) for every import of the rules engine."""
    return [(module, imported.split(".")[0]) for module, path in modules()
            if layer_of(module) == 0 for imported in imports(path)]


def test_the_rules_engine_is_pure():
    wrong = [f"{module} imports {top}" for module, top in rules_imports_of_packages()
             if top in IO_MODULES]
    assert not wrong, wrong


def test_the_rules_engine_uses_only_the_standard_library_and_the_compiled_generator():
    allowed = {*sys.stdlib_module_names, "fibs_server", *RULES_THIRD_PARTY}
    wrong = [f"{module} imports {top}" for module, top in rules_imports_of_packages()
             if top not in allowed]
    assert not wrong, wrong


def test_the_gnubg_bot_and_the_server_import_nothing_of_each_other():
    def part(module: str) -> str:
        return module.split(".")[1] if module.count(".") else ""

    wrong = [f"{module} imports {imported}" for module, path in modules()
             for imported in imports(path)
             if imported.startswith("fibs_server.")
             and (part(module) == BOT) != (part(imported) == BOT)]
    assert not wrong, wrong
    assert any(part(module) == BOT for module, _ in modules())


def test_the_check_sees_a_wrong_import(tmp_path):
    """The walk must find imports of every form, or the tests above prove nothing."""
    sample = PACKAGE / "rules" / "match.py"
    found = imports(sample)
    assert "fibs_server.rules.dice" in found  # `from .dice import ...`
    assert "fibs_server.rules.board.position" in found  # `from .board.position import ...`
    assert layer_of("fibs_server.lobby.lobby") > layer_of("fibs_server.rules.match")
    assert layer_of("fibs_server.lobby.lobby") > layer_of("fibs_server.bots.brain")


@cache  # one graph for the tests of a run: the sources do not change meanwhile
def import_graph() -> dict[str, set[str]]:
    """Each module of ours -> the modules of ours it imports (`from package import module`
    counts as importing the module; a package is its __init__)."""
    paths = dict(modules())
    known = {name.removesuffix(".__init__"): name for name in paths}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        targets = set()
        for node in ast.walk(structure.tree_of(path)):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                base = node.module
                if node.level:
                    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-node.level]
                    base = ".".join((*package, node.module))
                names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                         for alias in node.names]
            targets |= {known[name] for name in names if name in known}
        graph[module] = targets - {module}
    return graph


def test_no_import_circle():
    """Not even for type annotations: a circle means two modules that cannot be understood
    (or tested, or moved) one without the other."""
    graph = import_graph()
    circles = []
    state: dict[str, str] = {}  # module -> "open" while on the walk's path, "done" after

    def walk(module: str, path: list[str]) -> None:
        state[module] = "open"
        for imported in sorted(graph[module]):
            if state.get(imported) == "open":
                circles.append(path[path.index(imported):] + [imported])
            elif imported not in state:
                walk(imported, [*path, imported])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])
    assert not circles, circles


# --- the lobby's wings (docs/ARCHITECTURE.md, "The lobby") ---------------------------------------

LOBBY = "fibs_server.lobby"
# What the command modules may share besides what lies below them: their helpers and the
# registry.
COMMANDS_SHARE = {f"{LOBBY}.commands.common", f"{LOBBY}.command_table"}


def wing_of(module: str) -> str | None:
    """The lobby folder a module of the lobby is in ("" for the lobby's own modules)."""
    if not module.startswith(LOBBY + "."):
        return None
    parts = module.split(".")
    return parts[2] if len(parts) > 3 else ""


def lobby_imports(importer_wings: set[str], imported_wings: set[str],
                  allowed: Collection[str] = ()) -> list[str]:
    """"importer imports imported" for every import from one of `importer_wings` into one of
    `imported_wings` (a module of `allowed` aside), by the import graph."""
    return [f"{module} imports {imported}" for module, targets in sorted(import_graph().items())
            if wing_of(module) in importer_wings for imported in sorted(targets)
            if wing_of(imported) in imported_wings and imported not in allowed
            and imported != module]


def test_a_command_module_imports_no_other_but_the_shared_ones():
    wrong = lobby_imports({"commands"}, {"commands"}, COMMANDS_SHARE)
    assert not wrong, wrong


def test_matches_and_services_import_no_command_module():
    wrong = lobby_imports({"play", "services"}, {"commands"})
    assert not wrong, wrong


def test_nodes_limits_and_presence_import_neither_matches_nor_services():
    wrong = lobby_imports({"nodes", "limits", "presence"}, {"play", "services", "commands"})
    assert not wrong, wrong


def test_the_ports_import_nothing_else_of_the_lobby():
    wrong = lobby_imports({"ports"}, {"", "commands", "play", "services", "nodes", "limits",
                                      "presence"})
    assert not wrong, wrong


def test_nothing_in_the_lobby_imports_lobby_py_at_run_time():
    """The lobby makes the owners (`Matches`, `Attendance`, `Dispatcher`); the command tables
    are made from them and the services are given the lobby: they name `Lobby` as a type
    only, so that none of them depends on all of it (an import under `TYPE_CHECKING` does not
    run)."""
    wrong = sorted(module for module, imported in structure.lobby_graph().items()
                   if f"{LOBBY}.lobby" in imported)
    assert not wrong, wrong


def test_every_lobby_module_is_in_a_known_wing():
    """A new folder must say here what it may import."""
    wings = {wing_of(module) for module, _ in modules()} - {None}
    assert wings == {"", "commands", "play", "services", "nodes", "limits", "ports", "presence"}


def test_no_folder_holds_more_than_twelve_modules():
    crowded = {folder: count for folder, count in structure.modules_per_folder().items()
               if count > 12}
    assert not crowded, crowded


# The lobby's longest import chain: commands.bot_commands -> services.bot_players ->
# play.match_play -> play.match_table -> nodes.bus -> presence.session -> metrics. No service
# names `Lobby`: each is given the owners it uses (only the news names `LobbyConfig`, a type).
LONGEST_LOBBY_CHAIN = 7


def test_no_lobby_import_chain_is_longer_than_today():
    chain = structure.longest_import_chain()
    assert len(chain) <= LONGEST_LOBBY_CHAIN, chain


def test_the_counts_see_the_wings():
    """The figures above must come from the real graph, or the tests prove nothing."""
    assert structure.longest_import_chain()[-1].startswith(LOBBY + ".")
    assert f"{LOBBY}.play.match_play" in import_graph()[f"{LOBBY}.services.sweeps"]
    assert wing_of(f"{LOBBY}.lobby") == "" and wing_of(f"{LOBBY}.commands.common") == "commands"
