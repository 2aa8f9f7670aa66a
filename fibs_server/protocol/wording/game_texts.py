"""Texts of matches around the board: invite and join, a match's start and resume, leave,
watching and looking, and the in-match commands' own complaints (docs/PROTOCOL.md).

What happens on the board itself is told by match_views; these are the texts around it. Some
lines have no `**` or no final period where FIBS's have none: clients match them as they are.
"""
from __future__ import annotations

from fibs_server.protocol.chat import with_bell
from fibs_server.protocol.match_rules import STANDARD_TERMS, MatchTerms, rules_summary
from fibs_server.protocol.wording.coded_texts import notice, refusal
from fibs_server.protocol.wording.match_texts import match_kind

NOT_PLAYING = refusal("not_playing", "** You're not playing.")
TWO_GAMES_AT_ONCE = refusal("two_games_at_once", "** You can't play two games at once")

# --- invite and join ---------------------------------------------------------------------------

INVITE_WHOM = refusal("invite_whom", "** invite who?")
INVITE_YOURSELF = refusal("invite_yourself", "** You can't invite yourself.")
TOGGLE_READY_FIRST = refusal("not_ready", "** Use 'toggle ready' first.")
YOU_ARE_NOT_EXPERIENCED_ENOUGH = refusal(
    "not_experienced_enough", "** You're not experienced enough to play a match of that length.")
SAVED_MATCH_WARNING = "WARNING: Don't accept if you want to continue your saved match!"
JOIN_WHOM = refusal("join_whom", "** Error: Join who?")


def already_playing(name: str) -> str:
    return refusal("already_playing", f"** Error: {name} is already playing with someone else.",
                   name=name)


def refusing_games(name: str) -> str:
    return refusal("refusing_games", f"** {name} is refusing games.", name=name)


def no_saved_match(name: str) -> str:
    return refusal("no_saved_match", f"** There's no saved match with {name}.", name=name)


def give_a_match_length(name: str) -> str:
    """`invite <name>` without a length, and no saved match to resume."""
    return refusal("length_needed", f"{no_saved_match(name)} Please give a match length.",
                   name=name)


def match_length_usage(longest: int) -> str:
    return refusal("bad_length",
                   f"** The match length must be a number from 1 to {longest} or 'unlimited'.",
                   longest=longest)


def not_experienced_enough(name: str) -> str:
    return refusal("opponent_not_experienced_enough",
                   f"** {name} is not experienced enough to play a match of that length.", name=name)


def you_invited(name: str, length: int | None, terms: MatchTerms = STANDARD_TERMS) -> list[str]:
    """FIBS's confirmation exactly, whatever the terms; a timed or variant match's follow on
    the line after it, as in the invitation."""
    summary = rules_summary(terms)
    return [notice(f"** You invited {name} to {match_kind(length)}."),
            *([invitation_terms(summary)] if summary else [])]


def you_invited_to_resume(name: str) -> str:
    return notice(f"** You invited {name} to resume a saved match.")


def invitation(inviter: str, length: int | None, saved_match: bool, bell: bool,
               terms: MatchTerms = STANDARD_TERMS) -> list[str]:
    """What the invited user reads; `saved_match`: a match with the inviter is saved, which
    a new one would replace. FIBS's exact line comes first, whatever the terms: a timed or
    variant match's are on the line after it (`invitation_terms`), since every client program
    and bot reads only FIBS's form as an invitation."""
    lines = [with_bell(f"{inviter} wants to play {match_kind(length)} with you.", bell)]
    summary = rules_summary(terms)
    if summary:
        lines.append(invitation_terms(summary))
    if saved_match:
        lines.append(SAVED_MATCH_WARNING)
    return [*lines, _type_join(inviter)]


def invitation_terms(summary: str) -> str:
    """Ours, after FIBS's invitation line: `The match is played with: nackgammon, no cube,
    30 s a turn.` (a page reads the terms of its typed `invitation` message instead)."""
    return f"The match is played with: {summary}."


def saved_match_first(other: str) -> str:
    """A new match would replace the saved one with `other`, which it must not (a table's
    sitter is not warned; a bot agrees to anything; a timed match left awaits its grace)."""
    return refusal("saved_match_first", f"** You have a saved match with {other}: type 'invite {other}' "
                   f"to resume it before you play another.", name=other)


def invitation_to_resume(inviter: str, bell: bool) -> list[str]:
    return [with_bell(f"{inviter} wants to resume a saved match with you.", bell),
            _type_join(inviter)]


