"""Lines broken at linelength and pages of pagelength for telnet users."""
from hypothesis import given
from hypothesis import strategies as st

from fibs_server.protocol.views.layout import first_page, wrapped


def test_long_lines_break_at_blanks_and_keep_their_indent():
    assert wrapped(["  Rating: 1500.00 Experience: 0"], 16) == \
        ["  Rating:", "  1500.00", "  Experience: 0"]
    assert wrapped(["short", ""], 16) == ["short", ""]


def test_board_lines_stay_whole():
    board = "board:You:bob:5:0:0:" + ":".join(["0"] * 47)
    assert wrapped([board], 20) == [board]


def test_a_word_longer_than_the_line_is_cut():
    assert wrapped(["x" * 25], 10) == ["x" * 10, "x" * 10, "x" * 5]


@given(st.lists(st.text(alphabet="ab ", max_size=60), max_size=8), st.integers(5, 40))
def test_wrapping_keeps_every_letter_in_order_and_fits(lines, width):
    out = wrapped(lines, width)
    assert all(len(line) <= width for line in out)
    assert "".join(out).replace(" ", "") == "".join(lines).replace(" ", "")


def test_pages_leave_a_line_for_the_more_prompt():
    lines = [str(n) for n in range(10)]
    assert first_page(lines, 4) == (lines[:3], lines[3:])
    assert first_page(lines, 10) == (lines, [])
    assert first_page(lines, 1) == (lines[:1], lines[1:])
