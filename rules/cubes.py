"""Cubes (game id ``cubes``): the game, for the registry (``docs/rules/cubes.md``).

The pieces: ``rules.cubes_position`` (the board the camera sees, squares, adjacency),
``rules.cubes_cards`` (cards, deck, hands), ``rules.cubes_state`` (moves, notation,
the state and its rules), ``rules.cubes_judge`` (what an observed board means).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rules.core import Game, InvalidPosition, Judgement, Move, State, resolve_options
from rules.cubes_cards import Cards
from rules.cubes_judge import judge
from rules.cubes_position import (
    CELLS,
    COLOURS,
    EMPTY,
    WHITES,
    CubesPosition,
    Player,
    is_stone,
    parse_position,
)
from rules.cubes_state import (
    DEFAULT_SEATS,
    PLAY,
    RULE_OPTIONS,
    SETUP,
    THIRD_POINT_SUM,
    CubesState,
    parse_move,
)

# --------------------------------------------------------------------------- the game


class Cubes(Game):
    id = "cubes"
    title = "Cubes"
    min_players = 2
    max_players = 4
    rule_options = RULE_OPTIONS

    def initial_state(
        self, options: Mapping[str, Any] | None = None, n_players: int = 2
    ) -> CubesState:
        """An empty board in the setup phase; players blue, red, black, orange from the
        south clockwise. With ``options["seed"]`` (an int) the full game: dependency
        cards and the deck dealt by that seed. Without it, the referee's view: no cards
        known, the dependency cards not yet seen (they are dealt after the setup)."""
        given = dict(options or {})
        seed = given.pop("seed", None)
        opts = resolve_options(self.rule_options, given)
        if n_players not in WHITES:
            raise InvalidPosition("players", f"Cubes is for 2 to 4 players, not {n_players}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidPosition("options.seed", f"{seed!r} is not an integer")
        colours = COLOURS[:n_players]
        if seed is None:
            deps, cards, counts = [None] * n_players, None, None
        else:
            rng = random.Random(f"cubes:{seed}:deal")
            deps = list(colours)
            while any(d == c for d, c in zip(deps, colours, strict=True)):
                rng.shuffle(deps)
            deck = dict(opts)["shift_directions"]
            cards, counts = Cards.deal(deck, n_players, rng, seed), (0,) * n_players
        players = tuple(Player(c, s, d) for c, s, d in
                        zip(colours, DEFAULT_SEATS[n_players], deps, strict=True))
        position = CubesPosition((EMPTY,) * CELLS, players, counts)
        return CubesState(position, opts, cards=cards)

    def position_from_json(
        self, data: Any, options: Mapping[str, Any] | None = None
    ) -> CubesPosition:
        return parse_position(data)

    def is_start(self, position: Any) -> bool:
        return isinstance(position, CubesPosition) and all(t == EMPTY for t in position.grid)

    def state_from_position(
        self, position: Any, options: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> CubesState:
        """Resumes a game from what the camera sees: no cards known, player 0 to move
        with no action point spent (the board does not show whose turn it is); in the
        setup the turn follows from the white stones placed. Stones lying on the wrong
        side are due to be turned (the next observation may show them turned)."""
        given = {k: v for k, v in dict(options or {}).items() if k != "seed"}
        opts = resolve_options(self.rule_options, given)
        n = len(position.players)
        needed, whites = WHITES[n], position.whites()
        stones = any(is_stone(t) for t in position.grid)
        if whites > needed:
            raise InvalidPosition("grid", f"{whites} white stones; {n} players use {needed}")
        if stones and whites < needed:
            raise InvalidPosition("grid", (
                f"player stones lie on the board before all {needed} white stones are "
                f"placed ({whites})"))
        if whites < needed:
            for i, p in enumerate(position.players):
                if p.dependency == p.colour:
                    raise InvalidPosition(f"players.{i}.dependency", (
                        "at the start nobody depends on the own colour"))
            return CubesState(position, opts, SETUP, whites % n)
        state = CubesState(position, opts, PLAY, 0)
        grid = list(position.grid)
        flipped = state._settle(grid, position.players)
        state = replace(state, position=replace(position, grid=tuple(grid)), flipped=flipped)
        return replace(state, result=state._winners(None),
                       third=state.active_sum(grid, 0) >= THIRD_POINT_SUM)

    def parse_move(self, text: str) -> Move:
        return parse_move(text)

    def judge(self, state: State, observed: Any) -> Judgement:
        return judge(state, observed)
