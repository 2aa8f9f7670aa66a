"""Boards in all three styles, checked against exact expected text."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fibs_server.gnubg_bot.external import GNUBG, GnubgConnection, GnubgEngine
from fibs_server.protocol.views.board import (
    BOARD_LINE_FIELDS,
    UNLIMITED,
    BoardView,
    ascii_board,
    board_line,
    parse_board_line,
    render_board,
)
from tests.conftest import skip_unless_ci
from tests.protocol.board_checks import assert_checker_counts

# Each side's starting position in its own numbering: 2 on 24, 5 on 13, 3 on 8, 5 on 6.
START = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


def checkers(points: dict[int, int], bar: int = 0) -> tuple[int, ...]:
    """A 25-int tuple from {own point: count} and the bar count."""
    return (*(points.get(point, 0) for point in range(1, 25)), bar)


# The opening example of docs/BOARDS.md: O won the opening roll with 6-2 in a 3-point match.
O_OPENING = BoardView(
    player_name="You", opponent_name="someplayer", match_length=3,
    player_score=0, opponent_score=0, player_colour="O",
    player_checkers=START, opponent_checkers=START, turn="player",
    player_dice=(6, 2), pieces_to_move=2,
)
X_OPENING = BoardView(
    player_name="You", opponent_name="alice", match_length=3,
    player_score=0, opponent_score=0, player_colour="X",
    player_checkers=START, opponent_checkers=START, turn="opponent",
    opponent_dice=(6, 2),
)


# --- board line (style 3) ---------------------------------------------------------------

def test_board_line_reproduces_the_spec_example_for_o():
    assert board_line(O_OPENING) == (
        "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
        ":1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")


def test_board_line_reproduces_the_spec_example_for_x():
    assert board_line(X_OPENING) == (
        "board:You:alice:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
        ":1:0:0:6:2:1:1:1:0:-1:1:25:0:0:0:0:0:0:0:0:0")


@pytest.mark.parametrize("view", [O_OPENING, X_OPENING])
def test_board_line_has_52_fields_and_15_checkers_a_side(view):
    line = board_line(view)
    assert line.startswith("board:")
    assert len(line.split(":")) - 1 == BOARD_LINE_FIELDS
    assert_checker_counts(line)


def test_bars_sit_at_index_25_for_o_and_index_0_for_x():
    # O has 1 on the bar and 14 borne off; X has 2 on the bar and 13 on its 6 point.
    view = dataclasses.replace(
        O_OPENING, player_checkers=checkers({}, bar=1),
        opponent_checkers=checkers({6: 13}, bar=2), turn="opponent", player_dice=(0, 0),
        pieces_to_move=0)
    fields = board_line(view).split(":")[1:]
    board = [int(field) for field in fields[5:31]]
    assert board[25] == 1 and board[0] == -2
    assert board[19] == -13  # X's own 6 point is absolute 19
    assert fields[44:48] == ["14", "0", "1", "2"]  # on home: player, opponent; on bar: same
    assert_checker_counts(board_line(view))


def test_unlimited_match_crawford_markers_and_redoubles():
    view = dataclasses.replace(O_OPENING, match_length=None, crawford_rule=False,
                               max_redoubles=UNLIMITED)
    fields = board_line(view).split(":")[1:]
    assert fields[2] == "9999"
    assert fields[49:52] == ["3", "0", "9999"]
    post_crawford = dataclasses.replace(O_OPENING, post_crawford=True)
    assert board_line(post_crawford).split(":")[50:53] == ["0", "1", "0"]


def test_pending_double_fields():
    view = dataclasses.replace(X_OPENING, turn="player", opponent_dice=(0, 0), cube=1,
                               player_may_double=False, opponent_may_double=False,
                               was_doubled=True)
    fields = board_line(view).split(":")[1:]
    assert fields[31] == "-1"  # X, the doubled player, must act
    assert fields[36:40] == ["1", "0", "0", "1"]


def test_hypergammon_board_line_counts_three_checkers():
    view = dataclasses.replace(
        O_OPENING, checkers_per_side=3, player_checkers=checkers({24: 1, 23: 1, 22: 1}),
        opponent_checkers=checkers({24: 1, 23: 1, 22: 1}))
    assert board_line(view).split(":")[6:32] == (
        "0:-1:-1:-1:" + "0:" * 18 + "1:1:1:0").split(":")
    assert_checker_counts(board_line(view), checkers_per_side=3)
    with pytest.raises(AssertionError, match="has 3 checkers"):
        assert_checker_counts(board_line(view))


@pytest.mark.parametrize("mutate, problem", [
    # A Java clone put the 24->1 side's bar at index 0: gnubg then played illegal moves.
    (lambda f: f[:5] + ["1"] + f[6:30] + ["0"] + f[31:46] + ["1"] + f[47:], "index 0"),
    (lambda f: f[:6] + ["-4"] + f[7:], "X has 17 checkers"),
    (lambda f: f[:44] + ["1"] + f[45:], "O has 16 checkers"),
    (lambda f: f[:46] + ["1"] + f[47:], "O's bar index holds 0"),
    (lambda f: f[:51], "52 fields"),
    (lambda f: f[:3] + ["x"] + f[4:], "non-integer"),
    (lambda f: f[:41] + ["1"] + f[42:], "direction"),
    (lambda f: f[:31] + ["2"] + f[32:], "turn field"),
])
def test_checker_count_check_rejects_broken_lines(mutate, problem):
    fields = board_line(O_OPENING).split(":")[1:]
    broken = "board:" + ":".join(mutate(fields))
    with pytest.raises(AssertionError, match=problem):
        assert_checker_counts(broken)


def test_board_view_rejects_impossible_positions():
    with pytest.raises(ValueError, match="both sides"):
        # The player's 6 point is the opponent's 19 point.
        dataclasses.replace(O_OPENING, opponent_checkers=checkers({19: 1, 6: 5}))
    with pytest.raises(ValueError, match="16 checkers"):
        dataclasses.replace(O_OPENING, player_checkers=checkers({6: 16}))
    with pytest.raises(ValueError, match="25 non-negative"):
        dataclasses.replace(O_OPENING, player_checkers=START[:24])
    with pytest.raises(ValueError, match="player_colour"):
        dataclasses.replace(O_OPENING, player_colour="W")
    with pytest.raises(ValueError, match="dice"):
        dataclasses.replace(O_OPENING, player_dice=(7, 1))


@st.composite
def board_views(draw):
    """Random valid views: any distribution of at most checkers_per_side checkers a side."""
    per_side = draw(st.sampled_from([15, 3]))
    player_slots = draw(st.lists(st.integers(0, 24), max_size=per_side))
    player = [player_slots.count(index) for index in range(25)]
    # The opponent's own point p (index p - 1) is the player's point 25 - p (index 24 - p).
    free = [index for index in range(25) if index == 24 or not player[23 - index]]
    opponent_slots = draw(st.lists(st.sampled_from(free), max_size=per_side))
    dice = st.sampled_from([(0, 0)]) | st.tuples(st.integers(1, 6), st.integers(1, 6))
    return BoardView(
        player_name=draw(st.sampled_from(["You", "gutrune"])),
        opponent_name=draw(st.from_regex(r"[A-Za-z_]{1,20}", fullmatch=True)),
        match_length=draw(st.none() | st.integers(1, 25)),
        player_score=draw(st.integers(0, 99)), opponent_score=draw(st.integers(0, 99)),
        player_colour=draw(st.sampled_from(["O", "X"])),
        player_checkers=tuple(player),
        opponent_checkers=tuple(opponent_slots.count(index) for index in range(25)),
        turn=draw(st.sampled_from(["player", "opponent", None])),
        player_dice=draw(dice), opponent_dice=draw(dice),
        cube=draw(st.sampled_from([1, 2, 4, 64])),
        player_may_double=draw(st.booleans()), opponent_may_double=draw(st.booleans()),
        was_doubled=draw(st.booleans()), pieces_to_move=draw(st.integers(0, 4)),
        crawford_rule=draw(st.booleans()), post_crawford=draw(st.booleans()),
        max_redoubles=draw(st.sampled_from([0, 1, 3, UNLIMITED])),
        checkers_per_side=per_side,
    )


@given(board_views())
def test_board_line_parses_back_to_the_same_view(view):
    line = board_line(view)
    assert len(line.split(":")) - 1 == BOARD_LINE_FIELDS
    assert parse_board_line(line, view.checkers_per_side) == view
    assert_checker_counts(line, view.checkers_per_side)


@given(board_views(), st.sampled_from([1, 2]))
def test_ascii_boards_fit_an_80_column_terminal(view, style):
    lines = ascii_board(view, style)
    assert all(line == line.rstrip() for line in lines)
    assert max(len(line) for line in lines) <= 79


# --- ASCII boards (styles 1 and 2) ---------------------------------------------------------

def test_style_1_start_seen_by_o():
    assert ascii_board(O_OPENING, 1) == [
        "   +13-14-15-16-17-18-------19-20-21-22-23-24-+ X: someplayer - score: 0",
        "   | O           X    |   |  X              O |",
        "   | O           X    |   |  X              O |",
        "   | O           X    |   |  X                |",
        "   | O                |   |  X                |",
        "   | O                |   |  X                |",
        "  v|                  |BAR|                   |    3-point match",
        "   | X                |   |  O                |",
        "   | X                |   |  O                |",
        "   | X           O    |   |  O                |",
        "   | X           O    |   |  O              X |",
        "   | X           O    |   |  O              X |",
        "   +12-11-10--9--8--7--------6--5--4--3--2--1-+ O: You - score: 0",
        "",
        "   BAR: O-0 X-0   OFF: O-0 X-0   Cube: 1  You rolled 6 2.",
    ]


def test_style_2_start_seen_by_o_matches_a_real_fibs_board():
    # A board captured from fibs.com (boardstyle 2), with the names of this test.
    assert ascii_board(O_OPENING, 2) == [
        "    13 14 15 16 17 18       19 20 21 22 23 24",
        "   +------------------------------------------+ X: someplayer - score: 0",
        "   | O           X    |   |  X              O |",
        "   | O           X    |   |  X              O |",
        "   | O           X    |   |  X                |",
        "   | O                |   |  X                |",
        "   | O                |   |  X                |",
        "  v|                  |BAR|                   |    3-point match",
        "   | X                |   |  O                |",
        "   | X                |   |  O                |",
        "   | X           O    |   |  O                |",
        "   | X           O    |   |  O              X |",
        "   | X           O    |   |  O              X |",
        "   +------------------------------------------+ O: You - score: 0",
        "    12 11 10  9  8  7        6  5  4  3  2  1",
        "",
        "   BAR: O-0 X-0   OFF: O-0 X-0   Cube: 1  You rolled 6 2.",
    ]


def test_style_1_start_seen_by_x():
    assert ascii_board(X_OPENING, 1) == [
        "   +-1--2--3--4--5--6--------7--8--9-10-11-12-+ O: alice - score: 0",
        "   | X              O |   |     O           X |",
        "   | X              O |   |     O           X |",
        "   |                O |   |     O           X |",
        "   |                O |   |                 X |",
        "   |                O |   |                 X |",
        "   |                  |BAR|                   |v    3-point match",
        "   |                X |   |                 O |",
        "   |                X |   |                 O |",
        "   |                X |   |     X           O |",
        "   | O              X |   |     X           O |",
        "   | O              X |   |     X           O |",
        "   +24-23-22-21-20-19-------18-17-16-15-14-13-+ X: You - score: 0",
        "",
        "   BAR: O-0 X-0   OFF: O-0 X-0   Cube: 1  alice rolled 6 2.",
    ]


def test_style_2_start_seen_by_x():
    lines = ascii_board(X_OPENING, 2)
    assert lines[:2] == [
        "     1  2  3  4  5  6        7  8  9 10 11 12",
        "   +------------------------------------------+ O: alice - score: 0",
    ]
    assert lines[13:15] == [
        "   +------------------------------------------+ X: You - score: 0",
        "    24 23 22 21 20 19       18 17 16 15 14 13",
    ]
    assert lines[2:13] == ascii_board(X_OPENING, 1)[1:12]


def test_checkers_on_the_bar_and_an_owned_cube():
    # A watcher's view of bob (O): bob has 2 on the bar, carol (X) has 1; bob owns a 2-cube.
    view = BoardView(
        player_name="bob", opponent_name="carol", match_length=7,
        player_score=2, opponent_score=4, player_colour="O",
        player_checkers=checkers({6: 4, 8: 3, 13: 6}, bar=2),
        opponent_checkers=checkers({6: 5, 8: 3, 13: 4, 24: 2}, bar=1),
        turn="player", cube=2, player_may_double=True, opponent_may_double=False,
    )
    assert ascii_board(view, 1) == [
        "   +13-14-15-16-17-18-------19-20-21-22-23-24-+ X: carol - score: 4",
        "   | O           X    | X |  X                |",
        "   | O           X    |   |  X                |",
        "   | O           X    |   |  X                |",
        "   | O                |   |  X                |",
        "   | 6                |   |  X                |",
        "  v|                  |BAR|                   |    7-point match",
        "   |                  |   |                   |",
        "   | X                |   |  O                |",
        "   | X           O    |   |  O                |",
        "   | X           O    | O |  O              X |",
        "   | X           O    | O |  O              X |",
        "   +12-11-10--9--8--7--------6--5--4--3--2--1-+ O: bob - score: 2",
        "",
        "   BAR: O-2 X-1   OFF: O-0 X-0   Cube: 2 (owned by bob)  turn: bob",
    ]


def test_style_2_seen_by_x_with_own_checkers_on_the_bar():
    # The example of docs/BOARDS.md: X has 2 on the bar; O has 6 on its 6 point and owns the cube.
    view = BoardView(
        player_name="You", opponent_name="alice", match_length=7,
        player_score=4, opponent_score=2, player_colour="X",
        player_checkers=checkers({24: 2, 13: 5, 8: 3, 6: 3}, bar=2),
        opponent_checkers=checkers({6: 6, 8: 2, 13: 5, 24: 2}),
        turn="player", cube=2, player_may_double=False, opponent_may_double=True,
    )
    assert ascii_board(view, 2) == [
        "     1  2  3  4  5  6        7  8  9 10 11 12",
        "   +------------------------------------------+ O: alice - score: 2",
        "   | X              O |   |     O           X |",
        "   | X              O |   |     O           X |",
        "   |                O |   |                 X |",
        "   |                O |   |                 X |",
        "   |                6 |   |                 X |",
        "   |                  |BAR|                   |v    7-point match",
        "   |                  |   |                 O |",
        "   |                  |   |                 O |",
        "   |                X |   |     X           O |",
        "   | O              X | X |     X           O |",
        "   | O              X | X |     X           O |",
        "   +------------------------------------------+ X: You - score: 4",
        "    24 23 22 21 20 19       18 17 16 15 14 13",
        "",
        "   BAR: O-0 X-2   OFF: O-0 X-0   Cube: 2 (owned by alice)  turn: You",
    ]


def test_bearing_off_with_tall_stacks_after_the_game():
    # X's view at the end of a game: X has borne off 3 and has 12 on its own 1 point (absolute
    # 24); O has 6 on its 1 point and 15 - 6 = 9 off. Nobody's turn: no dice or turn text.
    view = BoardView(
        player_name="You", opponent_name="dora", match_length=None,
        player_score=3, opponent_score=5, player_colour="X",
        player_checkers=checkers({1: 12}), opponent_checkers=checkers({1: 6}),
        turn=None, cube=4, player_may_double=False, opponent_may_double=True,
    )
    assert ascii_board(view, 1) == [
        "   +-1--2--3--4--5--6--------7--8--9-10-11-12-+ O: dora - score: 5",
        "   | O                |   |                   |",
        "   | O                |   |                   |",
        "   | O                |   |                   |",
        "   | O                |   |                   |",
        "   | 6                |   |                   |",
        "   |                  |BAR|                   |v    unlimited match",
        "   |12                |   |                   |",
        "   | X                |   |                   |",
        "   | X                |   |                   |",
        "   | X                |   |                   |",
        "   | X                |   |                   |",
        "   +24-23-22-21-20-19-------18-17-16-15-14-13-+ X: You - score: 3",
        "",
        "   BAR: O-0 X-0   OFF: O-9 X-3   Cube: 4 (owned by dora)",
    ]


def test_more_than_five_on_the_bar_and_fifteen_on_a_point():
    view = BoardView(
        player_name="You", opponent_name="ed", match_length=1,
        player_score=0, opponent_score=0, player_colour="O",
        player_checkers=checkers({}, bar=15), opponent_checkers=checkers({19: 15}, bar=0),
        turn="opponent", opponent_dice=(5, 5),
    )
    lines = ascii_board(view, 1)
    # O's bar fills the bottom half of the bar with the count next to the middle line;
    # X's 15 checkers on its 19 point (absolute 6) show as 15 in the fifth row.
    assert lines[7:12] == [
        "   |                  |15 | 15                |",
        "   |                  | O |  X                |",
        "   |                  | O |  X                |",
        "   |                  | O |  X                |",
        "   |                  | O |  X                |",
    ]
    assert lines[-1] == "   BAR: O-15 X-0   OFF: O-0 X-0   Cube: 1  ed rolled 5 5."


def test_long_names_are_cut_and_long_status_lines_wrap():
    view = dataclasses.replace(
        O_OPENING, player_name="Constantinopolitan", opponent_name="Mississippi_Steamboat",
        player_dice=(0, 0), opponent_dice=(3, 1), cube=16,
        player_may_double=False, opponent_may_double=True)
    lines = ascii_board(view, 1)
    assert lines[0].endswith(" X: Mississippi_Ste - score: 0")
    assert lines[12].endswith(" O: Constantinopoli - score: 0")
    assert lines[-2:] == [
        "   BAR: O-0 X-0   OFF: O-0 X-0   Cube: 16 (owned by Mississippi_Ste)",
        "   Mississippi_Ste rolled 3 1.",
    ]


def test_render_board_picks_the_style():
    assert render_board(O_OPENING, 3) == [board_line(O_OPENING)]
    assert render_board(O_OPENING, 2) == ascii_board(O_OPENING, 2)
    with pytest.raises(ValueError, match="styles 1 and 2"):
        render_board(O_OPENING, 4)


# --- gnubg reads our board lines ----------------------------------------------------------

@pytest.fixture
async def gnubg_external():
    """gnubg's `external` interface (the gnubg bot's own engine), which answers a board line
    with its play."""
    if not GNUBG.exists():
        skip_unless_ci(f"needs GNU Backgammon at {GNUBG} (apt-get install gnubg)")
    engine = GnubgEngine(GNUBG)
    try:
        connection = await GnubgConnection.open(engine)
        try:
            yield connection
        finally:
            connection.close()
    finally:
        engine.stop()


@pytest.mark.gnubg
async def test_gnubg_plays_the_same_for_o_and_x_and_enters_from_the_bar(gnubg_external):
    async def gnubg_play(view: BoardView) -> str:
        return await gnubg_external.ask(board_line(view))  # our line as it is, unadapted

    on_the_bar = dataclasses.replace(
        O_OPENING, player_checkers=checkers({6: 5, 8: 3, 13: 5, 24: 1}, bar=1),
        player_dice=(6, 1))
    bearing_off = dataclasses.replace(
        O_OPENING, player_checkers=checkers({1: 2, 3: 4, 5: 3}),
        opponent_checkers=checkers({6: 5, 8: 3, 13: 5}, bar=2), player_dice=(5, 3))
    for view in (O_OPENING, on_the_bar, bearing_off):
        # gnubg answers in the mover's own numbering, so both colours get the same play.
        play = await gnubg_play(view)
        assert play == await gnubg_play(dataclasses.replace(view, player_colour="X"))
        if view is on_the_bar:
            assert play.startswith("25/")
        if view is bearing_off:
            assert "/0" in play


@pytest.mark.parametrize("style", [1, 2, 3])
def test_a_timed_matchs_clock_comes_before_the_board_never_between_it_and_its_prompt(style):
    view = O_OPENING
    clock = "Clock: alice has 23 seconds to move."
    assert render_board(view, style, clock) == [clock, *render_board(view, style)]


def test_a_board_line_without_a_clock_is_alone():
    view = O_OPENING
    assert render_board(view, 3) == [board_line(view)]
