"""FIBS boards as one viewer sees them: the `board:` line (boardstyle 3) and the ASCII boards
telnet users read (boardstyles 1 and 2).

Everything starts from a `BoardView`, plain data from the viewer's perspective. The viewer is
"player 1": `You` when playing, the watched player's name when watching. Each side's checkers
come in that side's OWN numbering (index i = own point i + 1, index 24 = bar); the board line
and the ASCII boards use FIBS's absolute numbering, in which O moves 24 -> 1 and X moves 1 -> 24.
See docs/BOARDS.md for the field table and the layout choices.
"""
from __future__ import annotations

from dataclasses import dataclass

UNLIMITED = 9999  # FIBS's number for an unlimited match length and for unlimited redoubles
BAR = 24  # index of the bar in a side's 25-int checker tuple
BOARD_LINE_FIELDS = 52  # fields after `board:`: 2 names and 50 integers
COLOURS = ("O", "X")
TURNS = ("player", "opponent", None)

_SIGN = {"O": 1, "X": -1}  # O checkers are positive in the board line, X checkers negative
_NO_CRAWFORD_MARKER = 3  # field 50 is 0 with the Crawford rule; BaldLies writes 3 without it
_SHOWN_NAME_LENGTH = 15  # the ASCII board cuts names like fibsboard.c does
_TERMINAL_WIDTH = 79  # longest ASCII board line before the dice text moves to a line of its own


@dataclass(frozen=True)
class BoardView:
    player_name: str
    opponent_name: str
    match_length: int | None  # None: unlimited match
    player_score: int
    opponent_score: int
    player_colour: str  # 'O' moves 24 -> 1, 'X' moves 1 -> 24
    player_checkers: tuple[int, ...]  # 25 ints in the player's own numbering, index 24 = bar
    opponent_checkers: tuple[int, ...]  # 25 ints in the opponent's own numbering
    turn: str | None  # 'player', 'opponent', or None for game over / between games
    player_dice: tuple[int, int] = (0, 0)  # (0, 0) when not rolled
    opponent_dice: tuple[int, int] = (0, 0)
    cube: int = 1
    player_may_double: bool = True
    opponent_may_double: bool = True
    was_doubled: bool = False  # the opponent has doubled and the player must answer
    pieces_to_move: int = 0  # 0-4
    crawford_rule: bool = True  # the match is played with the Crawford rule
    post_crawford: bool = False  # this game comes after the Crawford game
    max_redoubles: int = 0  # UNLIMITED = no limit
    checkers_per_side: int = 15  # 3 in hypergammon

    def __post_init__(self) -> None:
        if self.player_colour not in COLOURS:
            raise ValueError(f"player_colour must be 'O' or 'X', not {self.player_colour!r}")
        if self.turn not in TURNS:
            raise ValueError(f"turn must be 'player', 'opponent' or None, not {self.turn!r}")
        if self.match_length is not None and self.match_length < 1:
            raise ValueError(f"match_length must be positive or None, not {self.match_length}")
        for side, checkers in (("player", self.player_checkers),
                               ("opponent", self.opponent_checkers)):
            if len(checkers) != BAR + 1 or min(checkers) < 0:
                raise ValueError(f"{side}_checkers must be 25 non-negative counts: {checkers}")
            if sum(checkers) > self.checkers_per_side:
                raise ValueError(f"{side} has {sum(checkers)} checkers on the board, "
                                 f"more than {self.checkers_per_side}")
        for own_point in range(1, BAR + 1):
            # The opponent numbers the player's point p as 25 - p.
            if self.player_checkers[own_point - 1] and self.opponent_checkers[BAR - own_point]:
                raise ValueError(f"both sides have checkers on the player's point {own_point}")
        for dice in (self.player_dice, self.opponent_dice):
            if dice != (0, 0) and not all(1 <= die <= 6 for die in dice):
                raise ValueError(f"dice must be (0, 0) or two values 1-6, not {dice}")
        if not 0 <= self.pieces_to_move <= 4:
            raise ValueError(f"pieces_to_move must be 0-4, not {self.pieces_to_move}")

    @property
    def opponent_colour(self) -> str:
        return "X" if self.player_colour == "O" else "O"

    @property
    def player_borne_off(self) -> int:
        return self.checkers_per_side - sum(self.player_checkers)

    @property
    def opponent_borne_off(self) -> int:
        return self.checkers_per_side - sum(self.opponent_checkers)


