"""Line cleaning and the folding of empty lines, against straightforward references."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fibs_server.net.telnet import LineSplitter, clean_line, fold_empty_lines

LINE_BYTES = st.lists(st.sampled_from([b"\n", b"\r\n", b"\r\x00", b"\x00", b"\x07", b"\t", b" ",
                                       b"who", b"\xc3\xa9", b"\x1b[1m"]), max_size=60)


@given(st.binary(max_size=300))
def test_clean_line_keeps_printable_ascii_only(raw):
    expected = "".join("?" if b > 126 else chr(b) for b in raw if b >= 32 or b == 9)
    assert clean_line(raw) == expected.replace("\t", " ")


@given(LINE_BYTES)
def test_folding_keeps_every_line_but_repeated_empty_ones(pieces):
    text = b"first\n" + b"".join(pieces)  # (a run at the very start: TelnetProtocol's part)
    unfolded = LineSplitter().feed(text)
    folded = LineSplitter().feed(fold_empty_lines(text))
    assert [line for line in folded if line] == [line for line in unfolded if line]
    assert all(a or b for a, b in zip(folded, folded[1:])), "two empty lines in a row"
    # Each run of empty lines is still there, once.
    runs = [line for line, previous in zip(unfolded, [None] + unfolded) if line or previous != ""]
    assert folded == runs
