"""Maps the observation spec's game ids to games."""

from __future__ import annotations

from importlib import import_module

from rules.core import Game, InvalidPosition

# game id -> (module, class name); modules are imported on first use
_GAMES: dict[str, tuple[str, str]] = {
    "esoloe": ("rules.esoloe", "Esoloe"),
    "esoloe-tictactoe": ("rules.esoloe", "EsoloeTicTacToe"),
    "esoloe-3andc": ("rules.esoloe", "Esoloe3andC"),
    "neunfeld": ("rules.neunfeld", "Neunfeld"),
    "tyr": ("rules.tyr", "Tyr"),
    "cubes": ("rules.cubes", "Cubes"),
}

GAME_IDS: tuple[str, ...] = tuple(_GAMES)


def get_game(game_id: str) -> Game:
    """The game for a spec game id; raises InvalidPosition (key ``game``) if unknown."""
    try:
        module, name = _GAMES[game_id]
    except (KeyError, TypeError):
        raise InvalidPosition(
            "game", f"unknown game {game_id!r} (known: {', '.join(GAME_IDS)})"
        ) from None
    return getattr(import_module(module), name)()