def _absolute(colour: str, own_point: int) -> int:
    """FIBS's absolute number of a side's own point; 25 (the bar) and 0 (off) map as well."""
    return own_point if colour == "O" else 25 - own_point


def _signed_board(view: BoardView) -> list[int]:
    """board[0..25] of the board line: O positive, X negative, X's bar at 0, O's bar at 25."""
    board = [0] * 26
    for colour, checkers in ((view.player_colour, view.player_checkers),
                             (view.opponent_colour, view.opponent_checkers)):
        for index, count in enumerate(checkers):
            board[_absolute(colour, index + 1)] += _SIGN[colour] * count
    return board


def _turn_field(view: BoardView) -> int:
    if view.turn is None:
        return 0
    return _SIGN[view.player_colour if view.turn == "player" else view.opponent_colour]


def board_line(view: BoardView) -> str:
    """The boardstyle 3 line: `board:` and 52 colon-separated fields (docs/BOARDS.md)."""
    colour = view.player_colour
    fields = (
        view.player_name, view.opponent_name,
        UNLIMITED if view.match_length is None else view.match_length,
        view.player_score, view.opponent_score,
        *_signed_board(view),
        _turn_field(view),
        *view.player_dice, *view.opponent_dice,
        view.cube,
        int(view.player_may_double), int(view.opponent_may_double), int(view.was_doubled),
        _SIGN[colour], -_SIGN[colour],
        _absolute(colour, 0), _absolute(colour, 25),  # home (bear-off index) and bar index
        view.player_borne_off, view.opponent_borne_off,
        view.player_checkers[BAR], view.opponent_checkers[BAR],
        view.pieces_to_move,
        0 if view.crawford_rule else _NO_CRAWFORD_MARKER,
        int(view.post_crawford),
        view.max_redoubles,
    )
    return "board:" + ":".join(str(field) for field in fields)


