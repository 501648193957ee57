"""The referee: from the last legal state and each new observation, the events.

One piece of code for all six games, over ``Game.judge`` (see ``docs/referee.md`` for
every decision below, in prose):

- Only stable observations are judged; the others are ignored.
- The first observation of a table begins a game: from the start position
  (``Game.is_start``) with ``Game.initial_state``, otherwise resumed mid-game with
  ``Game.state_from_position``. Beginning yields no event (``unclear`` when no legal game
  reaches the position; the next observation tries again).
- An observation whose position (and uncertain readings) equals the previous judged one
  is not judged again: the same position seen again yields no event.
- ``same`` -> no event (``corrected`` after a violation); ``in-progress`` -> no event;
  ``moves`` -> ``move``, then ``win``/``draw`` when the game is over (``Board`` adds the
  repetition draw); ``violation`` -> ``violation``, and the last legal state stays the
  reference.
- An observation that no reading explains legally yields ``unclear`` instead of a
  violation when its confidence is below ``min_confidence``.
- After ``unclear`` observations the next one is judged through them (``explain_through``:
  a move the referee could not read, then the next, announced together); while the table
  may have moved on unseen (those, or the camera's ``unread`` scenes) a violation is
  ``unclear``, and a game lost so is followed again from two sure readings a legal move
  apart (``follow_again``). A game is not begun mid-way on a reading in doubt.
- After ``win``/``draw`` nothing is judged until the start position is seen again (or
  the table's game id changes), which begins a new game.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from rules.core import (
    Board,
    Game,
    Illegal,
    Judgement,
    Move,
    Position,
    RulesError,
    State,
    canonical_json,
)
from rules.observation import (
    Observation,
    corrected_event,
    draw_event,
    forced_win_event,
    move_event,
    unclear_event,
    violation_event,
    win_event,
)

#: default threshold: below it, an observation no reading explains is ``unclear``
MIN_CONFIDENCE = 0.9
#: an alternative reading this much less probable than the written one is not considered
ALTERNATIVE_FLOOR = 0.1
#: an element's listed probabilities that sum to within this of 1 hold its whole belief
LISTED_SLACK = 0.001
#: unclear observations kept since the last sure judgement (older ones are forgotten) ...
MAX_DOUBTS = 4
#: ... and the most probable ways through them kept
MAX_PATHS = 32


class Recorder(Protocol):
    """What the referee tells a game record (``rules.records.Recorder``)."""

    def begin(self, game: TableGame, obs: Observation, events: list[dict]) -> None: ...

    def judged(self, game: TableGame, obs: Observation, events: list[dict]) -> None: ...


@dataclass
class TableGame:
    """The game going on at one table: the referee's memory between observations."""

    table: str
    game_id: str
    game: Game
    board: Board
    options: dict[str, Any]
    player_names: tuple[str, ...] | None
    start_seq: int
    resumed: bool  # begun from a mid-game position rather than the start
    seq: int  # the last judged observation's seq
    over: bool = False
    in_violation: bool = False
    last_key: str | None = None  # what the last judged observation showed
    last_unclear: bool = False
    #: observations judged unclear since the last sure judgement, in order (``explain_through``)
    doubts: list[Observation] = field(default_factory=list)
    #: doubtful observations were dropped (``Referee._doubt``)
    doubts_dropped: bool = False
    #: plies before ``board`` began (the game followed again mid-way: ``follow_again``)
    ply_base: int = 0
    forced_win_seen: set[int] = field(default_factory=set)
    #: (seq, time) of observations judged before a restart (from the record): skipped
    replayed: set[tuple[int, float]] = field(default_factory=set)

    @property
    def state(self) -> State:
        return self.board.state

    @property
    def ply(self) -> int:
        return self.ply_base + len(self.board.move_stack)

    def player_name(self, index: int | None) -> str:
        if index is None:
            return "someone"
        if self.player_names and 0 <= index < len(self.player_names):
            return self.player_names[index]
        return f"player {index}"


