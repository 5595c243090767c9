"""`python run.py bench chat`: everyday messages to the real agent, judged by code.

Each case runs in a fresh home (a real SQLite file) with its memories stored
through the remember tool and the pet adopted `day` days before a fixed
clock, so the growth stage is the one the case asks for. A reply is judged
on what a person notices: the right language, not empty, not their own
words back, no recital of memories they did not ask about, no assistant's
stock phrases or refusals, the pet's name when asked, a length within the
pet's style. Time to the first shown text and to the end are measured.

Case files are JSON lines. Read leniently, so sets written by others load:
`text` (or `message`) is required; `lang`/`language` (else detected),
`memories` (strings, or objects with `content`/`text`), `day`/`days`
(default 30), `asks_name`/`asks_pet_name`, `asks_memory`, `topic`/`category`,
`id` and `expect_any` (the reply holds one of these words) are optional;
other keys are ignored.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TextIO

from pet.agent import replycheck
from pet.app import build
from pet.brain.base import ChatModel
from pet.config import Settings
from pet.evals import speak as speak_list
from pet.evals.cases import CaseFileError
from pet.evals.run import FIXED_NOW, persona_in_zone
from pet.events import Message, Reply, StreamPart, TextDelta, ToolCall, ToolSpec
from pet.persona.model import Persona, load_persona
from pet.text import detect_language
from pet.tools.registry import ToolContext

DEFAULT_CHAT_CASES = Path(__file__).resolve().parents[2] / "assets" / "evals" / "chat.jsonl"
DEFAULT_DAY = 30
#: a reply "within the style" (one to three sentences): at most this many sentences…
MAX_SENTENCES = 4
#: …and characters (a Chinese character says about as much as an English word)
MAX_CHARS = {"zh": 120, "en": 360}


@dataclass(frozen=True)
class ChatCase:
    id: str
    text: str
    lang: str
    topic: str = ""
    memories: tuple[str, ...] = ()
    day: int = DEFAULT_DAY
    asks_name: bool = False
    asks_memory: bool = False
    expect_any: tuple[str, ...] = ()
    line: int = 0


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        if isinstance(item, dict):
            item = item.get("content", item.get("text"))
        if isinstance(item, (str, int, float)) and str(item).strip():
            out.append(str(item).strip())
    return tuple(out)


def _flag(data: dict[str, Any], *keys: str) -> bool:
    return any(data.get(key) in (True, "true", "yes", 1) for key in keys)


def parse_chat_case(data: Any, line: int) -> ChatCase:
    if not isinstance(data, dict):
        raise ValueError("each line must be a JSON object")
    text = data.get("text", data.get("message"))
    if not isinstance(text, str) or not text.strip():
        raise ValueError("'text' (or 'message') must be a non-empty string")
    lang = data.get("lang", data.get("language"))
    if lang not in ("zh", "en"):
        lang = detect_language(text)
    day = data.get("day", data.get("days", DEFAULT_DAY))
    if isinstance(day, bool) or not isinstance(day, (int, float, str)) or not str(day).strip().isdigit():
        raise ValueError(f"'day' must be a whole number of days since adoption, got {day!r}")
    topic = data.get("topic", data.get("category", ""))
    return ChatCase(
        id=str(data.get("id") or f"line-{line}"),
        text=text,
        lang=lang,
        topic=topic if isinstance(topic, str) else str(topic),
        memories=_strings(data.get("memories")),
        day=int(str(day).strip()),
        asks_name=_flag(data, "asks_name", "asks_pet_name"),
        asks_memory=_flag(data, "asks_memory"),
        expect_any=_strings(data.get("expect_any")),
        line=line,
    )


def load_chat_cases(path: Path | str = DEFAULT_CHAT_CASES) -> list[ChatCase]:
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise CaseFileError(f"{path}: no such case file (the shipped one is {DEFAULT_CHAT_CASES})") from None
    except UnicodeDecodeError as exc:
        raise CaseFileError(f"{path}: not UTF-8 text ({exc})") from None
    cases = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            cases.append(parse_chat_case(json.loads(line), number))
        except json.JSONDecodeError as exc:
            raise CaseFileError(f"{path} line {number}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        except ValueError as exc:
            raise CaseFileError(f"{path} line {number}: {exc}") from None
    if not cases:
        raise CaseFileError(f"{path}: no cases in the file")
    return cases


def spread_chat(cases: list[ChatCase], limit: int | None) -> list[ChatCase]:
    """The first `limit` cases taken in turns from each topic and language, so
    that a short run still tries every kind of message."""
    if limit is None:
        return list(cases)
    seen: dict[tuple[str, str], int] = {}
    rank = []
    for index, case in enumerate(cases):
        group = (case.topic, case.lang)
        rank.append((seen.get(group, 0), index))
        seen[group] = seen.get(group, 0) + 1
    return [cases[index] for _, index in sorted(rank)[:limit]]


# --- judging ---------------------------------------------------------------------


@dataclass(frozen=True)
class ChatVerdict:
    language: bool
    empty: bool
    echo: bool
    recital: bool
    assistant: bool
    name: bool | None  # None: the case does not ask for the name
    length: bool
    expected: bool | None  # None: the case lists no expected words
    stand_in: bool  # the program's own line stood in for the model's reply
    problems: tuple[str, ...] = ()
    #: the reply is one of the persona's own lines for small talk (pet.persona.replies), not the model's
    own_line: bool = False
    #: assistant-speak that only the benchmark's own list found (pet.evals.speak), not the guard's patterns
    listed: bool = False

    @property
    def passed(self) -> bool:
        return not self.problems


def judge_chat(case: ChatCase, reply: str, persona: Persona) -> ChatVerdict:
    problems = []
    text = reply.strip()
    # the person's own words, quoted from memory as said ("我记得这些： #1: My favourite band is Radiohead"),
    # are in whatever language they were said in: the language is judged on the rest
    own_words = text
    for memory in sorted(case.memories, key=len, reverse=True):
        own_words = own_words.replace(memory, " ")
    language = bool(text) and (detect_language(own_words, default="") == case.lang
                               or (own_words != text and not replycheck.letters_in(own_words)))
    if not language and text:
        problems.append(f"language: wanted {case.lang}")
    if not text:
        problems.append("empty")
    # (the message said again in other words counts too, but for the pet's own line that says a fact it noted back)
    echo = replycheck.is_echo(text, case.text) or (replycheck.says_again(text, case.text)
                                                   and not replycheck.is_stand_in(text, persona))
    if echo:
        problems.append("echo")
    recital = not case.asks_memory and len(replycheck.restated(text, case.memories)) >= replycheck.RECITAL_COUNT
    if recital:
        problems.append("recital")
    # the guard's own patterns, and the benchmark's list written without seeing them
    speak = replycheck.assistant_speak(text)
    listed = speak_list.assistant_phrase(text)
    if speak:
        problems.append(f"assistant-speak: {speak.group(0)!r}")
    elif listed:
        problems.append(f"assistant-speak ({listed[0].kind}, the judge's list): {listed[1].group(0)!r}")
    name = None
    if case.asks_name:
        names = {persona.display_name(case.lang), *persona.name.values()}
        name = any(n.lower() in text.lower() for n in names)
        if not name:
            problems.append("name missing")
    length = len(replycheck.sentences(text)) <= MAX_SENTENCES and len(text) <= MAX_CHARS[case.lang]
    if not length:
        problems.append(f"too long ({len(text)} chars)")
    expected = None
    if case.expect_any:
        expected = any(word.lower() in text.lower() for word in case.expect_any)
        if not expected:
            problems.append("none of the expected words")
    stand_in = replycheck.is_stand_in(text, persona)
    called = persona.display_name(case.lang)
    own = any(text == line.replace("{name}", called) for topic in persona.replies for line in topic.say.get(case.lang, ()))
    return ChatVerdict(language, not text, echo, recital, bool(speak or listed), name, length, expected, stand_in,
                       tuple(problems), own, bool(listed and not speak))


# --- running ---------------------------------------------------------------------


class CountingModel:
    """The brain, counting its calls; every other attribute is the brain's."""

    def __init__(self, inner: ChatModel):
        self.inner = inner
        self.calls = 0
        self.label = inner.label

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), **kwargs: Any) -> Any:
        self.calls += 1
        return self.inner.complete(messages, tools, **kwargs)

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (),
               **kwargs: Any) -> Iterator[StreamPart]:
        self.calls += 1
        return self.inner.stream(messages, tools, **kwargs)


