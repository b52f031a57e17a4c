"""The one command-line entry point, ``domino-companion`` (also ``python -m companion``).

Each sub-command lives in the module that owns its work. A command module defines
``configure(parser)`` (its arguments) and ``run(args) -> int`` (its exit status). Add a command
by adding one row to :data:`COMMANDS`.

Exit status: 0 success, 2 bad input (with a message on stderr saying what was wrong and what
would be right), 1 an internal failure.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading
from pathlib import Path
from typing import Sequence

from companion.errors import DominoError

#: name -> (module, one-line help). Modules are imported only when their command runs
#: (and for --help).
COMMANDS: dict[str, tuple[str, str]] = {
    "markers": ("calibration.markers", "write the printable sheet of the four table-corner markers"),
    "calibrate": ("calibration.calibrate", "calibrate the table from its four markers: size, camera pose, preview"),
    "demo": ("companion.demo", "the main job on its embedded defaults: play a bundled game"),
    "replay": ("companion.replay", "fold a game log and print the scores as JSON"),
    "simulate": ("companion.simulate", "play seeded random legal games and print a summary"),
    "bench": ("companion.bench", "benchmark the rules core: games per second, time per move"),
    "render": ("vision.render.cli", "render synthetic table scenes with ground truth (PNG + JSON)"),
    "run": ("companion.livecmd", "the live companion: camera, rules and dashboard together"),
    "serve": ("companion.serve", "serve the tablet dashboard (waitress) on a stored game"),
    "read": ("vision.read", "read the tiles in a photo of the table (JSON with --json)"),
    "count": ("vision.count", "count the tiles and pips in a photo of a hand"),
    "evaluate": ("vision.evaluate", "measure detection and pip reading on rendered and real photos"),
    "layers-eval": ("vision.render.layerbench", "measure tile layers (stacks) on rendered held-out scenes"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="domino-companion",
        description="A camera companion for real domino games: reads the table, checks the "
                    "rules, keeps the score.")
    from companion import __version__
    parser.add_argument("--version", action="version", version=f"domino-companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if only is None or only == name:
            importlib.import_module(module).configure(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    if command is not None and command not in COMMANDS:
        print(f"domino-companion: unknown command {command!r}; commands: {', '.join(COMMANDS)}",
              file=sys.stderr)
        return 2
    parser = build_parser(only=command)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    module = importlib.import_module(COMMANDS[args.command][0])
    previous = _stop_on_terminate()
    try:
        return int(module.run(args) or 0)
    except DominoError as exc:
        print(f"domino-companion {args.command}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        # a path the command cannot write or read (an output folder that is a file, a
        # read-only place, a port in use...): said plainly, not as a traceback
        print(f"domino-companion {args.command}: {os_problem(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _stop_on_terminate() -> object:
    """Make SIGTERM (``kill``, ``timeout``, a service manager stopping the companion) stop a
    command the way Ctrl-C does, so its ``finally`` blocks run: the game log is closed and the
    demo's temporary folder removed (the default action ends the process on the spot). Returns
    the handler it replaced, or None when not on the main thread (signals cannot be set there)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _terminated)


def os_problem(exc: OSError) -> str:
    """What went wrong with a file, folder or port, in words, and what to do."""
    what = exc.strerror or str(exc)
    if exc.filename is None:
        return f"{what} (the system refused an operation; check the paths and ports given)"
    where = exc.filename if exc.filename2 is None else f"{exc.filename} -> {exc.filename2}"
    return (f"cannot use {where}: {what}; give a path whose folder exists and that you may "
            "write to (or read, for an input)")


def path_arg(text: str) -> Path:
    """An argparse ``type`` for a file or folder option: the path, or an error for an empty one
    (``--out ""`` from an unset shell variable would otherwise mean the current folder)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path; give a file or folder name (use . for "
                                         "the current folder)")
    return Path(text)
