"""The text of each command's help topic (`help <command>`): its syntax, what it does and an
example. The short forms are added by `protocol.help`, from the commands that exist."""
from __future__ import annotations

import dataclasses
import textwrap

from fibs_server.protocol.match_rules import VARIANT_CHOICE, VARIANT_WORDS
from fibs_server.rules.variants import Variant


@dataclasses.dataclass(frozen=True)
class Topic:
    syntax: str
    about: tuple[str, ...]
    example: str


def variant_choices() -> str:
    """Each variant a word chooses, with what sets it apart from standard backgammon:
    `'nack' (nackgammon), 'hyper' (hypergammon, 3 checkers) or 'portes' (no cube, ...)`."""
    standard = Variant.STANDARD.facts
    choices = []
    for word, variant in VARIANT_WORDS.items():
        facts = variant.facts
        notes = [variant.value] if variant.value != word else []
        if facts.checkers_per_side != standard.checkers_per_side:
            notes.append(f"{facts.checkers_per_side} checkers")
        if not facts.cube:
            notes.append("no cube")
        if not facts.backgammons:
            notes.append("no backgammons")
        if not facts.opening_dice_played:
            notes.append("the opening's winner rolls afresh")
        choices.append(f"'{word}' ({', '.join(notes)})")
    return f"{', '.join(choices[:-1])} or {choices[-1]}"


_HELP_WIDTH = 72  # the longest line of a topic's text, as the hand-wrapped ones are