@dataclass(frozen=True)
class ChatResult:
    case: ChatCase
    reply: str
    verdict: ChatVerdict
    first_text: float | None  # seconds to the first shown text
    seconds: float
    model_calls: int
    error: str | None = None


def adopted_copy(persona_path: Path, adopted: dt.date, folder: Path) -> Path:
    """The persona file with `adopted` set (the case's growth stage)."""
    text = persona_path.read_text(encoding="utf-8")
    split = re.search(r"^\[", text, re.MULTILINE)
    head, tail = (text[: split.start()], text[split.start():]) if split else (text, "")
    line = f"adopted = {adopted.isoformat()}"
    head, count = re.subn(r"^adopted\s*=.*$", line, head, flags=re.MULTILINE)
    if not count:
        head = f"{line}\n{head}"
    path = folder / "persona-adopted.toml"
    path.write_text(head + tail, encoding="utf-8")
    return path


def run_chat_case(case: ChatCase, brain: CountingModel, settings: Settings,
                  now: dt.datetime = FIXED_NOW, tier: str | None = None) -> ChatResult:
    """One case in a fresh home; `tier` ("embedded", "server") gives the
    wrapped model that tier's ways in the app, as it has when the app runs it."""
    with tempfile.TemporaryDirectory(prefix="pet-chat-eval-") as tmp:
        home = Path(tmp)
        zoned = persona_in_zone(settings.persona, now, home)
        persona_path = adopted_copy(zoned, now.date() - dt.timedelta(days=case.day), home)
        case_settings = dataclasses.replace(settings, home=home, database_url="", workspace="",
                                            persona=str(persona_path), greeting=False)
        app = build(case_settings, brain=brain, behaves_as=tier, clock=lambda: now, scheduler="off")
        persona = load_persona(str(persona_path))
        try:
            conversation = app.current_conversation()
            context = ToolContext(app.pet.id, conversation, None)
            for memory in case.memories:
                result = app.tools.execute(ToolCall("remember", {"content": memory}), context)
                if not result.ok:
                    return _failed(case, persona, f"setup: remember {memory!r} failed: {result.content}")
            # as the app does at start-up: the prompt up to the new message is read
            # before the person writes (and the cases of one stage run together,
            # so a brain with a prefix cache reads each stage's prompt once)
            app.agent.warm(conversation)
            calls_before = brain.calls
            started = time.perf_counter()
            first: float | None = None
            reply = ""
            try:
                for event in app.agent.run(conversation, case.text):
                    if first is None and isinstance(event, TextDelta) and event.text.strip():
                        first = time.perf_counter() - started
                    if isinstance(event, Reply):
                        reply = event.text
            except Exception as exc:  # one broken case must not end the run
                return _failed(case, persona, f"{type(exc).__name__}: {exc}")
            seconds = time.perf_counter() - started
            calls = brain.calls - calls_before
        finally:
            app.close()
    return ChatResult(case, reply, judge_chat(case, reply, persona), first, seconds, calls)


