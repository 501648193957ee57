"""Game records: every game the referee follows, kept on disk while it runs.

A record is a JSONL file per game in a data folder (``default_data_dir()``):

    {"record": "tableref/record/1", "game": "esoloe", "table": "t1", "date": "...Z",
     "players": ["Ann", "Bob"], "options": {...}, "resumed": false}
    {"observation": {...the observation as read...}, "events": [...]}
    ...

The first line is the header; each further line is one judged (stable) observation with
the events it yielded, written in one ``write`` and flushed. A line with events is also
``fsync``ed before the referee goes on, so a power cut loses at most the observation in
flight (an observation without events is simply judged again). A torn last line, left
by a crash in the middle of a write, is detected when the record is read, dropped with a
warning and cut off the file before anything is appended.

``Recorder.resume`` restores a table's game after a restart by replaying the recorded
observations through a fresh referee. ``export_text``/``import_text`` turn a record into
a readable move list with PGN-like tag pairs and back (see docs/referee.md).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rules.core import Board, Game, RulesError, canonical_json
from rules.observation import (
    SCHEMA,
    ObservationError,
    draw_event,
    move_event,
    parse_observation,
    win_event,
)
from rules.referee import Referee, start_state
from rules.registry import get_game

RECORD_SCHEMA = "tableref/record/1"

#: the keys of an observation the spec defines (others are extensions, kept in exports)
SPEC_KEYS = frozenset({"schema", "table", "game", "seq", "time", "stable", "confidence",
                       "position", "player_names", "options"})


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/tableref/games`` (``~/.local/share/tableref/games`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share")
    return Path(base) / "tableref" / "games"


def _warn_stderr(message: str) -> None:
    print(f"tableref: warning: {message}", file=sys.stderr)


class RecordError(RulesError):
    """A record or an exported move list that cannot be read (names line and reason)."""


# --------------------------------------------------------------------------- reading


@dataclass
class Record:
    """A record read from disk. ``good_size`` is the byte length of its complete lines."""

    path: Path
    header: dict[str, Any]
    entries: list[dict[str, Any]] = field(default_factory=list)
    good_size: int = 0
    torn: bool = False

    @property
    def id(self) -> str:
        return self.path.stem

    @property
    def events(self) -> Iterator[dict[str, Any]]:
        for entry in self.entries:
            yield from entry["events"]

    @property
    def moves(self) -> list[str]:
        out = []
        for e in self.events:
            if e.get("event") == "move":
                out.extend(e.get("moves") or [e["move"]])
        return out

    @property
    def result(self) -> str:
        """``win 0 condition``, ``win 0,2 condition``, ``draw reason`` or ``*`` (going on)."""
        for e in self.events:
            if e.get("event") == "win":
                return f"win {','.join(map(str, e['winners']))} {e['condition']}"
            if e.get("event") == "draw":
                return f"draw {e['reason']}"
        return "*"

    @property
    def last_seq(self) -> int | None:
        return self.entries[-1]["observation"]["seq"] if self.entries else None


def read_record(path: Path, warn: Callable[[str], None] = _warn_stderr) -> Record:
    """Reads a record; raises RecordError when its header is unreadable.

    A torn last line (no newline, or not JSON) is dropped with a warning; a damaged line
    in the middle is skipped with a warning.
    """
    data = Path(path).read_bytes()
    lines = data.split(b"\n")
    # every complete line ends with "\n": the piece after the last one is torn (or empty)
    complete, tail = lines[:-1], lines[-1]
    record: Record | None = None
    offset = 0
    for lineno, raw in enumerate(complete, 1):
        offset += len(raw) + 1
        try:
            item = json.loads(raw)
        except ValueError:
            item = None
        if record is None:
            if not isinstance(item, dict) or item.get("record") != RECORD_SCHEMA:
                raise RecordError(f"{path}: line 1 is not a {RECORD_SCHEMA} header")
            record = Record(Path(path), item)
        elif (isinstance(item, dict) and isinstance(item.get("observation"), dict)
              and isinstance(item.get("events"), list)):
            record.entries.append(item)
        elif lineno == len(complete) and not tail:
            record.torn = True  # a damaged last line: treat as torn, cut it off
            warn(f"{path}: line {lineno} is incomplete (the referee stopped while "
                 "writing it); dropped")
            offset -= len(raw) + 1
        else:
            warn(f"{path}: line {lineno} is damaged; skipped")
        record.good_size = offset
    if record is None:
        raise RecordError(f"{path}: empty or torn header")
    if tail:
        record.torn = True
        warn(f"{path}: the last line is incomplete (the referee stopped while writing "
             "it); dropped")
    return record


def list_records(directory: Path, warn: Callable[[str], None] = _warn_stderr) -> list[Record]:
    """Every readable record in ``directory``, oldest first (by date, then name)."""
    out = []
    directory = Path(directory)
    if not directory.is_dir():
        return out
    for path in sorted(directory.glob("*.jsonl")):
        try:
            out.append(read_record(path, warn=lambda _m: None))
        except (RecordError, OSError) as err:
            warn(f"{path}: not a game record ({err})")
    out.sort(key=lambda r: (str(r.header.get("date")), r.path.name))
    return out


def find_record(directory: Path, ident: str) -> Path:
    """A record by id (file name without .jsonl), file name or path."""
    for candidate in (Path(ident), Path(directory) / ident, Path(directory) / f"{ident}.jsonl"):
        if candidate.is_file():
            return candidate
    raise RecordError(f"no game record {ident!r} in {directory}")


# --------------------------------------------------------------------------- writing


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text)[:40] or "table"


def _iso(t: float) -> str:
    try:
        return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Recorder:
    """Writes one record per game as the referee judges; restores games on restart.

    Used as the referee's ``recorder`` and its ``resume`` hook. ``warn`` receives
    warnings (a torn line dropped, a record that replays differently).
    """

    def __init__(
        self, directory: Path | str, warn: Callable[[str], None] = _warn_stderr,
        games: Callable[[str], Game] = get_game,
    ):
        self.directory = Path(directory)
        self.games = games
        self.directory.mkdir(parents=True, exist_ok=True)
        self.warn = warn
        self._files: dict[str, Any] = {}  # table -> open file of its current game

    # -- the referee's hooks -------------------------------------------------------
    def begin(self, tg, obs, events: list[dict]) -> None:
        self._close(tg.table)
        header = {
            "record": RECORD_SCHEMA, "game": tg.game_id, "table": tg.table,
            "date": _iso(obs.time),
            "players": list(tg.player_names) if tg.player_names else None,
            "options": tg.options, "resumed": tg.resumed,
        }
        stem = f"{header['date'].replace(':', '').replace('-', '')}-{_safe(tg.table)}-{tg.game_id}"
        path = self.directory / f"{stem}.jsonl"
        n = 1
        while path.exists():
            n += 1
            path = self.directory / f"{stem}-{n}.jsonl"
        f = open(path, "xb")  # noqa: SIM115 (kept open for the game)
        self._files[tg.table] = f
        self._write(f, header, sync=False)
        self._write(f, {"observation": obs.raw, "events": events}, sync=True)
        _sync_dir(self.directory)

    def judged(self, tg, obs, events: list[dict]) -> None:
        f = self._files.get(tg.table)
        if f is not None:
            self._write(f, {"observation": obs.raw, "events": events}, sync=bool(events))

    def resume(self, table: str, obs, min_confidence: float | None = None):
        """The table's game rebuilt from its latest record, or None to begin anew.

        None when there is no record, it is of another game, or ``obs`` belongs to a
        new stream (its seq is not beyond the record and it is not in the record).
        """
        latest = [r for r in list_records(self.directory, self.warn)
                  if r.header.get("table") == table]
        if not latest:
            return None
        record = read_record(latest[-1].path, self.warn)
        if record.header.get("game") != obs.game_id or not record.entries:
            return None
        seen = {(e["observation"].get("seq"), e["observation"].get("time"))
                for e in record.entries}
        if obs.seq <= record.last_seq and (obs.seq, obs.time) not in seen:
            return None
        replay = Referee() if min_confidence is None else Referee(min_confidence)
        for i, entry in enumerate(record.entries):
            try:
                o = parse_observation(entry["observation"], self.games)
            except ObservationError as err:
                self.warn(f"{record.path}: entry {i + 1} no longer parses ({err}); skipped")
                continue
            events = replay.feed(o)
            if _strip(events) != _strip(entry["events"]):
                self.warn(f"{record.path}: observation seq {o.seq} now judges differently "
                          f"from the record")
        tg = replay.tables.get(table)
        if tg is None:
            return None
        tg.replayed = seen
        if record.torn:
            with open(record.path, "r+b") as f:
                f.truncate(record.good_size)
                os.fsync(f.fileno())
        self._close(table)
        self._files[table] = open(record.path, "ab")  # noqa: SIM115
        return tg

    # -- files --------------------------------------------------------------------
    @staticmethod
    def _write(f, item: dict, sync: bool) -> None:
        f.write((json.dumps(item, ensure_ascii=False) + "\n").encode("utf-8"))
        f.flush()
        if sync:
            os.fsync(f.fileno())

    def _close(self, table: str) -> None:
        f = self._files.pop(table, None)
        if f is not None:
            f.close()

    def close(self) -> None:
        for table in list(self._files):
            self._close(table)


def _strip(events: list[dict]) -> list[str]:
    return [canonical_json(e) for e in events if e.get("event") != "forced-win"]


def _sync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- export


def export_text(record: Record) -> str:
    """A readable move list: PGN-like tag pairs, numbered moves, the result.

    Tag values are JSON (a string, a list of names, an object of options). ``Position``
    is the position the game began from; ``Extra``, when present, the other keys of the
    observation that began it (e.g. Tyr's ``turn`` of a game resumed mid-way).
    """
    h = record.header
    first = record.entries[0]["observation"] if record.entries else {}
    tags = [
        ("Game", h.get("game")), ("Table", h.get("table")), ("Date", h.get("date")),
        ("Players", h.get("players") or []), ("Options", h.get("options") or {}),
        ("Result", record.result), ("Position", first.get("position")),
    ]
    extra = {k: v for k, v in first.items() if k not in SPEC_KEYS}
    if extra:
        tags.append(("Extra", extra))
    lines = [f"[{name} {json.dumps(value, ensure_ascii=False)}]" for name, value in tags]
    lines.append("")
    names = h.get("players") or []
    ply = 0
    for e in record.events:
        if e.get("event") != "move":
            continue
        for notation in e.get("moves") or [e["move"]]:
            ply += 1
            player = e.get("player")
            who = names[player] if isinstance(player, int) and player < len(names) else (
                f"player {player}")
            lines.append(f"{ply}. {notation}  ; {who}")
    lines.append(record.result)
    return "\n".join(lines) + "\n"


_TAG = re.compile(r"^\[([A-Za-z]+) (.*)\]$")
_MOVE = re.compile(r"^(\d+)\.\s+(.*?)\s*(?:;.*)?$")
_RESULT = re.compile(r"^(\*|win [\d,]+ \S+|draw \S+)$")


@dataclass
class ImportedGame:
    header: dict[str, Any]
    board: Board
    start_position: dict[str, Any]
    result: str
    start: dict[str, Any]  # the observation the game begins from


def import_text(text: str, games: Callable[[str], Game] = get_game) -> ImportedGame:
    """Parses an exported move list and replays it with the engine.

    Raises RecordError naming the line at fault: a tag or move that does not parse, an
    illegal move, or a result that is not the one the moves reach.
    """
    tags: dict[str, Any] = {}
    moves: list[tuple[int, str]] = []
    result = None
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if m := _TAG.match(line):
            try:
                tags[m.group(1)] = json.loads(m.group(2))
            except ValueError:
                raise RecordError(f"line {lineno}: tag {m.group(1)} is not JSON") from None
        elif m := _MOVE.match(line):
            moves.append((lineno, m.group(2)))
        elif _RESULT.match(line) and result is None:
            result = line
        else:
            raise RecordError(f"line {lineno}: neither a tag, a move nor a result: {line!r}")
    for name in ("Game", "Table"):
        if not isinstance(tags.get(name), str):
            raise RecordError(f"the tag [{name} ...] is missing")
    if "Position" not in tags:
        raise RecordError("the tag [Position ...] is missing")
    players = tags.get("Players") or []
    start = {
        **(tags.get("Extra") or {}), "schema": SCHEMA, "table": tags["Table"],
        "game": tags["Game"], "seq": 0, "time": 0, "stable": True, "confidence": 1,
        "position": tags["Position"], "options": tags.get("Options") or {},
    }
    if players:
        start["player_names"] = players
    try:
        obs = parse_observation(start, games)
        game, state = obs.game, start_state(obs.game, obs)
    except ObservationError as err:
        raise RecordError(f"the game cannot begin: {err}") from None
    except RulesError as err:
        raise RecordError(f"no game can begin from this position: {err}") from None
    board = Board(game, state)
    for lineno, text_move in moves:
        try:
            board.push(game.parse_move(text_move))
        except RulesError as err:
            raise RecordError(f"line {lineno}: move {text_move!r}: {err}") from None
    outcome = board.outcome()
    reached = "*" if outcome is None else (
        f"draw {outcome.condition}" if outcome.is_draw
        else f"win {','.join(map(str, outcome.winners))} {outcome.condition}")
    claimed = result or tags.get("Result") or "*"
    if claimed != reached:
        raise RecordError(f"the moves reach {reached!r}, not the result {claimed!r}")
    header = {
        "record": RECORD_SCHEMA, "game": game.id, "table": tags["Table"],
        "date": tags.get("Date") or _iso(0), "players": players or None,
        "options": dict(board.root.options), "resumed": not game.is_start(obs.position),
    }
    return ImportedGame(header, board, tags["Position"], reached, start)


def write_imported(imported: ImportedGame, directory: Path) -> Path:
    """Stores an imported game as a record: one observation per position, seq = ply."""
    h = imported.header
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    try:
        t0 = datetime.strptime(h["date"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
    except (TypeError, ValueError):
        t0 = 0.0
    stem = f"{str(h['date']).replace(':', '').replace('-', '')}-{_safe(h['table'])}-{h['game']}"
    path = directory / f"{stem}-imported.jsonl"
    n = 1
    while path.exists():
        n += 1
        path = directory / f"{stem}-imported-{n}.jsonl"

    def observation(seq: int, position: dict) -> dict:
        o = {"schema": SCHEMA, "table": h["table"], "game": h["game"], "seq": seq,
             "time": t0 + seq, "stable": True, "confidence": 1.0, "position": position}
        if h["players"]:
            o["player_names"] = h["players"]
        if h["options"]:
            o["options"] = h["options"]
        return o

    board = imported.board
    replay = Board(board.game, board.root)
    first = {**imported.start, "time": t0}
    lines = [h, {"observation": first, "events": []}]
    for ply, move in enumerate(board.move_stack, 1):
        player = replay.state.turn
        replay.push(move)
        events = [move_event(h["table"], ply, ply, player, move.notation())]
        out = replay.outcome()
        if out is not None:
            events.append(draw_event(h["table"], ply, out.condition) if out.is_draw
                          else win_event(h["table"], ply, list(out.winners), out.condition))
        lines.append({"observation": observation(ply, replay.position.to_json()),
                      "events": events})
    with open(path, "x", encoding="utf-8") as f:
        f.write("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
        f.flush()
        os.fsync(f.fileno())
    return path
