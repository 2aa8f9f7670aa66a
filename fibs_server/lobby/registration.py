"""What a new account's name may not be, besides what `texts.name_error` checks."""
from __future__ import annotations

from typing import TYPE_CHECKING

from fibs_server.protocol import commands, texts

if TYPE_CHECKING:
    from fibs_server.lobby.lobby import Lobby


def is_reserved_name(lobby: Lobby, name: str) -> bool:
    """Names that pass for the server or a command (`who says: ...`, `tell shout ...`): the
    reserved words and every command name, alias and administrator command."""
    key = name.lower()
    return (key in texts.RESERVED_NAMES or key in lobby.command_names
            or key in lobby.admin_handlers or key in commands.ALIASES)
