"""Our own help texts (`help`, `help <topic>`, `help beginner`)."""
from __future__ import annotations

TOPICS: dict[str, tuple[str, ...]] = {
    "": (
        "Commands (type 'help <command>' for more, 'help beginner' to get started):",
        "  who rawwho whois ratings show time motd help",
        "  toggle set away back address password",
        "  invite join leave roll move double accept reject resign board pip off",
        "  redouble beaver raccoon otter oldboard oldmoves history",
        "  watch unwatch look tell tellx say shout kibitz whisper message waitfor",
        "  gag blind bye wave",
        "Commands may be abbreviated to any unique prefix; '!!' repeats the last one.",
    ),
    "beginner": (
        "Getting started:",
        "  1. Type 'who' to see who is logged in ('who ready' for those who want to play).",
        "  2. Type 'toggle ready' so that others may invite you.",
        "  3. Type 'invite <name> <points>' to ask someone for a match, e.g. 'invite bob 5',",
        "     or 'join <name>' to accept an invitation you received.",
        "  4. In a game: 'roll', then 'move 8-5 6-5' (from-to pairs, 'bar' and 'off' allowed).",
        "     'double', 'accept', 'reject' and 'resign n|g|b' handle the cube and resigning.",
        "  5. 'board' shows the board again; 'set boardstyle 1|2|3' picks its look.",
        "  6. 'bye' logs out. An interrupted match is saved; 'invite <name>' resumes it.",
    ),
    "who": (
        "who [ready|away|playing|count|from <host>|<name>]",
        "  Lists the users logged in. S: P playing, W watching, A away, R ready, - otherwise.",
        "  'set sortwho login|name|rating|rrating' chooses the order.",
    ),
    "rawwho": ("rawwho [same as who]", "  The who list as CLIP '5' lines, ended by '6'."),
    "whois": ("whois <name>", "  Rating, experience, last login and what the user is doing."),
    "ratings": (
        "ratings [name] [from N] [to M]",
        "  The rating list (players with experience above 50); '*' marks your own row.",
    ),
    "show": ("show games|saved|savedcount <name>|watchers|max",),
    "time": ("time (or date)", "  The server's date and time in your timezone."),
    "motd": ("motd", "  Shows the message of the day again."),
    "toggle": (
        "toggle [name ...]",
        "  Without a name: lists your switches. With names: flips each of them.",
        "  allowpip autoboard autodouble automove bell crawford double (autoroll) greedy",
        "  moreboards moves notify ratings ready report silent telnet wrap",
    ),
    "set": (
        "set [variable [value]]",
        "  boardstyle 1|2|3, linelength 0-999, pagelength 0-999,",
        "  redoubles none|unlimited|1-99, sortwho login|name|rating|rrating, timezone <zone>",
    ),
    "away": ("away [message]", "  Marks you away; without a message lists who is away."),
    "back": ("back", "  Ends 'away'."),
    "address": ("address <email>", "  Sets the email address others see in 'whois'."),
    "password": ("password <old>:<new>:<new>", "  Changes your password."),
    "bye": ("bye (also quit, exit, logout, adios, ciao, end, tschoe)", "  Logs out."),
    "wave": ("wave", "  Waves goodbye; waving twice logs you out."),
}


def topic(name: str) -> tuple[str, ...]:
    key = name.lower()
    if key in TOPICS:
        return TOPICS[key]
    matches = [t for t in TOPICS if t and t.startswith(key)]
    if len(matches) == 1:
        return TOPICS[matches[0]]
    return (f"** No help on '{name}'. Type 'help' for the list of commands.",)