TOPICS: dict[str, Topic] = {
    # --- information -----------------------------------------------------------------
    "who": Topic("who [ready|away|playing|count|from <host>|<name>]", (
        "Lists the users logged in. Column S: P playing, W watching, A away,",
        "R ready to play, - otherwise. 'set sortwho' chooses the order."),
        "who ready"),
    "rawwho": Topic("rawwho [same as who]", (
        "The who list as a client program reads it: CLIP '5' lines, ended by '6'.",),
        "rawwho bob"),
    "whois": Topic("whois <name>", (
        "Rating, experience, last login and what the user is doing now; their",
        "saved matches waiting, and the matches they left unfinished so long that",
        "they were closed (abandoned)."),
        "whois bob"),
    "ratings": Topic("ratings [<name>] [from <n>] [to <m>]", (
        "The rating list: players with experience above 50. '*' marks your row.",),
        "ratings from 21 to 40"),
    "show": Topic("show games|saved|savedcount [<name>]|watchers|max|tables", (
        "games: the matches being played. saved: your saved matches.",
        "savedcount: how many a user has. watchers: who watches whom.",
        "max: the most users logged in at once. tables: the open tables, but",
        "the private ones ('help table'). Words may be abbreviated."),
        "show saved"),
    "time": Topic("time", ("The date and time, in your timezone and in UTC.",), "date"),
    "motd": Topic("motd", ("Shows the message of the day again.",), "motd"),
    "help": Topic("help [<command>|beginner]", (
        "Without a word: the list of commands. With a command: how to use it.",
        "'help beginner' tells how to start playing. 'man' is the same as 'help'."),
        "help move"),
    "version": Topic("version", ("The version of this server.",), "version"),
    "about": Topic("about", ("A few words about this server.",), "about"),
    "stat": Topic("stat", (
        "Users logged in, the most at once, matches being played, and since when",
        "the server runs."), "stat"),
    "average": Topic("average", (
        "On FIBS, users logged in per hour. This server keeps no such numbers;",
        "'stat' has the current ones."), "average"),
    "dicetest": Topic("dicetest", (
        "How often each of the 21 rolls, each face and doubles came up: in all",
        "the server's matches and in your own rolls, beside what fair dice give,",
        "with a chi-square figure and what it means."), "dicetest"),
    "last": Topic("last [<name>]", (
        "When a user last logged in (and from where) and out. Without a name:",
        "you. The whole name is needed: no completion."), "last bob"),
    "where": Topic("where <name>", ("Where a user is logged in from.",), "where bob"),
    "names": Topic("names", ("The names of the users logged in, in columns.",), "names"),
    "hostnames": Topic("hostnames", (
        "The users logged in with the host each one comes from.",), "hostnames"),
    "commands": Topic("commands", ("All the commands you can use, in columns.",), "commands"),
    # --- you and your settings -----------------------------------------------------------
    "toggle": Topic("toggle [<name> ...]", (
        "Without a name: your switches. With names: flips each of them.",
        "allowpip autoboard autodouble automove bell crawford double (autoroll)",
        "greedy moreboards moves notify ratings ready report silent telnet wrap",
        "wrap NO: the server breaks lines at your linelength (see 'help set')."),
        "toggle ready"),
    "set": Topic("set [<variable> [<value>]]", (
        "boardstyle 1|2|3: two pictures of the board, or 3, the line clients read.",
        "linelength 0-999: where long lines are broken ('toggle wrap' NO); 0: not.",
        "pagelength 0-999: lines per page of a long reply; 0: no pages.",
        "redoubles none|unlimited|1-99: redoubles in a row in unlimited matches,",
        "the smaller of both players' numbers as they were when the match began.",
        "sortwho login|name|rating|rrating: the order of 'who'.",
        "timezone <zone> (e.g. Europe/Berlin). Without a value: shows it."),
        "set boardstyle 2"),
    "away": Topic("away [<message>]", (
        "Marks you away, with a message for those who talk to you. Without a",
        "message: lists who is away. 'back' ends it."), "away having lunch"),
    "back": Topic("back", ("Ends 'away'.",), "back"),
    "address": Topic("address [<email>]", (
        "Sets the email address others see in 'whois'. Alone: shows yours.",),
        "address bob@example.org"),
    "password": Topic("password <old>:<new>:<new>", ("Changes your password.",),
                      "password secret:n3wer:n3wer"),
    "bye": Topic("bye", (
        "Logs out. A match you are playing is saved; 'invite' resumes it.",), "bye"),
    "wave": Topic("wave", ("Waves goodbye to everyone; waving twice logs you out.",), "wave"),
    "cls": Topic("cls", (
        "Clears the screen (scrolls it away: pagelength lines, or 24).",), "cls"),
    "clear": Topic("clear", ("The same as 'cls'.",), "clear"),
    "save": Topic("save", (
        "Nothing to do here: settings and matches are stored as they change.",), "save"),
    "panic": Topic("panic", ("What to try when the screen looks wrong.",), "panic"),
    # --- matches -------------------------------------------------------------------------
    "invite": Topic("invite <name> <points>|unlimited [rules]  or  invite <name>", (
        "Asks someone for a match of 1 to 99 points (over 9: both need more",
        "than 50 experience) or an unlimited one. Without a length: resumes your",
        "saved match with them, by its rules. You need 'toggle ready' first.",
        *textwrap.wrap(
            f"Rules, in any order after the length: one variant, {variant_choices()}; "
            "'lowstart' (the lower opening die moves first); 'nocube' (no doubling); "
            "'unrated' (the result leaves both ratings as they are). The clock: 'timer 30' "
            "or 'timer 60' (seconds a decision), or a time bank 'bank <seconds> <reserve a "
            "point> [bronstein|fischer]'; 'takeover <seconds>' (a bot decides that "
            "late; see 'help timer').", _HELP_WIDTH)), "invite bob 5 nack nocube timer 30"),
    "join": Topic("join [<name>]", (
        "Accepts <name>'s invitation and starts the match. Alone, between two",
        "games of a match: starts the next game."), "join alice"),
    "table": Topic("table <points>|unlimited [rules] [private]  or  table close", (
        "Opens a table: a match for whoever sits first. You get its code to pass",
        "on; 'show tables' lists the tables that are not private. The rules and",
        "the clock as for 'invite'. One table at a time; it closes when someone",
        "sits, when you log out or start another match. Alone: shows your table."),
        "table 5 nack timer 30 private"),
    "sit": Topic("sit <code>", (
        "Takes the free seat at a table ('show tables', or the code its creator",
        "gave you): the match starts at once."), "sit KXMPTR"),
    "quickplay": Topic("quickplay <points> [rules] [range <points>|any]  or  quickplay cancel", (
        "Seeks a match: the server pairs you at once with whoever seeks the same",
        "one (length, rules and clock as for 'invite', 'unrated') within the",
        "rating range (200 points either way, or 'any'), the longest waiting",
        "first. The range widens by 50 points every 10 seconds you wait; after",
        "30 seconds a bot is offered. Ends when you play any match or log out."),
        "quickplay 5 range 300"),
    "leave": Topic("leave", (
        "Stops the match: it is saved, to be resumed with 'invite <name>'.",
        "Between games of an unlimited match: ends it."), "leave"),
    "bot": Topic("bot [beginner|intermediate|expert] [1|3|5|7|<n>|unlimited] [unrated]", (
        "A match against a computer opponent, at once (default intermediate, 1 point).",
        "Also at the login: prompt, without an account: then the match is neither",
        "rated nor saved. The bots bot_beginner, bot_intermediate and bot_expert",
        "take 'invite' too. As GNU Backgammon's analysis measures them, they err",
        "28.6, 12.5 and 2.1 mEMG per decision ('help analysis')."),
        "bot expert 5"),
    "undo": Topic("undo", (
        "Against a bot: takes back your last decision (a move, a double, a take or",
        "drop, a resignation) and the bot's turns after it; the dice come again the",
        "same. A match in which you undo is not rated."), "undo"),
    "roll": Topic("roll", ("Rolls the dice when it is your turn.",), "roll"),
    "move": Topic("move <from>-<to> ...", (
        "Moves your checkers after you rolled: one from-to pair per die, points",
        "1-24, 'bar' (b) and 'off' (o). The word 'move' may be left out.",
        "After a double roll you move four times."), "move 8-5 6-5   or   13 7 8 7"),
    "off": Topic("off", (
        "Bears off as many checkers as your dice allow, from the highest points.",),
        "off"),
    "double": Topic("double", (
        "Offers your opponent the cube before you roll: they accept (and play on",
        "for twice as much) or reject (and lose the current value)."), "double"),
    "accept": Topic("accept", (
        "Accepts your opponent's double, or their resignation.",), "accept"),
    "reject": Topic("reject", (
        "Refuses your opponent's double (you lose the game at the current value)",
        "or their resignation (the game goes on)."), "reject"),
    "resign": Topic("resign n|g|b", (
        "Offers to give up the game as a normal win (n), a gammon (g) or a",
        "backgammon (b) for your opponent, who accepts or rejects."), "resign g"),
    "redouble": Topic("redouble", (
        "Unlimited matches: doubles right back when you are doubled, keeping the",
        "cube. 'beaver', 'raccoon' and 'otter' are the first three."), "redouble"),
    "beaver": Topic("beaver", (
        "Unlimited matches: accepts a double and redoubles at once (see",
        "'help redouble'). 'set redoubles' limits how many in a row."), "beaver"),
    "raccoon": Topic("raccoon", ("The second redouble in a row (see 'help beaver').",),
                     "raccoon"),
    "otter": Topic("otter", ("The third redouble in a row (see 'help beaver').",), "otter"),
    "board": Topic("board", (
        "Shows the board of your game (or of the game you watch) again, in your",
        "boardstyle."), "board"),
    "rawboard": Topic("rawboard", (
        "The board as a 'board:' line (boardstyle 3), whatever your boardstyle.",),
        "rawboard"),
    "pip": Topic("pip", (
        "Both pip counts, if both players 'toggle allowpip'.",), "pip"),
    "oldboard": Topic("oldboard", (
        "The board of your game as it was before the last move.",), "oldboard"),
    "oldmoves": Topic("oldmoves", (
        "The moves of the last game finished: in the match you play, else in your",
        "last match."), "oldmoves"),
    "history": Topic("history [<name>]", (
        "Your (or <name>'s) finished matches: opponents, scores, ratings.",),
        "history bob"),
    "analyse": Topic("analyse <match> | analyse notify on|off", (
        "Asks for the analysis of a finished match (its number in 'history'): a",
        "match you played, or any rated one. Each decision is judged as GNU",
        "Backgammon judges it; one match at a time, when the bots are idle.",
        "Finished matches are analysed by themselves, unless the server turned",
        "that off. 'analyse notify on': be told when an analysis of a match of",
        "yours is ready. At most 3 of your requests wait at a time."),
        "analyse 12"),
    "analysis": Topic("analysis <match> [moves]", (
        "The analysis of a finished match: per player the decisions, the error",
        "total (EMG), the error rate (mEMG per unforced decision), the PR (half",
        "of it), checker play and cube apart, doubtful, bad and very bad",
        "decisions, luck and GNU Backgammon's words for the rate. 'moves': every",
        "decision with its error, marked ?! doubtful, ? bad, ?? very bad."),
        "analysis 12 moves"),
    "puzzle": Topic("puzzle [daily | rating | <id> [<answer>]]", (
        "The blunders of analysed rated matches to solve: 'puzzle' the next",
        "for you (the nearest your puzzle rating), 'puzzle daily' the day's.",
        "Answer with the play in your own point numbers (8/5 6/5, bar/22,",
        "4/off) or double, no double, take, drop. Your first try of a puzzle",
        "moves your puzzle rating and the puzzle's."),
        "puzzle 7 8/5 6/5"),
    "tutor": Topic("tutor on [<threshold>] | off | play", (
        "In unrated matches only: each play and cube decision is judged before",
        "it is made, and one that loses more than the threshold (0.08 unless",
        "given, 0.01 to 1.0) is held back with the better one. Send it again,",
        "or 'tutor play', to play it anyway. Never in a rated match."),
        "tutor on 0.05"),
    "tournament": Topic("tournament create|join|leave|withdraw|reinstate|list|show|cancel|notify ...", (
        "Tournaments the server runs from sign-up to the winner.",
        "'tournament create knockout|swiss [options]' opens one; the options:",
        "rounds <n> (Swiss; 3 unless given), length <n> (3), final <n> (the",
        "last round's length), or lengths 5,5,7,9,11 (each round's, the final's",
        f"last), {VARIANT_CHOICE}, nocrawford, timer 30|60 (60),",
        "unrated, in <minutes> (the start) or at <time> (at 20:00: the next",
        "20:00 UTC; or at 2026-12-24T20:00), when <n> (start when n have joined;",
        "by default when the cap is reached), cap <n> (16), bots (the creator",
        "may enter the server's bots: 'tournament join <id> <bot>'), every",
        "day|week (administrators: the next one opens as this one starts),",
        "consolation (a knockout's first-match losers play a knockout of their",
        "own beside it), lastchance (and the consolation's first-match losers).",
        "At the start time it starts if two have joined, else it is cancelled;",
        "the entrants are reminded 5 minutes before.",
        "'tournament join <id>' / 'leave <id>': sign up, or withdraw before it",
        "starts. 'tournament list', 'tournament show <id>': entrants, pairings,",
        "results and standings. 'tournament cancel <id> [series]': its creator",
        "or an administrator ('series': no next one is made, the series ends).",
        "'tournament notify on|off': hear when one opens,",
        "starts or ends. Each round the server starts your match as soon as",
        "you and your opponent are online and free (no 'join'); a player who",
        "does not come within 5 minutes loses it and plays no later round.",
        "'tournament withdraw <id>': play no later round (your match of this",
        "round is lost). 'tournament reinstate <id> <name>': an administrator",
        "puts a withdrawn player back from the next round.",
        "'tournament create arena <minutes> [options]': for that long, whoever",
        "of it is free plays at once the free player nearest in score (never",
        "the one just played while another is free); a win scores 2, after two",
        "wins in a row 4, until a loss. At the end the matches under way count."),
        "tournament create swiss rounds 4 length 5 cap 12"),
    "fairdice": Topic("fairdice [<match>]", (
        "Each match's dice come from a secret seed the server fixes before the",
        "first roll; it shows the seed's SHA-256 (the commitment) at the start.",
        "In a match you play or watch: the commitment. After it ends: the seed,",
        "the players' salts ('help salt') and every roll, which anyone can",
        "recompute (docs/FAIRNESS.md): pair n is HMAC-SHA256(seed, n as 8 bytes",
        "+ block as 4 bytes + the salts), bytes under 252, each byte b a die",
        "b % 6 + 1. <match>: its number in 'history'."),
        "fairdice 12"),
    "salt": Topic("salt <word>", (
        "Your share in your match's dice, once per match: any word you make up",
        "after the match has started (1 to 64 letters, digits or ._:+/=-). It",
        "enters every roll from the next one on, so a seed the server fixed",
        "before it cannot have been picked for those rolls. Type the whole word",
        "'salt'. The web page sends one for you."),
        "salt 7f3a9c21e4"),
    "watch": Topic("watch <name>", (
        "Watches <name>'s games: you get their boards and what happens.",),
        "watch alice"),
    "unwatch": Topic("unwatch", ("Stops watching.",), "unwatch"),
    "look": Topic("look <name>", ("Shows <name>'s board once, without watching.",),
                  "look alice"),
    # --- talking -------------------------------------------------------------------------
    "tell": Topic("tell <name> <text>", (
        "Says something to one user only.",), "tell bob good game!"),
    "tellx": Topic("tellx <name> <text>", (
        "Like 'tell', but the name must be whole: no completion.",), "tellx bob hi"),
    "say": Topic("say <text>", ("Says something to your opponent.",), "say nice roll"),
    "shout": Topic("shout <text>", (
        "Says something to everyone logged in (but those who 'toggle silent').",),
        "shout anyone for a 5 point match?"),
    "kibitz": Topic("kibitz <text>", (
        "Talks to the players and watchers of the game you play or watch.",),
        "kibitz what a game"),
    "whisper": Topic("whisper <text>", (
        "Talks to the watchers of the game you watch, not to its players.",),
        "whisper she should double"),
    "message": Topic("message <name> <text>", (
        "Leaves a message; a user not logged in gets it at the next login.",),
        "message bob let's finish our match"),
    "waitfor": Topic("waitfor [<name> ...]", (
        "Tells you when these users log in. Alone: who you are waiting for.",),
        "waitfor bob"),
    "gag": Topic("gag [<name>]", (
        "Stops (or, again, restarts) hearing a user's tell, message and shout.",
        "Alone: who you gag."), "gag bob"),
    "blind": Topic("blind [<name>]", (
        "Stops (or, again, allows) a user watching your games. Alone: the list.",),
        "blind bob"),
}


