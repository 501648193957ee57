"""Observations in, referee events out: the wire format of ``shared/spec/observation.md``.

``parse_observation`` turns one JSON line into a validated ``Observation`` or raises
``ObservationError`` naming the key at fault (``"seq"``, ``"position.cells.2"``);
``ObservationReader`` adds the one rule that spans lines (``seq`` strictly increasing
per table). The event constructors build the referee's output objects with exactly the
spec's keys, ``event`` and ``table`` first.

The ``uncertain`` extension (per-element confidence and alternative readings, see
``docs/observation-extensions.md``) is parsed here too; ``Observation.readings`` lists
the positions it allows, most probable first.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from rules.core import (
    Game,
    InvalidPosition,
    Position,
    RulesError,
    canonical_json,
    resolve_options,
)
from rules.registry import get_game

SCHEMA = "tableref/observation/1"

#: positions an ObservationReader keeps parsed (a camera repeats a still table)
POSITION_CACHE = 64

#: at most this many readings of one observation are judged (see ``readings``)
MAX_READINGS = 256

_KEEP = object()  # an uncertain element left at the reading the position holds


class ObservationError(RulesError):
    """A malformed observation. ``key`` is the dotted path of the key at fault
    (``""`` when the line as a whole is wrong, e.g. not JSON)."""

    def __init__(self, key: str, message: str):
        super().__init__(f"{key}: {message}" if key else message)
        self.key = key
        self.message = message


@dataclass(frozen=True)
class Uncertain:
    """One element the camera is unsure of: its path into the position, the confidence
    of the reading in the position, and the other readings with their probabilities."""

    path: tuple[str | int, ...]
    confidence: float
    alternatives: tuple[tuple[Any, float], ...]


@dataclass(frozen=True, eq=False)
class Observation:
    """One validated observation line. ``raw`` is the JSON object as read."""

    table: str
    game_id: str
    game: Game
    seq: int
    time: float
    stable: bool
    confidence: float
    position: Position
    player_names: tuple[str, ...] | None
    options: Mapping[str, Any] | None
    uncertain: tuple[Uncertain, ...]
    #: settled scenes the camera could not read since its previous observation (extension)
    unread: int
    raw: Mapping[str, Any]

    @property
    def extra(self) -> dict[str, Any]:
        """The observation without its position: ``Game.state_from_position``'s extra."""
        return {k: v for k, v in self.raw.items() if k != "position"}

    @property
    def least_confidence(self) -> float:
        """The lowest confidence the observation states, overall or per element."""
        return min([self.confidence, *(u.confidence for u in self.uncertain)])

    @property
    def doubts_combined(self) -> bool:
        """Whether ``readings`` accounts for all the observation's doubt: some elements are
        listed in ``uncertain``, none it does not list is in more doubt than they are (the
        stated confidence is no lower than the least listed one) and ``readings`` combines
        every listed element's alternatives (``MAX_READINGS``)."""
        if not self.uncertain:
            return False
        if self.confidence < min(u.confidence for u in self.uncertain):
            return False
        return math.prod(1 + len(u.alternatives) for u in self.uncertain) <= MAX_READINGS

    def readings(self) -> Iterator[tuple[float, Position]]:
        """The positions this observation allows, most probable first, as (p, position).

        The first is always ``position`` itself, p the product of the confidences of the
        elements combined. Alternatives that make no valid position are left out. With
        many uncertain elements only the least confident ones' alternatives are combined,
        at most ``MAX_READINGS``; p is over the elements combined.
        """
        elements, total = [], 1
        for u in sorted(self.uncertain, key=lambda u: u.confidence):
            size = 1 + len(u.alternatives)
            if total * size > MAX_READINGS:
                break
            elements.append(u)
            total *= size
        yield math.prod(u.confidence for u in elements), self.position
        if not elements:
            return
        choices = [[(_KEEP, u.confidence), *u.alternatives] for u in elements]
        combos = [
            (math.prod(p for _, p in combo), combo)
            for combo in itertools.product(*choices)
            if any(value is not _KEEP for value, _ in combo)
        ]
        combos.sort(key=lambda c: -c[0])
        for p, combo in combos:
            data = copy.deepcopy(self.raw["position"])
            try:
                # a whole element first (a stack), then what lies inside it
                for u, (value, _) in sorted(zip(elements, combo, strict=True),
                                            key=lambda e: len(e[0].path)):
                    if value is not _KEEP:
                        _set_path(data, u.path, copy.deepcopy(value))
                yield p, self.game.position_from_json(data, self.options)
            except (InvalidPosition, LookupError, TypeError):
                # no such position, or an alternative inside an element another one
                # replaced (a cube's player in a stack read as empty)
                continue


def _set_path(data: Any, path: tuple[str | int, ...], value: Any) -> None:
    for part in path[:-1]:
        data = data[part]
    data[path[-1]] = value