class Referee:
    """Judges observations of any number of tables; ``feed`` returns the events."""

    def __init__(
        self,
        min_confidence: float = MIN_CONFIDENCE,
        *,
        forced_wins: bool = True,
        recorder: Recorder | None = None,
        resume: Any = None,
    ):
        """``resume(table, obs, min_confidence) -> TableGame | None`` restores a table's
        game from its record when the table is first seen (``Recorder.resume``)."""
        self.min_confidence = min_confidence
        self.forced_wins = forced_wins
        self.recorder = recorder
        self.resume = resume
        self.tables: dict[str, TableGame] = {}
        self._unfollowable: dict[str, str] = {}  # table -> position that could not begin

    # ------------------------------------------------------------------ the stream
    def feed(self, obs: Observation) -> list[dict[str, Any]]:
        """The events one observation yields (often none)."""
        if not obs.stable:
            return []
        tg = self.tables.get(obs.table)
        if tg is None and self.resume is not None:
            tg = self.resume(obs.table, obs, self.min_confidence)
            if tg is not None:
                self.tables[obs.table] = tg
        if tg is not None and (obs.seq, obs.time) in tg.replayed:
            return []  # judged before a restart; its events are in the record
        if tg is None or tg.game_id != obs.game_id or (
            tg.over and obs.game.is_start(obs.position)
        ):
            return self._begin(obs)
        if tg.over or obs.seq <= tg.seq:
            return []
        tg.seq = obs.seq
        key = _key(obs)
        if key == tg.last_key and not tg.last_unclear:
            return []
        tg.last_key = key
        events = self._judge(tg, obs)
        tg.last_unclear = bool(events) and events[0]["event"] == "unclear"
        if self.recorder is not None:
            self.recorder.judged(tg, obs, events)
        return events

    def feed_all(self, observations: Iterable[Observation]) -> list[dict[str, Any]]:
        return [e for obs in observations for e in self.feed(obs)]

    # ------------------------------------------------------------------ beginning
    def _begin(self, obs: Observation) -> list[dict[str, Any]]:
        game = obs.game
        self.tables.pop(obs.table, None)
        try:
            if not game.is_start(obs.position) and obs.least_confidence < self.min_confidence:
                # begun on a misread, every later position would be judged against it
                raise RulesError(f"it is read in doubt ({obs.least_confidence:.2f}); "
                                 "waiting for one read surely")
            state = start_state(game, obs)
        except RulesError as err:
            if self._unfollowable.get(obs.table) == _key(obs):
                return []  # said already
            self._unfollowable[obs.table] = _key(obs)
            return [unclear_event(
                obs.table, obs.seq, f"No game can be followed from this position: {err}")]
        tg = TableGame(
            table=obs.table, game_id=obs.game_id, game=game, board=Board(game, state),
            options=dict(state.options), player_names=obs.player_names, start_seq=obs.seq,
            resumed=not game.is_start(obs.position), seq=obs.seq, last_key=_key(obs),
        )
        tg.over = tg.board.outcome() is not None
        self._unfollowable.pop(obs.table, None)
        self.tables[obs.table] = tg
        events = self._forced_win(tg, obs.seq) if not tg.over else []
        if self.recorder is not None:
            self.recorder.begin(tg, obs, events)
        return events

    # ------------------------------------------------------------------ judging
    def _judge(self, tg: TableGame, obs: Observation) -> list[dict[str, Any]]:
        if obs.player_names is not None:
            tg.player_names = obs.player_names
        verdict, explained, moved_on = None, False, obs.unread > 0 or tg.doubts_dropped
        if tg.doubts and not tg.doubts_dropped:
            verdict, explained, through = explain_through(
                tg.game, tg.state, tg.doubts, obs, self.min_confidence)
            moved_on = moved_on or through
        if not explained:  # no way through the doubts is legal, or there are none
            verdict = explain(tg.game, tg.state, obs, self.min_confidence,
                              tails=not tg.in_violation)
            if moved_on and verdict is not None and verdict.kind == Judgement.VIOLATION:
                # not announced: the table may have moved on by moves the referee could
                # not read (or the camera did not), and the rules are judged from where
                # the referee is sure
                again = follow_again(tg.game, tg.doubts, obs, self.min_confidence)
                if again is None:
                    self._doubt(tg, obs)
                    return [unclear_event(obs.table, obs.seq, (
                        "No legal move explains the position from the last one the referee "
                        "is sure of, but the table was not read since; waiting for a "
                        "position it can follow."))]
                anchor, verdict = again  # followed again from the position before
                tg.ply_base, tg.board = tg.ply, Board(tg.game, anchor)
        table, seq = obs.table, obs.seq
        if verdict is None:
            self._doubt(tg, obs)
            return [unclear_event(table, seq, (
                f"The position cannot be read with confidence ({obs.least_confidence:.2f}) "
                "and no legal move explains it; check the table."))]
        tg.doubts, tg.doubts_dropped = [], False
        if verdict.kind == Judgement.SAME:
            if tg.in_violation:
                tg.in_violation = False
                return [corrected_event(table, seq)]
            return []
        if verdict.kind == Judgement.IN_PROGRESS:
            return []
        if verdict.kind == Judgement.VIOLATION:
            tg.in_violation = True
            illegal = verdict.illegal or Illegal("illegal", "That is against the rules.")
            player = illegal.player if illegal.player is not None else tg.state.turn
            return [violation_event(table, seq, player, illegal.rule, illegal.message)]
        tg.in_violation = False
        events = [self._push(tg, seq, verdict.moves)]
        outcome = tg.board.outcome()
        if outcome is not None:
            tg.over = True
            if outcome.is_draw:
                events.append(draw_event(table, seq, outcome.condition))
            else:
                events.append(win_event(table, seq, list(outcome.winners), outcome.condition))
        else:
            events.extend(self._forced_win(tg, seq))
        return events

    @staticmethod
    def _doubt(tg: TableGame, obs: Observation) -> None:
        """``obs`` joins the doubtful observations; past ``MAX_DOUBTS`` the oldest is
        dropped, and then no way is followed through them (one that skipped a move in the
        dropped one could explain the table without it) until a judgement is sure again."""
        tg.doubts.append(obs)
        if len(tg.doubts) > MAX_DOUBTS:
            del tg.doubts[0]
            tg.doubts_dropped = True

    def _push(self, tg: TableGame, seq: int, moves: tuple[Move, ...]) -> dict[str, Any]:
        """Plays the judged moves on the board; one ``move`` event for them all."""
        first_ply, player = tg.ply + 1, mover(moves[0], tg.state)
        for move in moves:
            tg.board.push(move)
        if len(moves) == 1:
            return move_event(tg.table, seq, first_ply, player, moves[0].notation())
        # several moves seen at once (a stable frame between them was missed): one event,
        # as the spec allows one per observation, listing them all
        event = move_event(
            tg.table, seq, first_ply, player, "; ".join(m.notation() for m in moves))
        event["moves"] = [m.notation() for m in moves]
        return event

    def _forced_win(self, tg: TableGame, seq: int) -> list[dict[str, Any]]:
        """``forced-win`` information once per player and game, where the game can see it.

        A game offers this with a method ``forced_win(state) -> (player, moves) | None``.
        """
        search = getattr(tg.game, "forced_win", None)
        if not self.forced_wins or search is None:
            return []
        found = search(tg.state)
        if found is None:
            return []
        player, line = found
        if player in tg.forced_win_seen:
            return []
        tg.forced_win_seen.add(player)
        return [forced_win_event(tg.table, seq, player, [str(m) for m in line])]


