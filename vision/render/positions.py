"""Random legal positions from the rules engines: a random playout from the start."""

from __future__ import annotations

from rules.registry import get_game
from vision.render.rng import make_rng

#: most plies of a random playout, by game (Cubes first places its 26..30 white stones)
MAX_PLIES = {"esoloe": 16, "esoloe-tictactoe": 9, "esoloe-3andc": 9, "neunfeld": 24,
             "tyr": 16, "cubes": 70}
PLAYERS = {"tyr": (2, 4), "cubes": (2, 4)}


def random_position(game_id: str, seed: int, plies: int | None = None) -> dict:
    """The position after a random legal playout of ``plies`` moves (random if None),
    stopping early when the game ends; the same seed gives the same position."""
    rng = make_rng(seed, "playout", game_id)
    game = get_game(game_id)
    lo, hi = PLAYERS.get(game_id, (2, 2))
    state = game.initial_state(n_players=int(rng.integers(lo, hi + 1)))
    if plies is None:
        plies = int(rng.integers(0, MAX_PLIES.get(game_id, 12) + 1))
    for _ in range(plies):
        if state.is_terminal():
            break
        moves = list(state.legal_moves)
        if not moves:
            break
        state = state.apply(moves[int(rng.integers(len(moves)))])
    position = state.position.to_json()
    if game_id == "cubes":
        _deal_dependencies(position, rng)
    return position


def _deal_dependencies(position: dict, rng) -> None:
    """Cubes: where the engine leaves the dependency cards unknown, deal them as the
    rules do (the players' colours, nobody holding their own) so the table shows them."""
    players = position.get("players") or []
    if not players or any(p.get("dependency") for p in players):
        return
    colours = [p["colour"] for p in players]
    while True:
        dealt = [colours[int(i)] for i in rng.permutation(len(colours))]
        if all(a != b for a, b in zip(colours, dealt, strict=True)):
            break
    for p, d in zip(players, dealt, strict=True):
        p["dependency"] = d
