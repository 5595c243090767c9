"""`python run.py doctor`: check what the pet needs and say how to fix what is wrong.

Each check reads; none changes the home (the database is opened read-only,
never migrated). Problems come with the command or setting that fixes them.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable, Literal

from pet.config import Settings

Status = Literal["ok", "warn", "fail", "skip"]
_MARK = {"ok": "✓", "warn": "!", "fail": "✗", "skip": "·"}
#: seconds the tool-call test may take (a 3B model on a CPU needs a while)
TOOL_TEST_TIMEOUT = 60.0
RECOMMENDED_MODEL = "qwen2.5:3b"


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""

    def lines(self) -> list[str]:
        out = [f"{_MARK[self.status]} {self.name}: {self.detail}"]
        if self.fix:
            out.append(f"    fix: {self.fix}")
        return out


# --- the model server --------------------------------------------------------------------


def check_server(settings: Settings, quick: bool = False) -> list[Check]:
    from pet.brain.probe import server_models
    from pet.errors import BrainError

    url = settings.base_url
    if settings.brain == "embedded":
        return [Check("model server", "skip", "not used: the brain is set to embedded")]
    try:
        models = server_models(url, timeout=settings.probe_timeout)
    except BrainError as exc:
        status: Status = "fail" if settings.brain == "server" else "warn"
        return [
            Check(
                "model server",
                status,
                f"nothing usable answers at {url} ({exc})",
                "start Ollama (`ollama serve`), set base_url to your server, or use --brain embedded"
                + ("" if status == "fail" else " (the pet falls back to the embedded model meanwhile)"),
            )
        ]
    checks = [Check("model server", "ok", f"{url} answers; {len(models)} model(s) listed")]
    if models and settings.model not in models and f"{settings.model}:latest" not in models:
        checks.append(
            Check(
                "model present",
                "fail",
                f"the server has no model {settings.model!r} (it has: {', '.join(models[:6])})",
                f"`ollama pull {settings.model}`, or set model to one of those",
            )
        )
        return checks
    checks.append(
        Check(
            "model present",
            "ok",
            f"{settings.model}" + ("" if models else " (the server lists none; assumed present)"),
        )
    )
    checks.append(Check("tool calls", "skip", "skipped (--quick)") if quick else check_tool_calls(settings))
    return checks


def check_tool_calls(settings: Settings) -> Check:
    """Ask the model for the time with one tool offered: a model that answers
    in words instead cannot drive the pet's tools."""
    from pet.brain.parse import extract_tool_calls
    from pet.brain.select import server_brain
    from pet.errors import BrainError
    from pet.events import Message, ToolSpec

    limited = dataclasses.replace(
        settings, read_timeout=min(settings.read_timeout, TOOL_TEST_TIMEOUT), retries=0
    )
    model = server_brain(limited)
    tool = ToolSpec(
        "get_current_time",
        "Get the current local date and time.",
        {"type": "object", "properties": {}, "required": []},
    )
    messages = [
        Message("system", "You are a helpful assistant. Use a tool when one fits."),
        Message("user", "What time is it right now? Use the get_current_time tool."),
    ]
    try:
        completion = model.complete(messages, [tool], max_tokens=200)
    except BrainError as exc:
        return Check(
            "tool calls",
            "fail",
            f"the test request failed: {exc}",
            f"check the server's log; try a smaller model such as {RECOMMENDED_MODEL}",
        )
    finally:
        close = getattr(model, "close", None)
        if close is not None:
            close()
    if any(call.name == tool.name for call in completion.tool_calls):
        return Check("tool calls", "ok", f"{settings.model} called the test tool natively")
    if any(call.name == tool.name for call in extract_tool_calls(completion.text, [tool.name])):
        return Check(
            "tool calls",
            "warn",
            f"{settings.model} wrote the tool call as text (the pet reads it, less reliably)",
            f"a model with native tool calls works better, e.g. {RECOMMENDED_MODEL}",
        )
    said = " ".join(completion.text.split())[:80]
    return Check(
        "tool calls",
        "fail",
        f"{settings.model} answered without calling the tool ({said!r})",
        f"pick a model trained for tool calls: `ollama pull {RECOMMENDED_MODEL}` and set model to it",
    )