# --------------------------------------------------------------------------- helpers


def start_state(game: Game, obs: Observation) -> State:
    """The state a game begins from at this observation (see the module doc).

    From the start position: ``initial_state`` with the number of players named (when
    the game allows it), checked against what is seen; otherwise, or when that does not
    match, ``state_from_position``. Raises RulesError when no legal game reaches it.
    """
    if game.is_start(obs.position):
        names = obs.player_names or ()
        n = len(names) if game.min_players <= len(names) <= game.max_players else None
        state = game.initial_state(obs.options, n) if n else game.initial_state(obs.options)
        if game.judge(state, obs.position).kind == Judgement.SAME:
            return state
    return game.state_from_position(obs.position, obs.options, obs.extra)


def mover(move: Move, state: State) -> int | None:
    """Who makes ``move``: the player the move names (``player``, or ``starter`` for
    Neunfeld's opening roll, made by whoever rolled the five), else the player to move."""
    for name in ("player", "starter"):
        player = getattr(move, name, None)
        if isinstance(player, int) and not isinstance(player, bool):
            return player
    return state.turn


def explain(
    game: Game, state: State, obs: Observation, min_confidence: float = MIN_CONFIDENCE,
    tails: bool = True,
) -> Judgement | None:
    """The judgement of the most probable reading that is legal (same, in progress or
    moves); else the violation of the reading as given, or None (unclear) when the
    observation's confidence is below the referee's threshold.

    Readings that are legal but judged otherwise compete with it: when the chosen
    reading holds less than ``min_confidence`` of the probability of all legal readings
    (a stone read at 0.58 whose absence is legal too), the observation is unclear (None):
    the rules may pick the one legal reading among misreadings, never one of several.
    A reading less than ``ALTERNATIVE_FLOOR`` times as probable as the position as
    written is not considered (a cube read present at 0.98 is not taken away to make
    the position legal).

    No reading legal and the observation in doubt: still the violation where its doubt is
    accounted for (``Observation.doubts_combined``: every element in doubt listed in
    ``uncertain`` with its alternatives, all combined) and the readings weighed, every one
    of them against the rules, hold at least ``min_confidence`` of the probability (two
    cubes where one may be placed, whichever player's the lower one is). Where every
    element's alternatives hold the rest of its belief (``_listed_whole``), the readings
    under ``ALTERNATIVE_FLOOR`` are weighed too: they never make a move, but may make a
    violation (the field beside those two cubes read empty at 0.86 and holding a cube at
    0.07 for each player: three cubes), and a legal one counts against it. A violation
    that needs them must hold the threshold in the readings that break the rule the most
    probable one breaks (the rule the event names): readings breaking other rules too
    were, on the saved demo readings, a die misread surely (Neunfeld seed 17). ``tails``
    False (a violation announced and not yet put right): not so; the table is being put
    back, and a second violation from a doubtful reading tells the players nothing new
    (after a game lost to sure misreads, Neunfeld seed 11's readings of 10:50 UTC, one
    such violation on a wrong state began a run of six)."""
    best, best_p, rival_p, first = None, 0.0, 0.0, None
    total_p, left_out, under = 0.0, False, False
    illegal_p = {False: 0.0, True: 0.0}  # any rule broken; the most probable one's rule
    in_doubt = obs.least_confidence < min_confidence
    whole = tails and in_doubt and obs.doubts_combined and _listed_whole(obs)
    for p, position, floor in _floored_readings(obs):
        if floor and (best is not None or not whole):
            left_out = True
            break
        under |= floor
        total_p += p
        verdict = game.judge(state, position)
        if verdict.kind == Judgement.VIOLATION:
            first = first or verdict
            illegal_p[False] += p
            illegal_p[True] += p if _broken(verdict) == _broken(first) else 0.0
        elif floor:
            continue  # too improbable to be taken: it only weighs against the violation
        elif best is None:
            best, best_p = verdict, p
        elif _outcome_key(verdict) != _outcome_key(best):
            rival_p += p
    if best is not None:
        return best if best_p >= min_confidence * (best_p + rival_p) else None
    if not in_doubt:
        return first
    if (not left_out and obs.doubts_combined
            and illegal_p[under] >= min_confidence * max(total_p, 1.0)):
        return first
    return None


