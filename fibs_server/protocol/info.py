"""Texts of the information commands: who, whois, ratings, show (docs/PROTOCOL.md), and
of looking back: oldboard, oldmoves, history."""
from __future__ import annotations

import dataclasses
import datetime

from fibs_server.protocol.clip import WhoInfo
from fibs_server.protocol.match_rules import MatchTerms, house_rules, rules_summary, variant_word
from fibs_server.protocol.texts import date_line, plural, user_zone
from fibs_server.protocol.wording.coded_texts import refusal

WHO_HEADER = "No  S  username        rating  exp login    idle  from"
WHO_FROM_WHERE = refusal("who_from_where", "** who from where?")
WHOIS_WHOM = refusal("whois_whom", "** whois who?")


def who_status(info: WhoInfo) -> str:
    if info.opponent:
        return "P"
    if info.watching:
        return "W"
    if info.away:
        return "A"
    return "R" if info.ready else "-"


def idle_text(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def who_table(infos: list[WhoInfo], timezone: str) -> list[str]:
    """The telnet `who` table (CLIP clients get `5`/`6` lines instead)."""
    zone = user_zone(timezone)
    rows = [WHO_HEADER]
    for number, info in enumerate(infos, 1):
        login = datetime.datetime.fromtimestamp(info.login_time, zone)
        # A name longer than its column pushes the row right rather than touch the rating.
        rows.append(f"{number:>2}  {who_status(info)}  {info.name:<14} {info.rating:>7.2f}"
                    f" {info.experience:>4} {login:%H:%M}  {idle_text(info.idle_seconds):>6}"
                    f"  {info.host}")
    return rows


def who_count(count: int) -> str:
    return f"There {'is' if count == 1 else 'are'} {count} user{'' if count == 1 else 's'} logged in."


@dataclasses.dataclass(frozen=True)
class WhoisFacts:
    name: str
    rating: float
    experience: int
    email: str | None
    last_login: datetime.datetime | None
    last_host: str | None
    last_logout: datetime.datetime | None
    online_idle_seconds: int | None  # None = not logged in
    playing_with: str | None
    watching: str | None
    away_message: str | None
    playing_terms: MatchTerms | None = None  # of the match played with `playing_with`
    saved_matches: int = 0  # unfinished and not being played: waiting to be resumed
    abandoned_matches: int = 0  # left unfinished until they were closed (docs/FAIRNESS.md)
    # A built-in bot's measured error rate (mEMG per decision), its PR and gnubg's words.
    bot_strength: tuple[float, float, str] | None = None


def whois(facts: WhoisFacts, timezone: str, match_counts: bool = False) -> list[str]:
    """FIBS's `whois` block; `match_counts`: with our saved/abandoned line (web sessions)."""
    lines = [f"Information about {facts.name}:"]
    if facts.last_login is not None:
        lines.append(f"  Last login: {date_line(facts.last_login, timezone)}"
                     f" from {facts.last_host or '-'}")
    if facts.online_idle_seconds is None:
        if facts.last_logout is not None:
            lines.append(f"  Last logout: {date_line(facts.last_logout, timezone)}")
        lines.append("  Not logged in right now.")
    else:
        lines.append(f"  Still logged in. {idle_text(facts.online_idle_seconds)} minutes idle.")
        if facts.away_message is not None:
            lines.append(f"  {facts.name} is away: {facts.away_message}")
        if facts.playing_with:
            summary = rules_summary(facts.playing_terms or MatchTerms())
            rules = f" ({summary})" if summary else ""
            lines.append(f"  {facts.name} is playing with {facts.playing_with}{rules}.")
        elif facts.watching:
            lines.append(f"  {facts.name} is watching {facts.watching}.")
    lines.append(f"  Rating: {facts.rating:.2f} Experience: {facts.experience}")
    if match_counts:
        lines.append(match_counts_line(facts.saved_matches, facts.abandoned_matches))
        if facts.bot_strength is not None:
            lines.append(bot_strength_line(*facts.bot_strength))
    lines.append(f"  Email address: {facts.email}" if facts.email else "  No email address.")
    return lines


def bot_strength_line(error_rate: float, performance_rating: float, words: str) -> str:
    """Ours, in `whois` of a built-in bot for web sessions."""
    return (f"  A built-in bot: {error_rate:.1f} mEMG per decision (PR {performance_rating:.1f})"
            f" as GNU Backgammon's analysis measures it ({words}).")


def match_counts_line(saved: int, abandoned: int) -> str:
    """Ours (docs/FAIRNESS.md): in `history`, and in `whois` for web sessions."""
    return f"  Saved matches waiting: {saved}. Matches abandoned: {abandoned}."


def no_information(name: str) -> str:
    return f"No information found on user {name}."


RATINGS_HEADER = " rank name            rating    Experience"
RATINGS_USAGE = refusal("ratings_usage", "** Usage: ratings [name] [from N] [to M]")


def no_rating_rank(name: str, experience: int, ranked_above: int) -> str:
    return refusal("no_rating_rank", f"** {name} has no rating rank yet (experience {experience}, "
                   f"ranked above {ranked_above}).", name=name, experience=experience,
                   ranked_above=ranked_above)


def ratings_row(rank: int, name: str, rating: float, experience: int, own: bool) -> str:
    row = f"{rank:5d} {name:<15} {rating:.2f}     {experience}"
    return ("*" + row[1:]) if own else row


@dataclasses.dataclass(frozen=True)
class RunningGame:
    """A row of `show games`."""
    player: str
    opponent: str
    length: int | None
    score: int
    opponent_score: int
    terms: MatchTerms


def games_list(games: list[RunningGame]) -> list[str]:
    lines = ["List of games:"]
    for game in games:
        kind = "unlimited" if game.length is None else f"{game.length} point"
        notes = house_rules(game.terms)
        lines.append(f"{game.player:<16} -  {game.opponent:<16} ({kind} "
                     f"{variant_word(game.terms.rules)}match {game.score}-{game.opponent_score}"
                     + (f"; {', '.join(notes)})" if notes else ")"))
    return lines


def watchers_list(pairs: list[tuple[str, str]]) -> list[str]:
    if not pairs:
        return ["Watching players:", "Nobody is watching."]
    return ["Watching players:", *(f"{w} is watching {p}." for w, p in pairs)]


# --- show ------------------------------------------------------------------------------------

SHOW_SUBJECTS = ("games", "saved", "savedcount", "watchers", "max", "tables")


def cannot_show(word: str) -> str:
    subjects = [f"'{subject}'" for subject in SHOW_SUBJECTS]
    text = (f"** Don't know how to show {word.lower() or 'nothing'}. "
            f"Try {', '.join(subjects[:-1])} or {subjects[-1]}.")
    # `show` alone has its own code: "nothing" is no word a page could translate.
    return (refusal("cannot_show", text, subject=word.lower()) if word
            else refusal("show_what", text))


@dataclasses.dataclass(frozen=True)
class SavedMatch:
    """A row of `show saved`, from the side of the user who asks."""
    opponent: str
    opponent_online: bool
    opponent_ready: bool
    length: int | None
    score: int
    opponent_score: int


def saved_matches(rows: list[SavedMatch]) -> list[str]:
    if not rows:
        return ["no saved games."]
    return ["  opponent          matchlength   score (your points first)",
            *(_saved_match_row(row) for row in rows)]


def _saved_match_row(row: SavedMatch) -> str:
    # ` *` the opponent is logged in, `**` and ready to play.
    mark = "**" if row.opponent_ready else " *" if row.opponent_online else "  "
    length = "unlimited" if row.length is None else str(row.length)
    return f"{mark}{row.opponent:<23}{length:>2}{row.score:>17} -{row.opponent_score:>3}"


def saved_count(name: str, count: int) -> str:
    if count == 0:
        return f"{name} has no saved games."
    return f"{name} has {plural(count, 'saved game')}."


def max_logins(most_online: int) -> str:
    return f"max_logins is {most_online}"


# --- looking back ----------------------------------------------------------------------------

NO_PREVIOUS_BOARD = refusal("no_previous_board", "** There is no previous board.")
NO_PREVIOUS_GAME = refusal("no_previous_game", "** There is no previous game.")
_RULES_COLUMN = 88  # past the longest row (a 20-letter opponent, a 4-digit rating)
_HISTORY_COLUMNS = "    id  finished (UTC)    opponent         length  score  result  rating"
HISTORY_HEADER = f"{_HISTORY_COLUMNS:<{_RULES_COLUMN}}rules"
ANALYSED_MARK = "*"  # after the number of an analysed match
HISTORY_ANALYSED = f"  {ANALYSED_MARK} analysed: type 'analysis <match>' to read it."


@dataclasses.dataclass(frozen=True)
class FinishedMatch:
    """A row of `history`, from the side of the player whose history it is."""
    match_id: int
    finished: datetime.datetime  # in UTC
    opponent: str
    length: int | None
    score: int
    opponent_score: int
    won: bool | None  # None: ended without a winner (an unlimited match left between games)
    rating: tuple[float, float] | None  # the player's rating before and after; None: unrated
    terms: MatchTerms = MatchTerms()  # the variant, house rules and clock it was played by
    analysed: bool = False  # its analysis is stored (`analysis <match>`)


def history(name: str, rows: list[FinishedMatch], saved: int = 0, abandoned: int = 0
            ) -> list[str]:
    """A player's finished matches, newest first, then their saved and abandoned ones."""
    counts = match_counts_line(saved, abandoned)
    if not rows:
        return [f"{name} has no finished matches.", counts]
    legend = [HISTORY_ANALYSED] if any(row.analysed for row in rows) else []
    return [f"Finished matches of {name}, newest first:", HISTORY_HEADER,
            *(history_row(row) for row in rows), *legend, counts]


def history_row(row: FinishedMatch) -> str:
    """`    12  2026-11-30 10:31  bob                   5    5-2  won     1507.50 (+7.50)`: indented,
    so that no row starts with a digit (Gibbon reads such a line as a CLIP message)."""
    length = "unl" if row.length is None else str(row.length)
    result = "ended" if row.won is None else "won" if row.won else "lost"
    mark = ANALYSED_MARK if row.analysed else " "
    line = (f"  {row.match_id:4d}{mark} {row.finished:%Y-%m-%d %H:%M}  {row.opponent:<16} {length:>6}"
            f"  {row.score:>2}-{row.opponent_score:<2}  {result:<6}  {_rating_change(row.rating)}")
    rules = rules_summary(row.terms)
    return f"{line:<{_RULES_COLUMN}}{rules}" if rules else line


def _rating_change(rating: tuple[float, float] | None) -> str:
    if rating is None:
        return "-"
    before, after = rating
    return f"{after:.2f} ({after - before:+.2f})"