def _type_join(inviter: str) -> str:
    # Bots find the inviter's name in this line (lobby/services/bot_players.py).
    return f"Type 'join {inviter}' to accept."


def cannot_find_player(name: str) -> str:
    return refusal("no_such_player", f"** Error: can't find player {name}", name=name)


def didnt_invite_you(name: str) -> str:
    return refusal("no_invitation", f"** {name} didn't invite you.", name=name)


# --- a match starts or resumes -----------------------------------------------------------------

def you_are_now_playing(inviter: str, length: int | None) -> str:
    """To the player who joined."""
    return notice(f"** You are now playing {match_kind(length)} with {inviter}")


def has_joined_you(joiner: str, length: int | None) -> str:
    """To the inviter. FIBS's line for an unlimited match has no `**`."""
    if length is None:
        return f"Player {joiner} has joined you for an unlimited match."
    return notice(f"** Player {joiner} has joined you for {match_kind(length)}.")


def match_starts(inviter: str, joiner: str, length: int | None) -> str:
    """The `report` line of a new match."""
    return f"{inviter} and {joiner} start {match_kind(length)}."


def match_loaded_for_joiner(inviter: str) -> str:
    return f"You are now playing with {inviter}. Your running match was loaded."


def match_loaded_for_inviter(joiner: str) -> str:
    return f"{joiner} has joined you. Your running match was loaded."


def match_resumes(inviter: str, joiner: str, length: int | None) -> str:
    """The `report` line of a resumed match."""
    what = "their unlimited match" if length is None else f"their {length}-point match"
    return f"{inviter} and {joiner} are resuming {what}."


# --- leave -------------------------------------------------------------------------------------

NO_ONE_TO_LEAVE = refusal("nothing_to_leave", "** Error: No one to leave.")
YOU_ENDED_THE_UNLIMITED_MATCH = notice("** You terminated the unlimited match.")
YOU_LEFT_THE_GAME = notice("** You terminated the game. The game was saved.")


def ended_the_unlimited_match(name: str) -> str:
    return notice(f"** Player {name} has ended the unlimited match.")


def left_the_game(name: str) -> str:
    """To the opponent of a player who typed `leave`."""
    return notice(f"** Player {name} has left the game. The game was saved.")


def left_the_game_with(name: str, opponent: str) -> str:
    """To the watchers of a match a player left."""
    return f"{name} has left the game with {opponent}."


# --- in-match commands -------------------------------------------------------------------------

RESIGN_USAGE = refusal("resign_usage", "** Type 'n' (normal), 'g' (gammon) or 'b' (backgammon) after resign.")
TOGGLE_ALLOWPIP_FIRST = refusal("toggle_allowpip_first", "** Type 'toggle allowpip' first.")


def pip_not_allowed(opponent: str) -> str:
    return refusal("pip_not_allowed",
                   f"** {opponent} doesn't allow this. Ask {opponent} to 'toggle allowpip'",
                   name=opponent)


# --- watch and look ----------------------------------------------------------------------------

WATCH_WHOM = refusal("watch_whom", "** Watch who?")
WATCH_YOURSELF = refusal("watch_yourself", "** Use a mirror to do that.")
WATCH_WHILE_PLAYING = refusal("watch_while_playing",
                              "** You can't watch another game while you're playing.")
NOT_WATCHING = refusal("not_watching", "** You're not watching.")
LOOK_AT_WHOM = refusal("look_at_whom", "** Look at who?")


def you_stop_watching(name: str, for_another: bool) -> str:
    """`unwatch`; `for_another`: `watch` of someone else, which is a `**` line."""
    return notice(f"{'** ' if for_another else ''}You stop watching {name}.")


def you_are_now_watching(name: str) -> str:
    return f"You're now watching {name}."


def is_watching_you(watcher: str) -> str:
    return f"{watcher} is watching you."


def starts_watching(watcher: str, player: str) -> str:
    """To the opponent of the player now watched."""
    return f"{watcher} starts watching {player}."


def stops_watching_you(watcher: str) -> str:
    return f"{watcher} stops watching you."


def stops_watching(watcher: str, player: str) -> str:
    """To the opponent of the player no longer watched."""
    return f"{watcher} stops watching {player}."


def nothing_interesting(name: str) -> str:
    """`watch` of a user who plays no match."""
    return f"{name} is not doing anything interesting."


def no_longer_watching(name: str) -> str:
    """To the watchers of a user who logged out."""
    return f"{name} logs out. You're not watching anymore."


def is_not_playing(name: str) -> str:
    """`look` at a user who plays no match."""
    return refusal("not_playing_match", f"** {name} is not playing.", name=name)