def _broken(verdict: Judgement) -> str | None:
    """The rule a violation announces as broken."""
    return None if verdict.illegal is None else verdict.illegal.rule


def _listed_whole(obs: Observation) -> bool:
    """Whether each element ``uncertain`` lists holds its whole belief: its confidence and
    its alternatives' probabilities sum to 1 (to the 4 decimals readers round to)."""
    return all(u.confidence + sum(p for _, p in u.alternatives) >= 1 - LISTED_SLACK
               for u in obs.uncertain)


def _floored_readings(obs: Observation) -> Iterator[tuple[float, Position, bool]]:
    """Every reading, most probable first, with whether it is under the floor: less than
    ``ALTERNATIVE_FLOOR`` times as probable as the position as written."""
    written_p = None
    for p, position in obs.readings():
        written_p = p if written_p is None else written_p
        yield p, position, p < ALTERNATIVE_FLOOR * written_p


def _weighed_readings(obs: Observation) -> Iterator[tuple[float, Position]]:
    """The readings a way through the doubts weighs: from the most probable down to the
    floor (the readings come most probable first)."""
    for p, position, floor in _floored_readings(obs):
        if floor:
            return
        yield p, position


def explain_through(
    game: Game, state: State, doubts: list[Observation], obs: Observation,
    min_confidence: float = MIN_CONFIDENCE,
) -> tuple[Judgement | None, bool, bool]:
    """``obs`` judged from ``state`` through the observations judged unclear since it
    (``doubts``, in order): (judgement, explained, moved on).

    Each way through them takes, at each doubtful observation, one of its legal readings
    from where the way got to (its moves, or none: the same position or a turn in
    progress), with the product of the readings' probabilities; an observation no way
    continues legally is passed over. ``obs`` is then judged from each way's end. The
    ways that make it legal are grouped by all the moves they take from ``state``: when
    the most probable group holds ``min_confidence`` of their probability, its moves are
    the judgement (several moves: a move the referee could not read, then the next); when
    none does, None (unclear). explained is False when no way makes ``obs`` legal (judge
    it from ``state`` then: a violation from every place the doubts may have led); moved
    on, whether some way through the doubts takes a move, or a doubtful observation that
    no way explains shows another position than ``obs`` (the table may have moved on from
    ``state`` by moves the referee could not read)."""
    # moves taken (notations) -> (moves, end state, probability)
    ways: dict[tuple[str, ...], tuple[tuple[Move, ...], State, float]] = {
        (): ((), state, 1.0)}
    unexplained = False  # a doubtful observation no way explains, unlike ``obs``
    for doubt in doubts:
        ahead = _continue(game, ways, doubt)
        if ahead:
            kept = sorted(ahead.items(), key=lambda way: -way[1][3])[:MAX_PATHS]
            ways = {key: (moves, end, p) for key, (moves, end, _, p) in kept}
        else:
            unexplained |= doubt.raw["position"] != obs.raw["position"]
    moved_on = unexplained or any(ways)
    ends = _continue(game, ways, obs)
    if not ends:
        return None, False, moved_on
    total = sum(end[3] for end in ends.values())
    moves, after, verdict, p = max(ends.values(), key=lambda end: end[3])
    if p < min_confidence * total:
        return None, True, moved_on
    if not moves:
        return verdict, True, moved_on
    return Judgement(Judgement.MOVES, moves, after), True, moved_on


