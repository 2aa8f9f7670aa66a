"""CLIP lines that strict clients check field by field (docs/PROTOCOL.md, "What client
programs depend on")."""
from fibs_server.lobby.ports.accounts import TOGGLE_DEFAULTS
from fibs_server.protocol import clip


def own_info_redoubles(setting: str) -> str:
    line = clip.own_info("alice", TOGGLE_DEFAULTS, away=False, experience=0, rating=1500.0,
                         redoubles=setting, timezone="UTC")
    fields = line.split(" ")
    assert len(fields) == 22
    return fields[18]


def test_own_info_redoubles_is_a_number_or_unlimited():
    assert own_info_redoubles("none") == "0"  # never `none`: strict clients drop the line
    assert own_info_redoubles("unlimited") == "unlimited"
    assert own_info_redoubles("42") == "42"
