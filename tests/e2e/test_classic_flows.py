"""A telnet or CLIP session that has not opted in sees exactly FIBS's lines in
FIBS's flows. Login, who, whois, invite, join, a whole match, watch and chat are played with
CLIP and telnet sessions, and every line they read must be one of FIBS's line forms listed
in docs/PROTOCOL.md (the `fibs-lines` block), as a classic client's classifier would."""
from __future__ import annotations

import pathlib
import re

from fibs_server.rules.dice import SeededDice
from tests.e2e.bot import Bot
from tests.e2e.client import TIMEOUT, FibsClient
from tests.e2e.conftest import DATE_LINE
from tests.e2e.test_lobby_commands import ask
from tests.e2e.test_match_play import play_out
from tests.e2e.test_match_play import start as start_match

PROTOCOL = pathlib.Path(__file__).parents[2] / "docs" / "PROTOCOL.md"


def fibs_line_forms() -> list[re.Pattern]:
    block = re.search(r"```fibs-lines\n(.*?)```", PROTOCOL.read_text(), re.DOTALL).group(1)
    return [re.compile(line) for line in block.splitlines() if line]


def not_fibs(lines: list[str], forms: list[re.Pattern]) -> list[str]:
    """The lines no form matches; the MOTD (between CLIP `3` and `4`, or a telnet login's
    box, up to the first prompt) is free text on FIBS too."""
    unknown, in_motd = [], False
    for line in lines:
        if line == "3":
            in_motd = True
            continue
        if re.fullmatch(r"[+|].*[+|]", line):  # the telnet login's MOTD box
            continue
        if line == "4":
            in_motd = False
            continue
        if in_motd or line == "":
            continue
        line = line.removeprefix("> ")  # a telnet prompt before an asynchronous line
        if not any(form.fullmatch(line) for form in forms):
            unknown.append(line)
    return unknown


def test_the_forms_are_read_from_the_protocol_page():
    forms = fibs_line_forms()
    assert len(forms) > 50
    assert not_fibs(["bob wants to play a 3 point match with you.", "3", "any motd", "4"],
                    forms) == []
    assert not_fibs(["Dice commitment for this match: ab. Type 'help fairdice'.",
                     "Clock: bob has 5 seconds to move."], forms) == [
        "Dice commitment for this match: ab. Type 'help fairdice'.",
        "Clock: bob has 5 seconds to move."]


async def test_standard_flows_send_only_fibs_lines(harness, monkeypatch):
    read: dict[str, list[str]] = {}
    original = FibsClient.read_line

    async def recording(self, timeout=TIMEOUT):
        line = await original(self, timeout)
        read.setdefault(self.name, []).append(line)
        return line

    monkeypatch.setattr(FibsClient, "read_line", recording)
    for name in ("alice", "bob", "carol"):
        await harness.register(name)
    read.clear()  # the banner and registration come before any login
    carol = await harness.login_telnet("carol")
    await ask(carol, "set boardstyle 3", "Value of 'boardstyle' set to 3.")
    alice = await harness.login_clip("alice")
    bob = await harness.login_clip("bob")
    for client in (alice, bob):
        await client.toggle_ready()
    await carol.send("who")
    await carol.skip_until(re.compile(r".*\bbob\b.*1500.*"))
    await alice.send("whois bob")
    await alice.skip_until("  No email address.")
    await carol.send("whois alice")
    await carol.skip_until("  No email address.")
    await alice.send("tell bob hello")
    await bob.skip_until("12 alice hello")
    await carol.send("tell alice hi there")
    await alice.skip_until("12 carol hi there")
    harness.dice.append(SeededDice(3))
    await start_match(alice, bob, "3")
    await carol.send("watch alice")
    await carol.skip_until("You're now watching alice.")
    await bob.send("kibitz good luck")
    await carol.skip_until(re.compile(r"(> )?bob kibitzes: good luck"))
    await play_out(Bot(alice, "alice", seed=1), Bot(bob, "bob", seed=2))
    await carol.skip_until(re.compile(r"(> )?\S+ wins the 3 point match \d+-\d+ \."))
    await alice.send("who")
    await alice.skip_until("6")
    forms = fibs_line_forms()
    for name in ("alice", "bob", "carol"):
        lines = read[name]
        # The banner, up to its date line, is junk to every client (FCM's PreLogin).
        start = max(i for i, line in enumerate(lines) if DATE_LINE.fullmatch(line)) + 1
        assert not_fibs(lines[start:], forms) == [], name
