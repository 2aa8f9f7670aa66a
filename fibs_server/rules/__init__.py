"""Backgammon rules: positions, legal plays, FIBS move notation (pure, no I/O)."""
from .board.greedy import greedy_bearoff
from .board.notation import Colour, MoveError, format_play, parse_move
from .board.position import BAR, OFF, Play, Position
from .dice import Dice, ScriptedDice, SeededDice, VerifiableDice
from .events import WinKind
from .match import IllegalAction, Match, Phase
from .ratings import PlayerRating, RatingCalculation, rate_match
from .refusals import Refusal
from .variants import MatchRules, Variant

__all__ = ["BAR", "OFF", "Colour", "Dice", "IllegalAction", "Match", "MatchRules", "MoveError",
           "Phase", "Play", "PlayerRating", "Position", "RatingCalculation", "Refusal",
           "ScriptedDice", "SeededDice", "Variant", "VerifiableDice", "WinKind", "format_play",
           "greedy_bearoff", "parse_move", "rate_match"]