# --- the embedded model --------------------------------------------------------------------


def check_embedded(settings: Settings) -> list[Check]:
    """Which embedded model runs (a rung of the ladder, or a file given by
    path), whether its file or parts are there, and how to get a better brain."""
    from pet.brain import ladder
    from pet.brain.gguf import GGUFError, read_gguf_info

    needed: Status = "fail" if settings.brain == "embedded" else "warn"
    rung = ladder.RUNGS[settings.embedded_model]
    better = ladder.bigger(rung)
    advice = f"for real conversations {ladder.SERVER_ADVICE}" + (
        f"; or the {better.key} embedded model: `{better.install}`, then embedded_model = \"{better.key}\""
        if better else ""
    )
    checks = []
    if settings.embedded_model_path:
        path = Path(settings.embedded_model_path).expanduser()
        if not path.is_file():
            checks.append(Check("embedded model", needed, f"no model file at {path} (embedded_model_path)",
                                "set embedded_model_path to a GGUF file, or leave it empty for the packaged "
                                f"{rung.key} model (`{rung.install}`)"))
        else:
            try:
                name = read_gguf_info(path).name or "no name in its header"
            except (GGUFError, OSError) as exc:
                checks.append(Check("embedded model", needed, f"{path} is not a usable GGUF file ({exc})",
                                    "set embedded_model_path to a GGUF file, or leave it empty"))
            else:
                checks.append(Check("embedded model", "ok", f"{path.name} ({name}, "
                                    f"{path.stat().st_size / 1e6:.0f} MB), from embedded_model_path", advice))
    else:
        missing = ladder.missing_parts(rung)
        if missing:
            numbers = f" (part {', '.join(str(rung.parts.index(p) + 1) for p in missing)} of {len(rung.parts)})" \
                if len(rung.parts) > 1 else ""
            checks.append(Check("embedded model", needed, f"{rung.key}: {rung.title} is not installed{numbers}",
                                f"`pip install {' '.join(p.requirement for p in missing)}`, or set "
                                "embedded_model to a model that is installed"))
        else:
            ready = ladder.is_ready(rung, settings.home)
            where = "" if len(rung.parts) == 1 else (
                f"; file {ladder.joined_path(rung, settings.home)}" if ready else
                f"; joined into {settings.home / ladder.MODELS_DIR} on first use ({rung.size / 1e6:.0f} MB)")
            checks.append(Check("embedded model", "ok", f"{rung.key}: {rung.title} — {rung.summary}{where}", advice))
    if importlib.util.find_spec("llama_cpp") is None:
        checks.append(
            Check(
                "llama.cpp",
                needed,
                "llama-cpp-python is not installed",
                "`pip install llama-cpp-python` (builds for about 8 minutes)",
            )
        )
    return checks


# --- speech ------------------------------------------------------------------------------------


def check_speech(settings: Settings) -> list[Check]:
    checks = []
    try:
        from pet.speech.models import BASE_INSTALL, base_model_dir, base_sources, is_assembled, tiny_en_dir
    except ImportError as exc:
        return [Check("speech", "skip", f"this build has no speech support ({exc})")]
    if importlib.util.find_spec("faster_whisper") is None:
        checks.append(
            Check(
                "speech to text",
                "warn",
                "faster-whisper is not installed",
                "`pip install faster-whisper` to talk to the pet",
            )
        )
    folder = base_model_dir(settings.home)
    if is_assembled(folder):
        checks.append(Check("whisper base model", "ok", f"ready in {folder}"))
    elif base_sources() is not None:
        checks.append(
            Check(
                "whisper base model",
                "ok",
                "installed; joined into the data folder at the first voice message",
            )
        )
    elif tiny_en_dir() is not None:
        checks.append(
            Check(
                "whisper base model",
                "warn",
                "missing; voice falls back to English-only tiny",
                f"for Chinese speech: {BASE_INSTALL}",
            )
        )
    else:
        checks.append(Check("whisper base model", "warn", "no speech model installed", BASE_INSTALL))
    checks.append(check_espeak())
    return checks


