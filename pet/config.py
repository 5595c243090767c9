"""Settings: defaults < $PET_HOME/config.toml < PET_* environment variables < flags.

Every key of `Settings` can be set in each layer: `port` is `port = 7860` in
the file, `PET_PORT=7860` in the environment and `--port 7860` on the command
line (for the keys the command line offers).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from pet.errors import ConfigError

DEFAULT_HOME = Path("~/.pet")
#: "auto" and the kinds of pet.brain.select.BRAIN_KINDS (config cannot import brains)
BRAINS = ("auto", "server", "embedded")
#: the rungs of pet.brain.ladder.RUNGS, smallest first
EMBEDDED_MODELS = ("tiny", "small", "medium")


@dataclass(frozen=True)
class Settings:
    home: Path = DEFAULT_HOME
    #: SQLAlchemy URL; empty means the SQLite file <home>/pet.db
    database_url: str = ""
    brain: str = "auto"
    base_url: str = "http://127.0.0.1:11434/v1"
    model: str = "qwen2.5:3b"
    api_key: str = "not-needed"
    connect_timeout: float = 5.0
    read_timeout: float = 120.0
    retries: int = 2
    #: the longest reply a server model may write in one call
    max_reply_tokens: int = 1024
    #: how long `--brain auto` waits for the server before choosing embedded
    probe_timeout: float = 2.0
    #: the packaged model the embedded brain runs: "tiny" (SmolLM2-135M),
    #: "small" (Qwen2.5-Coder-0.5B) or "medium" (Qwen2.5-Coder-1.5B, an
    #: optional install); see the README
    embedded_model: str = "small"
    #: a GGUF file to run instead of the packaged model
    embedded_model_path: str = ""
    #: tokens; the tools section takes ~1,300 of them, history a quarter
    embedded_context: int = 4096
    #: llama.cpp threads; 0 picks them at load from the cores that are free
    #: (two threads on two busy cores ran many times slower than one)
    embedded_threads: int = 0
    host: str = "127.0.0.1"
    port: int = 7860
    #: a persona name from assets/personas/ or a path to a .toml file
    persona: str = "xiaoqian"
    max_model_calls: int = 8
    max_message_chars: int = 16_000
    #: how many earlier messages of the conversation go into the context
    history_messages: int = 20
    #: estimated tokens of earlier messages kept verbatim; beyond it (or beyond
    #: history_messages) the oldest are folded into a running summary. 2000 is
    #: 20-40 ordinary turns and, with the system prompt, tool schemas, 600
    #: tokens of memories and a reply, still fits a 4096-token window
    history_tokens: int = 2000
    #: at most this many recalled memories in the prompt, pinned ones aside
    recall_limit: int = 12
    #: estimated tokens of memories in the prompt, pinned and recalled together:
    #: pinned ones always go in, recalled ones while they fit
    memory_tokens: int = 600
    #: a reply in prose ends after this many sentences (0: no limit); -1 means
    #: 4 on the embedded brain, whose small models otherwise write essays, and
    #: no limit on a server model, which can tell a long story when asked
    reply_sentences: int = -1
    #: folder for the pet's files (todo.md, calendar.ics); empty means <home>/workspace
    workspace: str = ""
    #: precise local intents ("remember that …", "/todo …") handled without the model
    reflexes: bool = True
    #: small talk the persona has its own lines for ([[replies]] in its file: tiredness, greetings,
    #: jokes...) is answered with them: "auto" (when the brain is the embedded model, poor at small
    #: talk), "on" (any brain) or "off" (always the model); needs `reflexes` and the sentence encoder
    canned_replies: str = "auto"
    #: the first message of a day gets a greeting (days together, an older memory)
    greeting: bool = True
    #: "on": reminders and the brief fire; "paused": jobs are kept but not run
    #: (tests); "off": no scheduler, reminders are only stored
    scheduler: str = "on"
    #: a reminder that fell due while the pet was not running is still
    #: delivered (marked late) within this many minutes; older ones are
    #: reported once as missed. An hour covers a restart, an update or a
    #: laptop's nap; a reminder older than that has mostly lost its moment
    reminder_grace_minutes: int = 60
    #: "22:00-07:00" (the pet's local time): messages that can wait (missed
    #: reports, the brief) are held until it ends; reminders still fire.
    #: Empty: none
    quiet_hours: str = ""
    #: local time (HH:MM, the pet's zone) of the daily morning brief
    brief_time: str = "09:00"
    #: seconds the model may take to reword the brief before the plain one goes out
    brief_reword_timeout: float = 20.0
    log_level: str = "INFO"
    #: turn traces (Trace tab, /api/debug) kept per pet; older ones are deleted
    trace_keep: int = 500
    #: talking with the pet: "auto" (on when faster-whisper, the Whisper
    #: model, pyttsx3 and espeak-ng are installed), "on" (the same, and a
    #: missing part is logged as an error) or "off"
    voice: str = "auto"
    #: the language the pet listens for: "auto" detects it in each recording,
    #: but only among the pet's languages (left free, Whisper took short
    #: Chinese clips for German); "en", "zh", ...: always that one. Empty: auto
    speech_language: str = "auto"
    #: say a reminder aloud on this computer's speakers when it fires (not in
    #: quiet hours); it is in the inbox and on the page either way
    speak_reminders: bool = False
    #: the longest recording the pet listens to; a longer question is better typed
    max_recording_seconds: float = 120.0
    #: serve on the local network (all interfaces, HTTPS, password); set by --lan
    lan: bool = False
    #: the LAN password (PET_PASSWORD). Empty: one is generated on the first
    #: --lan start and shown once. Either way only its hash is kept (auth.json)
    password: str = field(default="", repr=False)
    #: LAN mode: requests one client address may make a minute (the page's
    #: scripts and styles not counted); 0 turns the limit off
    requests_per_minute: int = 300
    #: the largest file the chat accepts (Gradio's upload limit)
    max_upload_mb: int = 10
    #: the largest request body on any other route; a 16,000-character
    #: message with a long history fits many times over
    max_body_kb: int = 2048
    #: when side-effect tools (remember, forget, reminders, files, shell) wait
    #: for the person's "yes": "lan" (when the pet serves the network),
    #: "always" or "never". A call made while a tool's output is in view is
    #: confirmed in every mode: tool output is data, never instructions
    confirm_tools: str = "lan"
    #: read_file, write_file and list_dir, confined to the workspace folder
    file_tools: bool = True
    #: the shell tool: runs allow-listed programs in the workspace; off unless turned on
    shell: bool = False
    #: the programs the shell tool may run, by name. Left out on purpose: any
    #: that run other programs (sh, env, find, xargs, sort --compress-program)
    shell_programs: str = "ls,cat,head,tail,wc,grep,date,echo"
    #: seconds a shell program may run before it is stopped
    shell_timeout: float = 10.0
    #: load the Python files in <home>/tools/ as extra tools at start-up
    plugins: bool = True
    #: plugins run any code their files hold; in LAN mode they stay off
    #: unless this says the person trusts them there too
    plugins_on_lan: bool = False

    @property
    def database(self) -> str:
        """The SQLAlchemy URL actually used."""
        return self.database_url or f"sqlite:///{self.home / 'pet.db'}"

    @property
    def workspace_dir(self) -> Path:
        return Path(self.workspace).expanduser().resolve() if self.workspace else self.home / "workspace"

    @property
    def database_path(self) -> Path | None:
        """The database file, when the database is a SQLite file."""
        url = self.database
        if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
            return Path(url.removeprefix("sqlite:///"))
        return None


_FIELDS = {f.name: f for f in fields(Settings)}
SCHEDULER_MODES = ("on", "paused", "off")
CONFIRM_MODES = ("lan", "always", "never")
VOICE_MODES = ("auto", "on", "off")
CANNED_MODES = ("auto", "on", "off")
_QUIET = re.compile(r"\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*")


def quiet_window(text: str) -> tuple[dt.time, dt.time] | None:
    """Read `quiet_hours` ("22:00-07:00"): (start, end) local times, None when
    empty. A window may pass midnight."""
    if not text.strip():
        return None
    match = _QUIET.fullmatch(text)
    hours = (int(match[1]), int(match[3])) if match else (99, 99)
    if match is None or max(hours) > 23 or int(match[2]) > 59 or int(match[4]) > 59:
        raise ConfigError(f"quiet_hours should look like 22:00-07:00 (24-hour, local), got {text!r}")
    start, end = dt.time(hours[0], int(match[2])), dt.time(hours[1], int(match[4]))
    if start == end:
        raise ConfigError(f"quiet_hours {text!r} starts and ends at the same time; leave it empty for none")
    return start, end


def _coerce(key: str, value: Any, source: str) -> Any:
    kind = _FIELDS[key].type
    try:
        if kind == "Path":
            return Path(str(value))
        if kind == "bool":
            if isinstance(value, bool):
                return value
            word = str(value).strip().lower()
            if word in ("1", "true", "yes", "on"):
                return True
            if word in ("0", "false", "no", "off"):
                return False
            raise ValueError("true or false (on/off)")
        if kind in ("int", "float") and (isinstance(value, bool) or not isinstance(value, (int, float, str))):
            raise ValueError("a number")
        if kind == "int":
            if isinstance(value, float):
                raise ValueError("a whole number")
            return int(value)
        if kind == "float":
            return float(value)
        return str(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{source}: '{key}' should be {kind}, got {value!r} ({exc})") from None


def _absolute(path: Path) -> Path:
    return path.expanduser().resolve()


def _check_workspace(settings: Settings) -> None:
    """The file and shell tools reach everything in the workspace, so it must
    not hold the pet's own files (its database, password hash, config)."""
    workspace = settings.workspace_dir.resolve()
    database = settings.database_path
    if database is not None and not database.is_absolute():
        database = settings.home / database
    for what, place in (("the pet's home folder", settings.home), ("the database", database)):
        if place is not None and place.resolve().is_relative_to(workspace):
            raise ConfigError(f"workspace {workspace} holds {what} ({place}), which the file tools must not reach; "
                              f"pick a folder of its own, or leave workspace empty for {settings.home / 'workspace'}")


