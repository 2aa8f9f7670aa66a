"""Backgammon rules: positions, legal plays, FIBS move notation (pure, no I/O)."""
from .position import BAR, OFF, Play, Position
from .variants import Variant
