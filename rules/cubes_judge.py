"""Cubes: what an observed board means, from the last legal state (``Game.judge``).

The camera sees the board, the dependency cards (where the operator or camera gives
them) and the operator key ``card_actions``. One observation may show one action:
a stone placed or taken back, a white stone shifted (a shift card), the dependency cards
changed (a dependency-change card), or a count in ``card_actions`` gone up (an action
the camera cannot see). The activity update that follows an action may be seen with the
action or after it (in progress), and must be complete before the next action
(``unflipped-stone``); with the option ``flip_timing=with-action`` it must be seen with
the action. See ``docs/rules/cubes.md``.
"""

from __future__ import annotations

from rules.core import Illegal, Judgement, Move
from rules.cubes_position import (
    EMPTY,
    LETTER,
    CubesPosition,
    is_stone,
    square_name,
    stone_name,
)
from rules.cubes_state import (
    CubesState,
    Deal,
    DependencyChange,
    Hidden,
    Place,
    Shift,
    TakeBack,
    _changed,
)


def judge(state: CubesState, observed: CubesPosition) -> Judgement:
    seen = state.position
    if [(p.colour, p.seat) for p in observed.players] != [
            (p.colour, p.seat) for p in seen.players]:
        return _violation("players-changed", (
            "The players (colours or seats) are not those of the game going on; a new "
            "game begins with an empty board."))
    moves: list[Move] = []
    deps = tuple(o.dependency or s.dependency
                 for o, s in zip(observed.players, seen.players, strict=True))
    if any(s.dependency is None and d is not None
           for d, s in zip(deps, seen.players, strict=True)):
        # the cards known before stay; those seen for the first time are dealt
        known = (s.dependency or d for d, s in zip(deps, seen.players, strict=True))
        deal = Deal(tuple(LETTER[k] if k else None for k in known))
        illegal = state.why_illegal(deal)
        if illegal is not None:
            return Judgement(Judgement.VIOLATION, illegal=illegal)
        state = state._apply(deal)
        moves.append(deal)
        seen = state.position
    n = len(seen.players)
    counts_seen = seen.card_actions or (0,) * n
    counts = observed.card_actions or counts_seen
    same = (observed.grid == seen.grid and deps == seen.dependencies
            and counts == counts_seen)
    if same:
        if moves:
            return Judgement(Judgement.MOVES, tuple(moves), state)
        return Judgement(Judgement.SAME, state=state)
    board = _board_action(seen.grid, observed.grid)
    if state.result is not None and (
            board is not None or deps != seen.dependencies or counts != counts_seen):
        return _violation("game-over", "The game is over; nothing more may change.")
    actions: list[Move] = []
    if isinstance(board, Illegal):
        return Judgement(Judgement.VIOLATION, illegal=board)
    if board is not None:
        actions.append(board)
    if deps != seen.dependencies:
        change = _dependency_action(state, deps)
        if isinstance(change, Illegal):
            return Judgement(Judgement.VIOLATION, illegal=change)
        actions.append(change)
    for i, (before, now) in enumerate(zip(counts_seen, counts, strict=True)):
        if now < before:
            return _violation("card-count", (
                f"The count of unseen actions for {seen.players[i].colour} went down "
                f"({before} to {now}); it only counts up."))
        actions.extend([Hidden(seen.players[i].letter)] * (now - before))
    if len(actions) > 1:
        return _violation("several-actions", (
            "Several actions were made at once; each action (placing, taking back, "
            "playing a card) is made on its own."), state.turn)

    if not actions:
        illegal = _sides_only(state, observed)
        if illegal is not None:
            return Judgement(Judgement.VIOLATION, illegal=illegal)
        if moves:
            return Judgement(Judgement.MOVES, tuple(moves), state)
        return Judgement(Judgement.IN_PROGRESS, state=state)

    move = actions[0]
    illegal = state.why_illegal(move)
    if illegal is not None:
        return Judgement(Judgement.VIOLATION, illegal=illegal)
    after = state._apply(move)
    illegal = _sides_after(state, after, observed)
    if illegal is not None:
        return Judgement(Judgement.VIOLATION, illegal=illegal)
    return Judgement(Judgement.MOVES, (*moves, move), after)


def _violation(rule: str, message: str, player: int | None = None) -> Judgement:
    return Judgement(Judgement.VIOLATION, illegal=Illegal(rule, message, player))