def load_settings(
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Merge the layers. `flags` holds command-line values; None means unset."""
    environ = os.environ if environ is None else environ
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    for key in flags:
        if key not in _FIELDS:
            raise ConfigError(f"unknown setting {key!r}")

    # The home folder decides where config.toml is, so resolve it first.
    home_raw = flags.get("home") or environ.get("PET_HOME") or DEFAULT_HOME
    home = _absolute(Path(home_raw))

    values: dict[str, Any] = {}
    config_file = home / "config.toml"
    if config_file.exists():
        try:
            data = tomllib.loads(config_file.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{config_file}: not valid TOML ({exc})") from None
        for key, value in data.items():
            if key not in _FIELDS or key == "home":
                raise ConfigError(f"{config_file}: unknown key {key!r}; known keys: {', '.join(_FIELDS)}")
            values[key] = _coerce(key, value, str(config_file))

    for key in _FIELDS:
        env_key = "PET_" + key.upper()
        if env_key in environ and key != "home":
            values[key] = _coerce(key, environ[env_key], env_key)

    for key, value in flags.items():
        if key != "home":
            values[key] = _coerce(key, value, f"--{key.replace('_', '-')}")

    settings = Settings(home=home, **values)
    if settings.brain not in BRAINS:
        raise ConfigError(f"brain must be one of {', '.join(BRAINS)}, got {settings.brain!r}")
    if settings.embedded_model not in EMBEDDED_MODELS:
        raise ConfigError(
            f"embedded_model must be one of {', '.join(EMBEDDED_MODELS)}, got {settings.embedded_model!r}"
        )
    if settings.embedded_threads < 0:
        raise ConfigError(f"embedded_threads must be 0 (automatic) or more, got {settings.embedded_threads}")
    if not 0 < settings.port < 65536:
        raise ConfigError(f"port must be between 1 and 65535, got {settings.port}")
    if settings.scheduler not in SCHEDULER_MODES:
        raise ConfigError(f"scheduler must be one of {', '.join(SCHEDULER_MODES)}, got {settings.scheduler!r}")
    if settings.canned_replies not in CANNED_MODES:
        raise ConfigError(f"canned_replies must be one of {', '.join(CANNED_MODES)}, got {settings.canned_replies!r}")
    if settings.voice not in VOICE_MODES:
        raise ConfigError(f"voice must be one of {', '.join(VOICE_MODES)}, got {settings.voice!r}")
    if not re.fullmatch(r"(auto|[A-Za-z]{2,3}([-_][A-Za-z0-9]+)?)?", settings.speech_language.strip()):
        raise ConfigError(f"speech_language must be auto or a language code like en or zh, "
                          f"got {settings.speech_language!r}")
    if not settings.max_recording_seconds > 0:
        raise ConfigError(f"max_recording_seconds must be more than 0, got {settings.max_recording_seconds:g}")
    if settings.confirm_tools not in CONFIRM_MODES:
        raise ConfigError(f"confirm_tools must be one of {', '.join(CONFIRM_MODES)}, got {settings.confirm_tools!r}")
    for key in ("requests_per_minute", "max_upload_mb", "max_body_kb"):
        least = 0 if key == "requests_per_minute" else 1
        if getattr(settings, key) < least:
            raise ConfigError(f"{key} must be {least} or more, got {getattr(settings, key)}")
    if not settings.shell_timeout > 0:
        raise ConfigError(f"shell_timeout must be more than 0 seconds, got {settings.shell_timeout:g}")
    _check_workspace(settings)
    if settings.reminder_grace_minutes < 0:
        raise ConfigError(f"reminder_grace_minutes must be 0 or more, got {settings.reminder_grace_minutes}")
    quiet_window(settings.quiet_hours)
    if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", settings.brief_time):
        raise ConfigError(f"brief_time must be a 24-hour time like 09:00, got {settings.brief_time!r}")
    if not settings.brief_reword_timeout > 0:
        raise ConfigError(f"brief_reword_timeout must be more than 0 seconds, got {settings.brief_reword_timeout:g}")
    if settings.database_url.startswith("sqlite:///") and settings.database_path:
        # A relative SQLite path would silently depend on the working directory.
        path = settings.database_path
        if not path.is_absolute():
            settings = dataclasses.replace(settings, database_url=f"sqlite:///{home / path}")
    return settings


__all__ = ["Settings", "load_settings", "quiet_window", "BRAINS", "EMBEDDED_MODELS", "SCHEDULER_MODES"]


def is_safe_id(name: str) -> bool:
    """A pet or persona id that is a plain file name: ASCII letters, digits,
    - and _, not starting with - (never a path, never "..")."""
    return bool(name) and name.isascii() and name[0] != "-" and len(name) <= 64 and all(
        ch.isalnum() or ch in "-_" for ch in name
    )