def parse_board_line(line: str, checkers_per_side: int = 15) -> BoardView:
    """The BoardView a board line shows; ValueError if the line is malformed or inconsistent.

    Besides the syntax this checks what clients rely on: each side has `checkers_per_side`
    checkers counting points, bar and borne-off fields, index 0 holds only X's bar and index 25
    only O's bar, and the bar fields agree with those indices.
    """
    prefix, _, rest = line.partition(":")
    fields = rest.split(":")
    if prefix != "board" or len(fields) != BOARD_LINE_FIELDS:
        raise ValueError(f"not `board:` with {BOARD_LINE_FIELDS} fields: {line!r}")
    player_name, opponent_name = fields[:2]
    try:
        (match_length, player_score, opponent_score, *numbers) = (int(field) for field in fields[2:])
    except ValueError:
        raise ValueError(f"non-integer field in {line!r}") from None
    board, numbers = numbers[:26], numbers[26:]
    (turn, player_die1, player_die2, opponent_die1, opponent_die2, cube, player_may_double,
     opponent_may_double, was_doubled, colour_sign, direction, home, bar, player_off,
     opponent_off, player_bar, opponent_bar, pieces_to_move, crawford_marker, post_crawford,
     max_redoubles) = numbers
    if colour_sign not in (1, -1) or direction != -colour_sign:
        raise ValueError(f"colour {colour_sign} with direction {direction}")
    colour = "O" if colour_sign == 1 else "X"
    opponent_colour = "X" if colour == "O" else "O"
    if (home, bar) != (_absolute(colour, 0), _absolute(colour, 25)):
        raise ValueError(f"home {home} and bar {bar} do not belong to colour {colour}")
    if board[0] > 0 or board[25] < 0:
        raise ValueError(f"index 0 must hold only X's bar and index 25 only O's: {board}")
    bar_fields = {colour: player_bar, opponent_colour: opponent_bar}
    off_fields = {colour: player_off, opponent_colour: opponent_off}
    checkers = {}
    for side in COLOURS:
        sign = _SIGN[side]
        points = [max(0, sign * board[_absolute(side, own)]) for own in range(1, BAR + 1)]
        on_bar = sign * board[_absolute(side, 25)]
        if on_bar != bar_fields[side]:
            raise ValueError(f"{side}'s bar index holds {on_bar} but its bar field says "
                             f"{bar_fields[side]}")
        total = sum(points) + bar_fields[side] + off_fields[side]
        if total != checkers_per_side:
            raise ValueError(f"{side} has {total} checkers ({sum(points)} on points, "
                             f"{bar_fields[side]} on the bar, {off_fields[side]} off), "
                             f"not {checkers_per_side}")
        checkers[side] = (*points, on_bar)
    turns = {0: None, colour_sign: "player", -colour_sign: "opponent"}
    if turn not in turns:
        raise ValueError(f"turn field {turn} is not -1, 0 or 1")
    return BoardView(
        player_name=player_name, opponent_name=opponent_name,
        match_length=None if match_length == UNLIMITED else match_length,
        player_score=player_score, opponent_score=opponent_score,
        player_colour=colour,
        player_checkers=checkers[colour], opponent_checkers=checkers[opponent_colour],
        turn=turns[turn],
        player_dice=(player_die1, player_die2), opponent_dice=(opponent_die1, opponent_die2),
        cube=cube,
        player_may_double=bool(player_may_double), opponent_may_double=bool(opponent_may_double),
        was_doubled=bool(was_doubled),
        pieces_to_move=pieces_to_move,
        # FIBS may put any nonzero number into field 50 when the Crawford rule is off.
        crawford_rule=crawford_marker == 0,
        post_crawford=bool(post_crawford),
        max_redoubles=max_redoubles,
        checkers_per_side=checkers_per_side,
    )


# ASCII boards (styles 1 and 2), laid out like FIBS's own (Schneider's fibsboard.c).

def _point_numbers(points: tuple[int, ...], fill: str) -> str:
    """`13-14-15-16-17-18-------19-...` (fill '-') or `13 14 ...` (fill ' '): the numbers of
    twelve points in two-character columns, with the bar's width between the two halves."""
    def half(numbers: tuple[int, ...]) -> str:
        return fill.join(f"{number:{fill}>2}" for number in numbers)
    return half(points[:6]) + fill * 7 + half(points[6:])


def _shown_name(name: str) -> str:
    return name[:_SHOWN_NAME_LENGTH]


def _score_label(colour: str, name: str, score: int) -> str:
    return f" {colour}: {_shown_name(name)} - score: {score}"


def _cell(count: int, row: int, colour: str) -> str:
    """Three characters for `count` checkers (signed: O positive) in `row` 1-5 counted from
    the edge of the board; row 5, the innermost, shows the count when there are more than 5."""
    checkers = abs(count)
    if count and row == 5 and checkers > 5:
        return f"{checkers:2} "
    return f" {colour} " if checkers >= row else "   "


def _board_row(board: list[int], points: tuple[int, ...], row: int, bar_count: int,
               bar_colour: str) -> str:
    def cells(half: tuple[int, ...]) -> str:
        return "".join(_cell(board[point], row, "O" if board[point] > 0 else "X")
                       for point in half)
    return f"   |{cells(points[:6])}|{_cell(bar_count, row, bar_colour)}| {cells(points[6:])}|"


