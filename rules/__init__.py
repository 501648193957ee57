"""Rules engines and the referee. Imports nothing from vision/, device/ or calibration/."""

from rules.core import (
    Board,
    Game,
    Illegal,
    IllegalMoveError,
    InvalidMove,
    InvalidPosition,
    Judgement,
    LegalMoves,
    Move,
    Outcome,
    Position,
    RuleOption,
    RulesError,
    State,
)
from rules.registry import GAME_IDS, get_game

__all__ = [
    "GAME_IDS",
    "Board",
    "Game",
    "Illegal",
    "IllegalMoveError",
    "InvalidMove",
    "InvalidPosition",
    "Judgement",
    "LegalMoves",
    "Move",
    "Outcome",
    "Position",
    "RuleOption",
    "RulesError",
    "State",
    "get_game",
]
