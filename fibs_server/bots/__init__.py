"""Computer opponents: decisions (brain, from a match's Situation) and the worker pool that
computes them off the event loop. docs/BOTS.md."""
from .brain import BEGINNER, EXPERT, INTERMEDIATE, LEVELS, RULES_OF_THUMB, Level, decide, fallback
from .pool import BotPool
from .situation import Action, CubeOwner, Decision, Situation, situation_for

__all__ = ["BEGINNER", "EXPERT", "INTERMEDIATE", "LEVELS", "RULES_OF_THUMB", "Action", "BotPool",
           "CubeOwner", "Decision", "Level", "Situation", "decide", "fallback", "situation_for"]
