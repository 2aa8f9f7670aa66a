"""Our own help texts: the index (`help`), `help beginner`, and each command's topic with
the short forms that reach it (`help <command>`; topics in help_topics)."""
from __future__ import annotations

from fibs_server.protocol.commands import CommandWords, UnknownCommand, resolve
from fibs_server.protocol.help_topics import SUBJECTS, TOPICS, Topic
from fibs_server.protocol.wording.coded_texts import refusal

BOTS_LINE = "  Bots:        bot"  # when the server has its bots (`--bots on`)
INDEX = (
    "Commands (type 'help <command>' for more, 'help beginner' to get started):",
    "  Information: who rawwho whois ratings show time motd help version about",
    "               stat average dicetest last where names hostnames commands",
    "  Yourself:    toggle set away back address password bye wave cls clear",
    "               save panic",
    "  Matches:     invite join leave roll move off double accept reject resign",
    "               redouble beaver raccoon otter board rawboard pip oldboard",
    "               oldmoves history watch unwatch look undo table sit fairdice",
    "               salt analyse analysis puzzle tutor tournament",
    "  Talking:     tell tellx say shout kibitz whisper message waitfor gag blind",
    BOTS_LINE,
    "  Topics:      rules crawford formula boardstyle sortwho timezones client",
    "               autologin tinyfugue complaints countries erase shutdown !!",
    "Commands may be abbreviated to any unique prefix; '!!' repeats the last one.",
)

BEGINNER = (
    "Getting started:",
    "  1. 'who' shows who is logged in, 'who ready' those who want to play.",
    "  2. Type 'toggle ready' so that others may invite you.",
    "  3. Type 'invite <name> <points>' to ask someone for a match ('invite bob 5'),",
    "     or 'join <name>' to accept an invitation you received.",
    "  4. In a game: 'roll', then 'move 8-5 6-5' (from-to pairs; 'bar', 'off').",
    "     'double', 'accept', 'reject' and 'resign n|g|b': the cube and resigning.",
    "  5. 'board' shows the board again; 'set boardstyle 1|2|3' picks its look.",
    "  6. 'bye' logs out. An interrupted match is saved; 'invite <name>' resumes it.",
    "Each command has its own help: 'help invite', 'help move', 'help toggle', ...",
)

# `help timer` (and `help takeover`, `help bank`): timed matches are words of an invitation,
# no command.
TIMER = (
    "Timed matches: 'invite <name> <points> timer 30' (or 'timer 60').",
    "  Each decision (roll or double, move, answer a double or a resignation, join",
    "  the next game) then has 30 (60) seconds; at 10 seconds left you are warned.",
    "  When time is up the server plays the bot's choice for you and counts it:",
    "  the third time you lose the match (scored and rated like any match won).",
    "  Absence loses it only so: if you drop or log out while your opponent stays,",
    "  and you stay away for the whole grace period you are both told of then;",
    "  or if you 'leave' it and do not resume it in that time ('join <name>' or",
    "  'invite <name>'). If your opponent goes away too, or you come back online",
    "  after a drop, nobody loses: it waits saved, and resumes by itself once you",
    "  are both online and free. A server, network or database fault loses nothing.",
    "  'takeover <seconds>' (10 to 600): after that long a bot decides for you,",
    "  uncounted, and you play on. The clock shows under the board.",
    "A time bank instead: 'bank <s> <r> [bronstein|fischer]' ('bank 12 60').",
    "  Each decision has <s> seconds (1 to 120), then your reserve runs: <r>",
    "  seconds (1 to 600) for each point of the match. Bronstein: the reserve runs",
    "  at once and gets back what the decision took, up to <s>; Fischer: <s> are",
    "  added to it after each decision. When a decision's seconds and your reserve",
    "  are spent you lose the match on time: both players are warned 10 seconds",
    "  before, and both reserves show with the board. Absence: as above.",
    "  Example: invite bob 5 timer 60 takeover 20",
)
CLOCK_WORDS = ("timer", "takeover", "bank")


def short_forms(command: str, commands: CommandWords) -> list[str]:
    """What else may be typed for `command`: FIBS's fixed short forms and whole-word aliases,
    and its shortest unique prefix among `commands`."""
    forms = commands.other_words(command)
    for length in range(1, len(command)):
        prefix = command[:length]
        try:
            if resolve(prefix, commands).name == command:
                if prefix not in forms:
                    forms.append(prefix)
                break
        except UnknownCommand:
            continue
    return forms


def topic_lines(command: str, topic: Topic, commands: CommandWords) -> list[str]:
    forms = short_forms(command, commands)
    return [topic.syntax, *(f"  {line}" for line in topic.about),
            f"  Example: {topic.example}",
            f"  Short forms: {', '.join(forms)}" if forms else "  Short forms: none"]


def topic(word: str, commands: CommandWords) -> list[str]:
    """`help <word>`: the index, `beginner`, a topic of FIBS's index that is no command
    (`rules`, `formula`, ...), or the topic of the command `word` stands for as it would on
    the command line (`help m` = `help move`, `help date` = `help time`)."""
    key = word.lower()
    if not key:
        return [line for line in INDEX if line != BOTS_LINE or "bot" in commands]
    if key == "beginner":
        return list(BEGINNER)
    if key in CLOCK_WORDS:
        return list(TIMER)
    if key in SUBJECTS:
        return list(SUBJECTS[key])
    try:
        command = resolve(key, commands).name
    except UnknownCommand:
        command = ""
    if command in TOPICS:
        return topic_lines(command, TOPICS[command], commands)
    return [refusal("no_help_on", f"** No help on '{word}'. Type 'help' for the list of commands.",
                    word=word)]
