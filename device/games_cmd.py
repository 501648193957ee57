"""``tableref games``: list, show, export and import recorded games.

    tableref games list                       every record in the data folder
    tableref games show ID                    its events, as announcements
    tableref games export ID [-o FILE]        a readable move list (PGN-like tags)
    tableref games import FILE                replay an exported list with the engine and
                                              store it as a record

ID is a record's file name without ``.jsonl`` (as ``list`` prints it) or a path. The
data folder is ``--data DIR``, by default ``$XDG_DATA_HOME/tableref/games``.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", metavar="DIR", help="the records' folder")
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    sub.add_parser("list", help="list the recorded games")
    show = sub.add_parser("show", help="show a game's events")
    show.add_argument("id")
    show.add_argument("--json", action="store_true", help="the events as JSONL")
    export = sub.add_parser("export", help="a game as a readable move list")
    export.add_argument("id")
    export.add_argument("-o", "--output", metavar="FILE", help="write here, not to stdout")
    imp = sub.add_parser("import", help="replay an exported move list and store it")
    imp.add_argument("file", help="an exported move list, or - for standard input")


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from rules.records import RecordError, default_data_dir

    data = Path(args.data) if args.data else default_data_dir()
    try:
        return _ACTIONS[args.action](args, data)
    except RecordError as err:
        print(f"tableref games: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        print(f"tableref games: {err.filename or ''}: {err.strerror or err}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print("tableref games: the file is not UTF-8 text", file=sys.stderr)
        return 2


def _list(args, data) -> int:
    from rules.records import list_records

    records = list_records(data)
    if not records:
        print(f"no recorded games in {data}")
        return 0
    for r in records:
        h = r.header
        players = ", ".join(h.get("players") or []) or "-"
        print(f"{r.id}  {h.get('game')}  table {h.get('table')}  {h.get('date')}  "
              f"players: {players}  moves: {len(r.moves)}  result: {r.result}")
    return 0


def _show(args, data) -> int:
    from device.announce import announce
    from rules.observation import event_json
    from rules.records import find_record, read_record

    record = read_record(find_record(data, args.id))
    h = record.header
    if not args.json:
        print(f"{h.get('game')} at table {h.get('table')}, {h.get('date')}")

    class Names:
        player_names = h.get("players")

    for event in record.events:
        print(event_json(event) if args.json else announce(event, Names))
    return 0


def _export(args, data) -> int:
    from rules.records import export_text, find_record, read_record

    text = export_text(read_record(find_record(data, args.id)))
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        print(text, end="")
    return 0


def _import(args, data) -> int:
    import sys

    from rules.records import import_text, write_imported

    if args.file == "-":
        text = sys.stdin.read()
    else:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
    imported = import_text(text)
    path = write_imported(imported, data)
    print(f"imported {len(imported.board.move_stack)} moves, result {imported.result}: "
          f"{path.stem}")
    return 0


_ACTIONS = {"list": _list, "show": _show, "export": _export, "import": _import}