def check_espeak() -> Check:
    fix = "install espeak-ng (Debian/Ubuntu: `sudo apt install espeak-ng`; macOS: `brew install espeak-ng`)"
    binary = shutil.which("espeak-ng")
    if binary is None:
        return Check("text to speech", "warn", "espeak-ng is not installed: the pet cannot speak", fix)
    try:
        done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("text to speech", "warn", f"espeak-ng does not run ({exc})", fix)
    if done.returncode != 0:
        return Check(
            "text to speech", "warn", f"`espeak-ng --version` failed: {done.stderr.strip()[:80]}", fix
        )
    version = re.search(r"\d+\.\d+(?:\.\d+)?", done.stdout)
    found = f"espeak-ng {version[0] if version else '(unknown version)'}"
    if importlib.util.find_spec("pyttsx3") is None:
        # the chat's voice runs espeak-ng itself; pyttsx3 plays reminders through the speakers
        return Check("text to speech", "warn", f"{found}, but pyttsx3 is not installed: reminders "
                     "cannot be spoken aloud (speak_reminders)", "`pip install pyttsx3`")
    return Check("text to speech", "ok", found)


# --- the database --------------------------------------------------------------------------------


def check_database(settings: Settings) -> list[Check]:
    from pet.memory.db import SCHEMA_VERSION

    path = settings.database_path
    if path is None:
        return [
            Check(
                "database",
                "skip",
                f"{settings.database.split('://')[0]} database: checked when the pet starts",
            )
        ]
    if not path.exists():
        return [Check("database", "ok", f"{path} does not exist yet; the first start creates it")]
    try:
        # as_uri() escapes "#", "?" and "%" in the path: raw, they would cut it
        # short, and mode=ro would be lost (sqlite would create a stray file)
        connection = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=10)
    except sqlite3.Error as exc:
        return [Check("database", "fail", f"cannot open {path}: {exc}", _database_fix(path))]
    try:
        result = [row[0] for row in connection.execute("PRAGMA integrity_check").fetchall()]
        version = connection.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
    except sqlite3.Error as exc:
        return [
            Check("database", "fail", f"{path} is not a readable pet database: {exc}", _database_fix(path))
        ]
    finally:
        connection.close()
    checks = []
    if result != ["ok"]:
        checks.append(
            Check("database integrity", "fail", f"{path}: {'; '.join(result[:3])}", _database_fix(path))
        )
    else:
        checks.append(Check("database integrity", "ok", f"{path} ({path.stat().st_size / 1e6:.1f} MB)"))
    if version is None or version < SCHEMA_VERSION:
        checks.append(
            Check(
                "schema version",
                "ok",
                f"{version or 0}; the next start upgrades it to "
                f"{SCHEMA_VERSION} (back it up first: `python run.py export backup.json`)",
            )
        )
    elif version > SCHEMA_VERSION:
        checks.append(
            Check(
                "schema version",
                "fail",
                f"{version}, newer than this program ({SCHEMA_VERSION})",
                "upgrade pet, or use another --home",
            )
        )
    else:
        checks.append(Check("schema version", "ok", str(version)))
    return checks


def _database_fix(path: Path) -> str:
    return (
        f"if you have an export, move {path.name} away and `python run.py import` it into a fresh home; otherwise "
        f"try `sqlite3 {path} .recover | sqlite3 recovered.db`"
    )


# --- the port and the data folder ------------------------------------------------------------------


def check_port(settings: Settings) -> Check:
    from pet.api.server import port_is_free
    from pet.chat_client import running_pet

    host, port = settings.host, settings.port
    if port_is_free(host, port):
        return Check("port", "ok", f"{host}:{port} is free")
    health = running_pet(f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}")
    if health is not None:
        return Check(
            "port",
            "ok",
            f"a pet is already running on {host}:{port} ({health.get('pet')}); `python run.py chat` talks to it",
        )
    return Check(
        "port",
        "fail",
        f"{host}:{port} is taken by another program",
        f"stop that program, or start with --port {port + 1} (or set port in config.toml)",
    )