# --------------------------------------------------------------------------- parsing


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_json(text: str | bytes) -> Any:
    """Strict JSON (no NaN or Infinity); raises ObservationError with an empty key."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ObservationError("", f"not UTF-8 text (byte {err.start})") from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ObservationError("", "invalid JSON: nested too deeply") from None
    except ValueError as err:
        if isinstance(err, json.JSONDecodeError):
            msg = f"invalid JSON: {err.msg} (column {err.colno})"
        else:
            msg = f"invalid JSON: {err}"
        raise ObservationError("", msg) from None


def _number(data: Mapping[str, Any], key: str) -> float:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ObservationError(key, f"must be a number, not {_kind(value)}")
    if not math.isfinite(value):
        raise ObservationError(key, "must be a finite number")
    return value


def _probability(value: Any, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ObservationError(key, f"must be a number from 0 to 1, not {value!r}")
    return float(value)


def _kind(value: Any) -> str:
    return {
        type(None): "null", bool: "true/false", int: "a number", float: "a number",
        str: "text", list: "a list", dict: "an object",
    }.get(type(value), type(value).__name__)


REQUIRED = ("schema", "table", "game", "seq", "time", "stable", "confidence", "position")


def parse_observation(
    text: str | bytes | Mapping[str, Any],
    games: Callable[[str], Game] = get_game,
    positions: dict[tuple[str, str, str], Position] | None = None,
    options_before: Mapping[str, Any] | None = None,
) -> Observation:
    """One observation line (or its decoded JSON object) -> a validated Observation.

    ``games`` maps a game id to its Game (the registry; tests pass their own). Raises
    ObservationError naming the key at fault. ``positions``, a cache of positions parsed
    before (by game id, options and canonical JSON), spares parsing a position seen
    again. ``options_before`` are the rule options an earlier line of the same table gave,
    used when this line gives none (a stream may name its options once, at the start).
    """
    data = load_json(text) if isinstance(text, str | bytes) else text
    if not isinstance(data, dict):
        raise ObservationError("", f"an observation is a JSON object, not {_kind(data)}")
    for key in REQUIRED:
        if key not in data:
            raise ObservationError(key, "missing")
    if data["schema"] != SCHEMA:
        raise ObservationError("schema", f"{data['schema']!r} is not {SCHEMA!r}")
    table = data["table"]
    if not isinstance(table, str):
        raise ObservationError("table", f"must be text, not {_kind(table)}")
    seq = data["seq"]
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise ObservationError("seq", f"must be a whole number, not {seq!r}")
    time = _number(data, "time")
    if not isinstance(data["stable"], bool):
        raise ObservationError("stable", f"must be true or false, not {data['stable']!r}")
    confidence = _probability(data["confidence"], "confidence")
    game_id = data["game"]
    if not isinstance(game_id, str):
        raise ObservationError("game", f"must be text, not {_kind(game_id)}")
    try:
        game = games(game_id)
    except InvalidPosition as err:
        raise ObservationError("game", err.message) from None
    except ImportError:
        raise ObservationError("game", f"{game_id!r} is not available in this build") from None
    player_names = data.get("player_names")
    if player_names is not None:
        if not isinstance(player_names, list):
            raise ObservationError("player_names", "must be a list of names")
        for i, name in enumerate(player_names):
            if not isinstance(name, str):
                raise ObservationError(f"player_names.{i}", f"must be text, not {_kind(name)}")
        player_names = tuple(player_names)
    options = data.get("options", options_before)
    if options is not None:
        if not isinstance(options, dict):
            raise ObservationError("options", f"must be an object, not {_kind(options)}")
        try:
            resolve_options(game.rule_options, options)
        except InvalidPosition as err:
            raise ObservationError(err.key, err.message) from None
    cache_key = (
        (game_id, canonical_json(options), canonical_json(data["position"]))
        if positions is not None else None
    )
    position = positions.get(cache_key) if positions is not None else None
    if position is None:
        try:
            position = game.position_from_json(data["position"], options)
        except InvalidPosition as err:
            key = f"position.{err.key}" if err.key else "position"
            raise ObservationError(key, err.message) from None
        if positions is not None:
            if len(positions) >= POSITION_CACHE:
                positions.clear()
            positions[cache_key] = position
    uncertain = _parse_uncertain(data.get("uncertain"), data["position"])
    unread = data.get("unread", 0)
    if isinstance(unread, bool) or not isinstance(unread, int) or unread < 0:
        raise ObservationError("unread", f"must be a whole number 0 or more, not {unread!r}")
    return Observation(
        table=table, game_id=game_id, game=game, seq=seq, time=time, stable=data["stable"],
        confidence=confidence, position=position, player_names=player_names,
        options=options, uncertain=uncertain, unread=unread, raw=data,
    )


def _parse_uncertain(value: Any, position: Any) -> tuple[Uncertain, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ObservationError("uncertain", f"must be a list, not {_kind(value)}")
    out = []
    for i, item in enumerate(value):
        key = f"uncertain.{i}"
        if not isinstance(item, dict):
            raise ObservationError(key, f"must be an object, not {_kind(item)}")
        for name in ("path", "confidence"):
            if name not in item:
                raise ObservationError(f"{key}.{name}", "missing")
        path = _resolve_path(item["path"], position, f"{key}.path")
        confidence = _probability(item["confidence"], f"{key}.confidence")
        alternatives = item.get("alternatives", [])
        if not isinstance(alternatives, list):
            raise ObservationError(f"{key}.alternatives", "must be a list of [value, p]")
        alts = []
        for j, alt in enumerate(alternatives):
            akey = f"{key}.alternatives.{j}"
            if not isinstance(alt, list) or len(alt) != 2:
                raise ObservationError(akey, "must be a pair [value, probability]")
            alts.append((alt[0], _probability(alt[1], akey)))
        out.append(Uncertain(path, confidence, tuple(alts)))
    return tuple(out)


def _resolve_path(text: Any, position: Any, key: str) -> tuple[str | int, ...]:
    """A dotted path into the position JSON -> its parts (list indices as ints)."""
    if not isinstance(text, str) or not text:
        raise ObservationError(key, "must be a dotted path into the position")
    parts: list[str | int] = []
    node = position
    for part in text.split("."):
        if isinstance(node, dict) and part in node:
            parts.append(part)
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            parts.append(int(part))
            node = node[int(part)]
        else:
            raise ObservationError(key, f"{text!r} names no element of the position")
    return tuple(parts)


class ObservationReader:
    """Parses a stream of lines, checking that ``seq`` strictly increases per table.

    A malformed line does not count: the next line is checked against the last good one.
    Games are looked up once per id; recent positions are kept parsed.
    """

    def __init__(self, games: Callable[[str], Game] = get_game):
        self._lookup = games
        self._games: dict[str, Game] = {}
        self._positions: dict[tuple[str, str, str], Position] = {}
        self.last_seq: dict[str, int] = {}
        self.options: dict[str, Mapping[str, Any]] = {}  # table -> the options last given

    def _game(self, game_id: str) -> Game:
        game = self._games.get(game_id)
        if game is None:
            game = self._games[game_id] = self._lookup(game_id)
        return game

    def parse(self, text: str | bytes | Mapping[str, Any]) -> Observation:
        data = load_json(text) if isinstance(text, str | bytes) else text
        table = data.get("table") if isinstance(data, Mapping) else None
        before = self.options.get(table) if isinstance(table, str) else None
        obs = parse_observation(data, self._game, self._positions, before)
        last = self.last_seq.get(obs.table)
        if last is not None and obs.seq <= last:
            raise ObservationError(
                "seq", f"{obs.seq} is not greater than {last}, the last seq of table "
                f"{obs.table!r} (seq must strictly increase per table)"
            )
        self.last_seq[obs.table] = obs.seq
        if obs.options is not None:
            self.options[obs.table] = obs.options
        return obs



# --------------------------------------------------------------------------- events

EVENT_KEYS: dict[str, tuple[str, ...]] = {
    "move": ("seq", "ply", "player", "move"),
    "violation": ("seq", "player", "rule", "message"),
    "corrected": ("seq",),
    "win": ("seq", "winners", "condition"),
    "draw": ("seq", "reason"),
    "unclear": ("seq", "message"),
    # information (the spec allows added types; readers ignore those they do not know)
    "forced-win": ("seq", "player", "line"),
}


def _event(kind: str, table: str, **keys: Any) -> dict[str, Any]:
    assert tuple(keys) == EVENT_KEYS[kind], (kind, tuple(keys))
    return {"event": kind, "table": table, **keys}


def move_event(table: str, seq: int, ply: int, player: int | None, move: str) -> dict:
    return _event("move", table, seq=seq, ply=ply, player=player, move=move)


def violation_event(table: str, seq: int, player: int | None, rule: str, message: str) -> dict:
    return _event("violation", table, seq=seq, player=player, rule=rule, message=message)


def corrected_event(table: str, seq: int) -> dict:
    return _event("corrected", table, seq=seq)


def win_event(table: str, seq: int, winners: list[int], condition: str) -> dict:
    return _event("win", table, seq=seq, winners=list(winners), condition=condition)


def draw_event(table: str, seq: int, reason: str) -> dict:
    return _event("draw", table, seq=seq, reason=reason)


def unclear_event(table: str, seq: int, message: str) -> dict:
    return _event("unclear", table, seq=seq, message=message)


def forced_win_event(table: str, seq: int, player: int, line: list[str]) -> dict:
    return _event("forced-win", table, seq=seq, player=player, line=list(line))


def event_json(event: Mapping[str, Any]) -> str:
    """One event as a JSONL line (without the newline)."""
    return json.dumps(event, ensure_ascii=False)
