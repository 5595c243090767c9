"""Command line: `python run.py [command] [flags]` (also `python -m pet`)."""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import os
import sys
import time
from pathlib import Path
from typing import Sequence

from pet import __version__
from pet.config import BRAINS, EMBEDDED_MODELS, Settings, load_settings
from pet.errors import PetError, StorageError

log = logging.getLogger(__name__)

_FLAG_KEYS = ("home", "port", "brain", "model", "embedded_model", "base_url", "persona", "log_level", "workspace",
              "lan")


def _add_settings_flags(parser: argparse.ArgumentParser, *, port: bool = True, brain: bool = True) -> None:
    """The flags that shape Settings; a command gets only those that mean
    something to it (export and import neither serve nor think)."""
    parser.add_argument("--home", help="data folder (default ~/.pet; env PET_HOME)")
    if port:
        parser.add_argument("--port", type=int, help="port to serve on (default 7860)")
    if brain:
        parser.add_argument("--brain", choices=BRAINS,
                            help="auto (default): the server if it answers, else embedded")
        parser.add_argument("--model", help="model name on the server (default qwen2.5:3b)")
        parser.add_argument("--embedded-model", dest="embedded_model", choices=EMBEDDED_MODELS,
                            help="the packaged model of the embedded brain (default small)")
        parser.add_argument("--base-url", dest="base_url", help="OpenAI-compatible server (default Ollama's)")
        parser.add_argument("--persona", help="persona name in assets/personas or a .toml path")
    parser.add_argument("--log-level", dest="log_level", help="DEBUG, INFO, WARNING, ERROR")


def _add_lan_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lan", action="store_true",
                        help="serve phones on the local network: all interfaces, HTTPS, a password "
                        "(PET_PASSWORD, or one made and shown once)")


def build_parser() -> argparse.ArgumentParser:
    # argument_default=SUPPRESS: an unset flag leaves no attribute, so the
    # subcommand's flags do not overwrite `pet --port 1 run` with None.
    parser = argparse.ArgumentParser(
        prog="python run.py",
        argument_default=argparse.SUPPRESS,
        description="A local-first AI pet companion. Without a command, runs the pet's web chat.",
    )
    parser.add_argument("--version", action="version", version=f"pet {__version__}")
    _add_settings_flags(parser)
    _add_lan_flag(parser)
    commands = parser.add_subparsers(dest="command", metavar="command")
    run = commands.add_parser(
        "run", help="serve the chat in the browser (the default)", argument_default=argparse.SUPPRESS,
        description="Serve the pet's chat page and API on one port (http://127.0.0.1:7860 by default), "
        "with its reminders and morning brief, until Ctrl+C. --lan serves phones on the local network.",
    )
    _add_settings_flags(run)
    _add_lan_flag(run)
    _add_bench_parser(commands)
    _add_portable_parsers(commands)
    _add_brief_parser(commands)
    _add_chat_parser(commands)
    _add_doctor_parser(commands)
    return parser