# The topics of FIBS's help index that are no command: each text says how this server does it.
SUBJECTS: dict[str, tuple[str, ...]] = {
    "rules": (
        "Backgammon in short:",
        "  Each player has 15 checkers and moves them round the board, towards their",
        "  home board, by the numbers of two dice: one checker per die, or one",
        "  checker both numbers. Doubles (e.g. 4 and 4) are played four times.",
        "  A checker may not land on a point held by two or more of the opponent's.",
        "  Landing on a single opposing checker (a blot) hits it: it goes to the bar",
        "  and must come back in through the opponent's home board before its owner",
        "  moves anything else.",
        "  Play as many of the dice as you can; if only one of them can be played,",
        "  the larger one when either could.",
        "  With all 15 in your home board you bear them off. The first to bear off",
        "  all wins 1 point, 2 (a gammon) if the loser bore off none, 3 (a",
        "  backgammon) if the loser also has one on the bar or in the winner's home.",
        "  The cube: before rolling you may 'double'. Your opponent accepts (the game",
        "  is then worth twice as much, and only they may double next) or rejects",
        "  and loses the game at its value so far.",
        "  A match is played to a number of points ('invite bob 5'). After a player",
        "  first comes within one point of winning, the next game is played without",
        "  the cube (the Crawford rule): see 'help crawford'.",
        "  'help beginner' tells how to start, 'help move' how to type a move."),
    "crawford": (
        "The Crawford rule ('toggle crawford'; on unless both players turn it off):",
        "  In a match to n points, the game after a player first reaches n-1 points",
        "  is the Crawford game: nobody may double in it. In the games after it the",
        "  cube is back. 1-point and unlimited matches have no Crawford game.",
        "  Tournaments use the rule unless created with 'nocrawford'."),
    "formula": (
        "How ratings change (every player starts at 1500, with experience 0):",
        "  D = the difference of the two ratings, N = the match length.",
        "  Pu = 1 / (10^(D * sqrt(N) / 2000) + 1): the chance that the lower rated",
        "  player (the underdog) wins. P = 1 - Pu if the underdog won, else Pu.",
        "  K = max(1, 5 - experience / 100), each with their experience before",
        "  the match.",
        "  The winner gains 4 * K * sqrt(N) * P, the loser loses 4 * K * sqrt(N) * P,",
        "  each with their own K; the match length is added to both experiences.",
        "  Two new players, 3 points: the winner 1517.32, the loser 1482.68.",
        "  Unlimited matches and matches played 'unrated' change nothing.",
        "  'toggle ratings' shows the calculation at the end of your matches."),
    "boardstyle": (
        "'set boardstyle 1|2|3': how the board is shown to you.",
        "  1: a picture, the point numbers in the borders.",
        "  2: the same picture with the point numbers on lines of their own (the",
        "     default).",
        "  3: one 'board:' line of numbers, for client programs.",
        "  'board' shows it again; 'rawboard' gives the 'board:' line whatever",
        "  your style."),
    "sortwho": (
        "'set sortwho login|name|rating|rrating': the order of 'who'.",
        "  login: as the users logged in (the default); name: by name; rating:",
        "  the highest rating first; rrating: the lowest first."),
    "timezones": (
        "'set timezone <zone>': the zone your times are shown in ('time', 'last',",
        "  'whois' and the login lines). The zones have the usual names:",
        "  UTC (the default), Europe/Berlin, America/New_York, Asia/Tokyo, ...",
        "  A name the server does not know is refused."),
    "client": (
        "Client programs: a FIBS client draws the board and talks to the server for",
        "  you. It logs in with 'login <program> 1008 <name> <password>' and gets",
        "  numbered lines it can read (CLIP, the FIBS client protocol) and the board",
        "  as a 'board:' line. Each user's who line ('rawwho') names the program.",
        "  The server's web page is a client too. Bots log in the same way."),
    "autologin": (
        "Logging in with one line: type 'connect <name> <password>' at the login:",
        "  prompt. The server then sends no '> ' prompts: MUD clients such as",
        "  TinyFugue have their own input line. Client programs use 'login'",
        "  instead (see 'help client')."),
    "tinyfugue": (
        "TinyFugue (tf) and other MUD clients work with this server: open its",
        "  telnet port (in tf: /world <host> <port>) and log in with 'connect",
        "  <name> <password>' (see 'help autologin'). Such a client keeps what you",
        "  type apart from what the server says; 'set boardstyle 1' or '2' draws",
        "  the board in it."),
    "complaints": (
        "If someone bothers you: 'gag <name>' stops their tells, messages and",
        "  shouts reaching you, 'blind <name>' stops them watching your games.",
        "  The server's administrators can mute, kick or ban a user: tell or",
        "  'message' one of them (the message of the day, 'motd', may name them)",
        "  what happened, with the names and the time."),
    "countries": (
        "Where users come from: 'where <name>' and 'hostnames' show the address",
        "  each user is logged in from, as the server sees it. The server does not",
        "  turn addresses into countries: a host name's last part often tells it",
        "  (.de Germany, .fr France, .jp Japan, ...)."),
    "erase": (
        "Accounts are erased only by an administrator ('erase <name>'): the user is",
        "  logged out, their account goes with their matches, messages, gags and",
        "  blinds, and the name is free again. An account is never erased for",
        "  being unused."),
    "shutdown": (
        "Shutting down: an administrator's 'shutdown <minutes>' tells everyone how",
        "  long is left ('shutdown cancel' stops it); in the last two minutes only",
        "  administrators may log in. When the server stops, running matches are",
        "  saved: 'invite <name>' resumes yours after the restart."),
    "!!": (
        "'!!' repeats your last command (not tell, tellx, say, shout, kibitz,",
        "  whisper or message: a repeat would send someone's words twice)."),
}
