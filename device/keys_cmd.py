"""``tableref keys``: make a CURVE key pair for encrypted, authenticated streaming.

    tableref keys camera-t1                 ./camera-t1.key and ./camera-t1.key_secret
    tableref keys referee --dir /etc/tableref/keys

``NAME.key`` holds the public key: copy it into the ``allowed`` folder of every service
this machine subscribes to (and give it to subscribers that must know this server).
``NAME.key_secret`` holds both keys and never leaves the machine. Both are written with
mode 0600; existing files are never overwritten. See docs/device.md.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the key pair's name (letters, digits, - and _)")
    parser.add_argument("--dir", default=".", metavar="DIR",
                        help="where to write the two files (default: here)")


def run(args: argparse.Namespace) -> int:
    import sys

    from device.stream import StreamError, write_keypair

    try:
        public, secret = write_keypair(args.dir, args.name)
    except FileExistsError as err:
        print(f"tableref keys: {err.filename} exists; not overwritten", file=sys.stderr)
        return 1
    except StreamError as err:
        print(f"tableref keys: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"tableref keys: {err.filename or args.dir}: {err.strerror or err}",
              file=sys.stderr)
        return 2
    print(f"public key: {public}  (copy it into the allowed folder of the other side)")
    print(f"secret key: {secret}  (keep it on this machine, mode 0600)")
    return 0