def _day(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a day as YYYY-MM-DD: {text!r}") from None


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def _add_bench_parser(commands: argparse._SubParsersAction) -> None:
    bench = commands.add_parser("bench", help="measure the pet (see `python run.py bench tools --help`)",
                                argument_default=argparse.SUPPRESS)
    suites = bench.add_subparsers(dest="suite", metavar="suite", required=True)
    tools = suites.add_parser(
        "tools", argument_default=argparse.SUPPRESS,
        help="tool use: right tool, right arguments, restraint, honest claims",
        description="Run the tool-use cases and print a table per brain and reflex mode.",
    )
    tools.add_argument("--reflexes", choices=("on", "off", "both"), default="both",
                       help="run with reflexes on, off, or both (default: both, two tables)")
    tools.add_argument("--model", dest="models", action="append", default=[], metavar="NAME",
                       help="a model on the server to benchmark; repeat to compare "
                       "(default: the active brain)")
    tools.add_argument("--brain", choices=BRAINS, help="which brain when no --model is given")
    tools.add_argument("--base-url", dest="base_url", help="OpenAI-compatible server (default Ollama's)")
    tools.add_argument("--cases", type=Path, default=None,
                       help="a JSONL case file (default assets/evals/tools.jsonl)")
    tools.add_argument("--limit", type=_positive_int, default=None,
                       help="run only N cases, taken in turns from each category and language")
    tools.add_argument("--today", type=_day, default=None, metavar="YYYY-MM-DD",
                       help="the day the cases' world is on (their `at` times count from it; "
                       "default 2026-11-29), at 10:15 in Asia/Shanghai")
    tools.add_argument("--json", dest="json_path", type=Path, default=None, metavar="FILE",
                       help="write every case's calls, reply and verdict to FILE")
    tools.add_argument("--log-level", dest="log_level", help="DEBUG, INFO, WARNING (default), ERROR")
    memory = suites.add_parser(
        "memory", argument_default=argparse.SUPPRESS,
        help="facts noted without \"remember\": precision, recall, contradictions, recall@5",
        description="Note the facts of each case as the chat would, then ask the questions.",
    )
    memory.add_argument("--cases", type=Path, default=None, help="a JSONL case file (default assets/evals/memory.jsonl)")
    memory.add_argument("--questions", type=Path, default=None,
                        help="a JSONL question file (default assets/evals/memory_questions.jsonl)")
    memory.add_argument("--verbose", action="store_true", default=False, help="list every miss")
    memory.add_argument("--log-level", dest="log_level", help="DEBUG, INFO, WARNING (default), ERROR")
    chat = suites.add_parser(
        "chat", argument_default=argparse.SUPPRESS,
        help="everyday chat: language, echoes, recitals, assistant-speak, name, length, speed",
        description="Send everyday messages to the real agent (a fresh home each) and judge the replies in code.",
    )
    chat.add_argument("--model", dest="bench_model", default=None, metavar="NAME",
                      help="an embedded rung (tiny, small, medium); with --base-url, a model on the server")
    chat.add_argument("--base-url", dest="base_url", help="an OpenAI-compatible server to benchmark instead")
    chat.add_argument("--cases", type=Path, default=None,
                      help="a JSONL case file (default assets/evals/chat.jsonl)")
    chat.add_argument("--limit", type=_positive_int, default=None, help="run only the first N cases")
    chat.add_argument("--json", dest="json_path", type=Path, default=None, metavar="FILE",
                      help="write every case's reply and verdict to FILE")
    chat.add_argument("--log-level", dest="log_level", help="DEBUG, INFO, WARNING (default), ERROR")


def bench(args: argparse.Namespace, settings: Settings) -> int:
    if args.suite == "chat":
        import dataclasses

        from pet.evals.chat import bench_chat

        if getattr(args, "base_url", None):
            settings = dataclasses.replace(settings, brain="server")
        return bench_chat(settings, model=args.bench_model, cases_path=args.cases, limit=args.limit,
                          json_path=args.json_path)
    from pet.evals.bench import bench_tools

    if args.suite == "memory":
        from pet.evals.memory import bench_memory

        return bench_memory(args.cases, args.questions, verbose=args.verbose)

    return bench_tools(settings, models=args.models, reflexes=args.reflexes, cases_path=args.cases,
                       limit=args.limit, json_path=args.json_path, today=args.today)


def _add_portable_parsers(commands: argparse._SubParsersAction) -> None:
    for name, help_text in (("export", "write everything the pet keeps to a JSON file"),
                            ("import", "merge a JSON file made by `python run.py export` into this home")):
        command = commands.add_parser(name, help=help_text, description=help_text,
                                      argument_default=argparse.SUPPRESS)
        command.add_argument("file", type=Path, metavar="FILE", help="the JSON file")
        _add_settings_flags(command, port=False, brain=False)


def export(args: argparse.Namespace, settings: Settings) -> int:
    from pet.memory.db import open_database
    from pet.memory.portable import export_to

    if settings.database_path is not None and not settings.database_path.exists():
        raise StorageError(f"no database at {settings.database_path} — nothing to export; "
                           "check --home or PET_HOME")
    db = open_database(settings.database)
    try:
        data = export_to(db, args.file)
    finally:
        db.close()
    counts = ", ".join(f"{len(rows)} {name}" for name, rows in data["tables"].items())
    print(f"exported {settings.database} to {args.file.resolve()}: {counts}")
    return 0


def import_(args: argparse.Namespace, settings: Settings) -> int:
    from pet.memory.db import open_database
    from pet.memory.portable import import_home, read_export

    tables = read_export(args.file)  # a bad file is refused before the home is created
    db = open_database(settings.database)
    try:
        report = import_home(db, tables)
    finally:
        db.close()
    print(f"imported {args.file.resolve()} into {settings.database}")
    for line in report.lines():
        print(f"  {line}")
    return 0


def _add_brief_parser(commands: argparse._SubParsersAction) -> None:
    brief = commands.add_parser(
        "brief", help="send today's morning brief (todos, calendar, reminders)",
        description="Build the morning brief from the workspace's todo.md / todo.txt and *.ics files, "
        "let the pet reword it, print it and put it in the inbox.",
        argument_default=argparse.SUPPRESS,
    )
    brief.add_argument("--now", action="store_true", default=False, help="send it at once")
    brief.add_argument("--plain", action="store_true", default=False, help="skip the model's rewording")
    brief.add_argument("--workspace", help="folder with todo.md and calendar.ics (default <home>/workspace)")
    _add_settings_flags(brief, port=False)


def brief(args: argparse.Namespace, settings: Settings) -> int:
    if not args.now:
        print(f"python run.py brief: add --now to send today's brief at once (the daily one goes out at "
              f"{settings.brief_time} while `python run.py` is up)", file=sys.stderr)
        return 2
    from pet.app import build
    from pet.scheduler.brief import BRIEF_KIND, brief_for_app

    # No scheduler: a one-off command must not fire reminders or today's job.
    app = build(settings, scheduler="off")
    try:
        result = brief_for_app(app, app.pet.id, plain_only=args.plain)
        # asked for now, so quiet hours do not hold it
        app.inbox.add(app.pet.id, result.text, kind=BRIEF_KIND, urgent=True, now=app.clock())
    finally:
        app.close()
    print(result.text)
    if not result.reworded and not args.plain:
        print(f"(plain brief: {result.fallback})", file=sys.stderr)
    return 0


def _add_chat_parser(commands: argparse._SubParsersAction) -> None:
    chat = commands.add_parser(
        "chat", help="talk to the pet in this terminal", argument_default=argparse.SUPPRESS,
        description="Chat in the terminal with the pet running on this machine (its port on 127.0.0.1), "
        "or with one started here when none runs. /new, /debug and /quit work as in the browser.",
    )
    chat.add_argument("--url", help="a running pet's address, e.g. http://127.0.0.1:7860")
    chat.add_argument("--pet", dest="pet_name", help="which pet: its id or slug (default: the current one)")
    chat.add_argument("--conversation", type=_positive_int, help="continue this conversation (its id)")
    chat.add_argument("--local", action="store_true", default=False,
                      help="start a pet here even when one is running")
    _add_settings_flags(chat)


def chat(args: argparse.Namespace, settings: Settings) -> int:
    from pet.chat_client import ChatUnavailable, run_chat

    try:
        return run_chat(settings, url=getattr(args, "url", None), pet=getattr(args, "pet_name", None),
                        conversation_id=getattr(args, "conversation", None), local=args.local)
    except ChatUnavailable as exc:
        print(f"pet: {exc}", file=sys.stderr)
        return 1


def _add_doctor_parser(commands: argparse._SubParsersAction) -> None:
    doctor = commands.add_parser(
        "doctor", help="check the model server, models, speech, database, port and data folder",
        description="Check everything the pet needs and print, for each problem, how to fix it.",
        argument_default=argparse.SUPPRESS,
    )
    doctor.add_argument("--quick", action="store_true", default=False,
                        help="skip the checks that ask the model (a tool-call test)")
    _add_settings_flags(doctor)


def doctor(args: argparse.Namespace, settings: Settings) -> int:
    from pet.doctor import run_doctor

    return run_doctor(settings, quick=args.quick)


def _flags(args: argparse.Namespace) -> dict:
    return {key: getattr(args, key, None) for key in _FLAG_KEYS}


def _setup_logging(settings: Settings, command: str | None = None, *, level_asked: bool = False) -> None:
    """JSON lines in <home>/logs/pet.log, readable lines on the console. The
    console shows warnings only, unless a log level was asked for: the chat
    and the doctor print their own output, and the server's banner already
    says what matters (the brain and why), so turns and the scheduler's
    internals stay in the file."""
    from pet.logs import setup_logging

    setup_logging(settings.home, settings.log_level, console_level=None if level_asked else "WARNING",
                  to_file=command not in ("doctor", "export", "import"))


def run(settings: Settings) -> int:
    started = time.perf_counter()
    from pet.api.server import bind_host, check_port

    check_port(bind_host(settings), settings.port)  # before the models load: a taken port fails at once
    from pet.app import build

    print(f"data folder: {settings.home}")
    print(f"database:    {settings.database}")
    app = build(settings)
    print(f"pet:         {app.persona.full_name()} (adopted {app.adopted_on.isoformat()})")
    print(f"brain:       {app.brain.model.label} — {app.brain.reason}")
    from pet.api.server import start_in_thread

    running = start_in_thread(app)
    app.warm_ahead()  # the embedded model reads the start of its prompt while the page opens
    print(f"chat:        {running.url}  (ready in {time.perf_counter() - started:.1f} s; Ctrl+C stops)")
    if running.access is not None:
        from pet.api.lan import print_lan_banner

        print_lan_banner(running.access, running.port)
    try:
        while running.thread is not None and running.thread.is_alive():
            running.thread.join(timeout=0.5)
    except KeyboardInterrupt:
        print("stopping…")
    finally:
        running.stop()
        app.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        flags = _flags(args)
        if getattr(args, "command", None) == "bench" and flags["log_level"] is None:
            flags["log_level"] = "WARNING"  # the benchmark prints tables; a log per turn would drown them
        settings = load_settings(flags)
        level_asked = flags["log_level"] is not None or "PET_LOG_LEVEL" in os.environ
        _setup_logging(settings, getattr(args, "command", None), level_asked=level_asked)
        if getattr(args, "command", None) in (None, "run"):
            return run(settings)
        if args.command == "bench":
            return bench(args, settings)
        if args.command == "export":
            return export(args, settings)
        if args.command == "import":
            return import_(args, settings)
        if args.command == "brief":
            return brief(args, settings)
        if args.command == "chat":
            return chat(args, settings)
        if args.command == "doctor":
            return doctor(args, settings)
    except PetError as exc:
        print(f"pet: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0