def _status_lines(view: BoardView) -> list[str]:
    """`BAR: O-0 X-0   OFF: O-0 X-0   Cube: 1` with cube owner and dice or turn."""
    on_bar = {view.player_colour: view.player_checkers[BAR],
              view.opponent_colour: view.opponent_checkers[BAR]}
    off = {view.player_colour: view.player_borne_off,
           view.opponent_colour: view.opponent_borne_off}
    status = (f"   BAR: O-{on_bar['O']} X-{on_bar['X']}"
              f"   OFF: O-{off['O']} X-{off['X']}   Cube: {view.cube}")
    # Like FIBS, the owner is the only side that may double a cube above 1.
    if view.cube > 1 and view.player_may_double != view.opponent_may_double:
        owner = view.player_name if view.player_may_double else view.opponent_name
        status += f" (owned by {_shown_name(owner)})"
    rolled = [(name, dice) for name, dice in ((view.player_name, view.player_dice),
                                               (view.opponent_name, view.opponent_dice))
              if dice != (0, 0)]
    if rolled:
        name, (die1, die2) = rolled[0]
        action = f"{_shown_name(name)} rolled {die1} {die2}."
    elif view.turn is not None:
        name = view.player_name if view.turn == "player" else view.opponent_name
        action = f"turn: {_shown_name(name)}"
    else:
        return [status]
    if len(status) + 2 + len(action) > _TERMINAL_WIDTH:
        return [status, "   " + action]
    return [f"{status}  {action}"]


def ascii_board(view: BoardView, style: int) -> list[str]:
    """The board for telnet users, one string per line (no line endings, no trailing spaces).

    Style 1 numbers the points in the top and bottom borders; style 2 prints the numbers on
    lines of their own above and below the board (two lines more).
    """
    if style not in (1, 2):
        raise ValueError(f"ASCII boards have styles 1 and 2, not {style}")
    board = _signed_board(view)
    if view.player_colour == "O":
        top_points, bottom_points = tuple(range(13, 25)), tuple(range(12, 0, -1))
        middle = "  v|                  |BAR|                   |"
    else:
        top_points, bottom_points = tuple(range(1, 13)), tuple(range(24, 12, -1))
        middle = "   |                  |BAR|                   |v"
    match = "unlimited match" if view.match_length is None else f"{view.match_length}-point match"
    top_label = _score_label(view.opponent_colour, view.opponent_name, view.opponent_score)
    bottom_label = _score_label(view.player_colour, view.player_name, view.player_score)
    if style == 1:
        top = [f"   +{_point_numbers(top_points, '-')}-+{top_label}"]
        bottom = [f"   +{_point_numbers(bottom_points, '-')}-+{bottom_label}"]
    else:
        plain_border = "   +" + "-" * 42 + "+"
        top = [f"    {_point_numbers(top_points, ' ')}", plain_border + top_label]
        bottom = [plain_border + bottom_label, f"    {_point_numbers(bottom_points, ' ')}"]
    # The opponent's bar checkers show in the top half, the player's in the bottom half.
    upper = [_board_row(board, top_points, row, view.opponent_checkers[BAR],
                        view.opponent_colour) for row in range(1, 6)]
    lower = [_board_row(board, bottom_points, row, view.player_checkers[BAR],
                        view.player_colour) for row in range(5, 0, -1)]
    return [*top, *upper, f"{middle}    {match}", *lower, *bottom, "", *_status_lines(view)]


def render_board(view: BoardView, boardstyle: int, clock: str | None = None) -> list[str]:
    """The board in a user's boardstyle (1, 2 or 3), one string per line; a timed match's
    `clock` (clock_texts.clock_line) is a plain line of its own *before* the board: nothing
    may stand between a board and the prompt after it (`It's your turn to roll or double.`,
    `Please move 2 pieces.`), since a bot reads the prompt as the question the board asks and
    asks for the board again if anything came between (docs/BOARDS.md)."""
    board = [board_line(view)] if boardstyle == 3 else ascii_board(view, boardstyle)
    return [clock, *board] if clock else board