def follow_again(game: Game, doubts: list[Observation], obs: Observation,
                 min_confidence: float = MIN_CONFIDENCE) -> tuple[State, Judgement] | None:
    """Where the referee lost the game (the table moved on by moves it could not read), the
    game followed again: (the state the last doubtful observation shows, the judgement
    of ``obs`` from it) when that observation and ``obs`` are both read surely (no
    element under ``min_confidence``), show different positions, and a legal move leads
    from the one to the other (as a referee begun mid-game on the first would judge the
    second); else None. Two sure readings a legal move apart, not one, so that a position
    misread once does not become the game."""
    if not doubts:
        return None
    before = doubts[-1]
    if (before.raw["position"] == obs.raw["position"]
            or min(before.least_confidence, obs.least_confidence) < min_confidence):
        return None
    try:
        anchor = start_state(game, before)
    except RulesError:
        return None
    if anchor.outcome() is not None:
        return None
    verdict = game.judge(anchor, obs.position)
    return (anchor, verdict) if verdict.kind == Judgement.MOVES else None


def _continue(game: Game, ways: dict, obs: Observation) -> dict:
    """Each way continued by each legal reading of ``obs``: moves taken -> (moves, end
    state, the judgement of the reading, probability), the probabilities of ways that
    take the same moves added."""
    ahead: dict[tuple[str, ...], list] = {}
    for moves, end, p in ways.values():
        for q, position in _weighed_readings(obs):
            verdict = game.judge(end, position)
            if verdict.kind == Judgement.VIOLATION:
                continue
            taken, after = moves, end
            if verdict.kind == Judgement.MOVES:
                if end.outcome() is not None:
                    continue  # nothing is played after the end of the game
                taken = moves + tuple(verdict.moves)
                for move in verdict.moves:
                    after = after.apply(move)
            key = tuple(str(m) for m in taken)
            if key in ahead:
                ahead[key][3] += p * q
            else:
                ahead[key] = [taken, after, verdict, p * q]
    return {k: tuple(v) for k, v in ahead.items()}


def _outcome_key(verdict: Judgement) -> tuple:
    """What a legal judgement announces: no change (same or a turn in progress) or its
    moves."""
    if verdict.kind in (Judgement.SAME, Judgement.IN_PROGRESS):
        return ("no-change",)
    return (verdict.kind, tuple(str(m) for m in verdict.moves))


def _key(obs: Observation) -> str:
    return canonical_json([obs.raw["position"], obs.raw.get("uncertain")])