def _failed(case: ChatCase, persona: Persona, error: str) -> ChatResult:
    verdict = judge_chat(case, "", persona)
    return ChatResult(case, "", dataclasses.replace(verdict, problems=(error, *verdict.problems)),
                      None, 0.0, 0, error)


# --- report ----------------------------------------------------------------------


def _share(results: Sequence[ChatResult], score: Callable[[ChatResult], bool | None]) -> str:
    scores = [s for s in map(score, results) if s is not None]
    return f"{sum(scores)}/{len(scores)}" if scores else "—"


def _median(values: Sequence[float | None]) -> str:
    kept = [v for v in values if v is not None]
    return f"{statistics.median(kept):.2f}" if kept else "—"


_HEADERS = ("", "cases", "language", "empty", "echo", "recital", "assistant", "by list", "name", "length",
            "stand-in", "own line", "2+ calls", "all right", "first s", "total s")


def table(title: str, results: Sequence[ChatResult]) -> str:
    groups: list[tuple[str, list[ChatResult]]] = [("overall", list(results))]
    groups += [(lang, [r for r in results if r.case.lang == lang]) for lang in ("zh", "en")]
    topics = sorted({r.case.topic for r in results if r.case.topic})
    groups += [(topic, [r for r in results if r.case.topic == topic]) for topic in topics]
    rows = [_HEADERS]
    for label, group in groups:
        if not group:
            continue
        rows.append((
            label, str(len(group)),
            _share(group, lambda r: r.verdict.language),
            str(sum(r.verdict.empty for r in group)),
            str(sum(r.verdict.echo for r in group)),
            str(sum(r.verdict.recital for r in group)),
            str(sum(r.verdict.assistant for r in group)),
            str(sum(r.verdict.listed for r in group)),
            _share(group, lambda r: r.verdict.name),
            _share(group, lambda r: r.verdict.length),
            str(sum(r.verdict.stand_in for r in group)),
            str(sum(r.verdict.own_line for r in group)),
            str(sum(r.model_calls > 1 for r in group)),
            _share(group, lambda r: r.verdict.passed),
            _median([r.first_text for r in group]),
            _median([r.seconds for r in group if r.error is None]),
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADERS))]
    lines = [title]
    for n, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [cell.rjust(w) for cell, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("-" * len(lines[-1]))
    errors = [r for r in results if r.error]
    if errors:
        lines.append(f"{len(errors)} case(s) could not run and count as wrong; first: "
                     f"{errors[0].case.id}: {errors[0].error}")
    return "\n".join(lines)


def write_json(path: Path, model: str, results: Sequence[ChatResult]) -> None:
    rows = [{"id": r.case.id, "lang": r.case.lang, "topic": r.case.topic, "day": r.case.day,
             "text": r.case.text, "reply": r.reply, "passed": r.verdict.passed,
             "problems": list(r.verdict.problems), "stand_in": r.verdict.stand_in, "own_line": r.verdict.own_line,
             "model_calls": r.model_calls, "first_text_s": r.first_text, "seconds": round(r.seconds, 3),
             "error": r.error} for r in results]
    path.write_text(json.dumps({"model": model, "results": rows}, ensure_ascii=False, indent=1) + "\n",
                    encoding="utf-8")


def bench_chat(
    settings: Settings,
    *,
    model: str | None = None,
    cases_path: Path | None = None,
    limit: int | None = None,
    json_path: Path | None = None,
    out: TextIO = sys.stdout,
    log: TextIO = sys.stderr,
) -> int:
    """Run the chat cases on one brain: an embedded rung (`model` "tiny",
    "small" or "medium"), or with `settings.brain` "server" the server's `model`."""
    from pet.config import EMBEDDED_MODELS
    from pet.evals.bench import brains_for

    cases_path = cases_path or DEFAULT_CHAT_CASES
    cases = spread_chat(load_chat_cases(cases_path), limit)
    if settings.brain == "server":
        brain = brains_for(settings, [model] if model else [])[0]
    else:
        if model is not None and model not in EMBEDDED_MODELS:
            from pet.errors import ConfigError

            raise ConfigError(f"--model {model!r}: the embedded ladder has {', '.join(EMBEDDED_MODELS)}; "
                              "for a server model give --base-url too")
        settings = dataclasses.replace(settings, brain="embedded", embedded_model=model or settings.embedded_model)
        brain = brains_for(settings, [])[0]
    counting = CountingModel(brain.model)
    print(f"Chat benchmark: {len(cases)} cases from {cases_path}, clock fixed at "
          f"{FIXED_NOW:%Y-%m-%d %H:%M} {FIXED_NOW.tzinfo}.\n", file=out)
    results = []
    # one stage and language after another: a prompt-prefix cache carries from case to case
    cases = sorted(cases, key=lambda case: (case.day, case.lang))
    for index, case in enumerate(cases, start=1):
        result = run_chat_case(case, counting, settings, tier=brain.tier)
        results.append(result)
        mark = "ok" if result.verdict.passed else "WRONG"
        why = f"  {'; '.join(result.verdict.problems)}" if result.verdict.problems else ""
        said = " ".join(result.reply.split())[:60]
        print(f"  [{index}/{len(cases)}] {case.id:<22} {mark:<5} {result.seconds:5.1f} s{why}  | {said}",
              file=log, flush=True)
        if json_path is not None:  # after every case: a long run stopped early keeps what it measured
            write_json(json_path, brain.name, results)
    print(table(f"{brain.name} ({brain.tier})", results), file=out, flush=True)
    if json_path is not None:
        print(f"Per-case results: {json_path}", file=log)
    return 0