def check_home(settings: Settings) -> list[Check]:
    home = settings.home
    if not home.exists():
        parent = next((p for p in home.parents if p.exists()), None)
        if parent is not None and os.access(parent, os.W_OK | os.X_OK):
            return [Check("data folder", "ok", f"{home} does not exist yet; the first start creates it")]
        return [
            Check(
                "data folder",
                "fail",
                f"{home} does not exist and {parent} is not writable",
                "point --home (or PET_HOME) at a folder you can write",
            )
        ]
    if not home.is_dir():
        return [
            Check(
                "data folder",
                "fail",
                f"{home} is a file, not a folder",
                "move it away or choose another --home",
            )
        ]
    checks = [_writable(home)]
    for sub in ("logs", "tools", "personas", "workspace"):
        folder = home / sub
        if folder.exists() and folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
            checks.append(
                Check(f"data folder ({sub})", "fail", f"{folder} is not writable", f"`chmod u+rwx {folder}`")
            )
    mode = stat.S_IMODE(home.stat().st_mode)
    if sys.platform != "win32" and mode & 0o077:
        checks.append(
            Check(
                "data folder privacy",
                "warn",
                f"{home} is open to other users (mode {mode:o}); it holds your conversations and memories",
                f"`chmod 700 {home}`",
            )
        )
    db = settings.database_path
    # inside a private folder the file's own mode does not matter; elsewhere it does
    exposed = mode & 0o077 or (db is not None and not db.is_relative_to(home))
    if (db is not None and db.exists() and exposed and sys.platform != "win32"
            and stat.S_IMODE(db.stat().st_mode) & 0o044):
        checks.append(
            Check("database privacy", "warn", f"{db} is readable by other users", f"`chmod 600 {db}`")
        )
    return checks


def _writable(home: Path) -> Check:
    try:
        with tempfile.NamedTemporaryFile(dir=home, prefix=".doctor-"):
            pass
    except OSError as exc:
        return Check(
            "data folder",
            "fail",
            f"cannot write in {home} ({exc.strerror or exc})",
            f"`chmod u+rwx {home}`, or point --home at a folder you can write",
        )
    return Check("data folder", "ok", f"{home} is writable")


# --- plugins ------------------------------------------------------------------------------------


def check_plugins(settings: Settings) -> list[Check]:
    from pet.tools.plugins import load_plugins, plugin_folder

    folder = plugin_folder(settings)
    if not folder.is_dir() or not any(folder.glob("*.py")):
        return [Check("plugins", "skip", f"none in {folder}")]
    found = load_plugins(settings)
    if found.off:
        return [Check("plugins", "skip", found.off)]
    checks = [Check("plugins", "ok", f"{len(found.tools)} tool(s): {', '.join(found.names()) or 'none'}")]
    checks += [
        Check("plugin", "fail", str(problem), "fix the file (or move it out of the tools folder) and restart")
        for problem in found.problems
    ]
    return checks


# --- all together ---------------------------------------------------------------------------------


def run_checks(settings: Settings, quick: bool = False) -> list[Check]:
    groups: list[tuple[str, Callable[[], list[Check] | Check]]] = [
        ("model server", lambda: check_server(settings, quick)),
        ("embedded model", lambda: check_embedded(settings)),
        ("speech", lambda: check_speech(settings)),
        ("database", lambda: check_database(settings)),
        ("port", lambda: check_port(settings)),
        ("data folder", lambda: check_home(settings)),
        ("plugins", lambda: check_plugins(settings)),
    ]
    checks: list[Check] = []
    for name, run in groups:
        try:
            result = run()
        except Exception as exc:  # a check that breaks is itself a finding, not a crash
            result = Check(
                name,
                "fail",
                f"the check itself failed: {type(exc).__name__}: {exc}",
                "please report this with the output of `python run.py doctor`",
            )
        checks.extend(result if isinstance(result, list) else [result])
    return checks


def run_doctor(settings: Settings, quick: bool = False, out: IO[str] | None = None) -> int:
    """Print every check; exit code 1 when any failed."""
    out = out or sys.stdout
    out.write(f"python run.py doctor — data folder {settings.home}\n")
    checks = run_checks(settings, quick)
    for check in checks:
        out.write("\n".join(check.lines()) + "\n")
    failed = sum(c.status == "fail" for c in checks)
    warned = sum(c.status == "warn" for c in checks)
    out.write(
        f"\n{failed} problem(s), {warned} warning(s)"
        + (" — all good" if not failed and not warned else "")
        + "\n"
    )
    return 1 if failed else 0