def _board_action(before: tuple[str, ...], now: tuple[str, ...]) -> Move | Illegal | None:
    """The one change of stones (not of sides) between two boards."""
    changes = [sq for sq, (a, b) in enumerate(zip(before, now, strict=True))
               if a != b and a.upper() != b.upper()]
    if not changes:
        return None
    if len(changes) == 1:
        sq = changes[0]
        if before[sq] == EMPTY:
            return Place(now[sq], sq)
        if now[sq] == EMPTY:
            return TakeBack(before[sq].upper(), sq)
    elif len(changes) == 2:
        vacated = [sq for sq in changes if now[sq] == EMPTY]
        filled = [sq for sq in changes if before[sq] == EMPTY]
        if (len(vacated) == 1 and len(filled) == 1
                and before[vacated[0]].upper() == now[filled[0]].upper()):
            return Shift(vacated[0], filled[0])
    return Illegal("several-actions", (
        f"Several stones changed at once ({', '.join(square_name(sq) for sq in changes)}); "
        "each action (placing, taking back, shifting) is made on its own."))


def _dependency_action(state: CubesState, deps: tuple[str | None, ...]) -> Move | Illegal:
    """The dependency-change card that explains the new dependencies: passing to the
    left, to the right, or a swap of two; the first of them the player may play."""
    players = state.players
    candidates = [DependencyChange("D<"), DependencyChange("D>")]
    differ = [i for i in range(len(players)) if players[i].dependency != deps[i]]
    if len(differ) == 2:
        candidates.append(DependencyChange("DS", tuple(players[i].letter for i in differ)))
    fitting = [m for m in candidates
               if tuple(p.dependency for p in _changed(players, m)) == deps]
    if not fitting:
        shown = ", ".join(f"{p.colour} on {d}" for p, d in zip(players, deps, strict=True))
        return Illegal("dependency-change", (
            f"The dependency cards changed to {shown}; no card does that (all pass left, "
            "all pass right, or two cards swap)."), state.turn)
    for move in fitting:
        if state.why_illegal(move) is None:
            return move
    return fitting[0]


def _sides_only(state: CubesState, observed: CubesPosition) -> Illegal | None:
    """Only sides changed: the update of the last action being made, or wrong flips."""
    strict = state.option("flip_timing") == "with-action"
    grid = state.grid
    for sq, (o, s) in enumerate(zip(observed.grid, grid, strict=True)):
        if o == s or state.condition(grid, sq) is None:
            continue
        if sq in state.flipped:
            if strict:
                return _unflipped(state, sq)
            continue
        return _wrong_flip(state, sq, o)
    return None


def _sides_after(before: CubesState, after: CubesState, observed: CubesPosition
                 ) -> Illegal | None:
    """After an action: each stone shows the side the update gives it, or (pending) the
    side it showed before the action. A stone the previous action turned that still
    shows its old side breaks ``unflipped-stone``."""
    strict = after.option("flip_timing") == "with-action"
    grid, old = after.grid, before.grid
    for sq, (o, s) in enumerate(zip(observed.grid, grid, strict=True)):
        if o == s or not is_stone(o) or after.condition(grid, sq) is None:
            continue
        if sq in before.flipped and o != old[sq]:
            return _unflipped(before, sq)
        if o == old[sq]:
            if strict:
                return _unflipped(after, sq)
            continue
        return _wrong_flip(after, sq, o)
    return None


def _unflipped(state: CubesState, sq: int) -> Illegal:
    token = state.grid[sq]
    side = "active (white side up)" if token[0].isupper() else "inactive (black side up)"
    return Illegal("unflipped-stone", (
        f"{stone_name(token)} on {square_name(sq)} must be turned {side} after the last "
        "action, before the game goes on."), state.turn)


def _wrong_flip(state: CubesState, sq: int, shown: str) -> Illegal:
    if shown[0].islower():
        why = "its condition holds"
    elif state.option("reactivate") == "never":
        why = "an inactive stone stays inactive until it is taken back"
    else:
        why = "its condition does not hold"
    return Illegal("wrong-flip", (
        f"{stone_name(shown)} on {square_name(sq)} was turned "
        f"{'inactive' if shown[0].islower() else 'active'}, but {why}."), state.turn)
