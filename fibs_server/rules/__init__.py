"""Backgammon rules: positions, legal plays, FIBS move notation (pure, no I/O)."""
from .notation import Colour, MoveError, format_play, parse_move
from .position import BAR, OFF, Play, Position
from .variants import Variant
