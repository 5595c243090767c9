"""The composition root: the one place that names concrete classes and wires
them together. Everything else receives its collaborators."""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pet.agent.confirm import confirms_every_side_effect
from pet.agent.loop import Agent, AgentConfig, ConversationLocks, PetIdentity
from pet.brain.base import ChatModel
from pet.brain.select import BrainChoice, choose_brain
from pet.config import SCHEDULER_MODES, Settings, quiet_window
from pet.errors import PersonaError
from pet.memory import meaning
from pet.memory.db import Database, open_database
from pet.memory.store import (
    ConversationStore,
    InboxStore,
    MemoryStore,
    PetRecord,
    PetStore,
    ReminderStore,
    SummaryStore,
    TraceStore,
)
from pet.memory.summary import HistorySummarizer
from pet.persona.model import PERSONA_DIR, Persona, load_persona
from pet.persona.save import save_persona
from pet.private import private_dir, tighten
from pet.scheduler.delivery import Delivery
from pet.scheduler.policy import Policy
from pet.scheduler.speak import Herald
from pet.tools.calc import calc_tool
from pet.tools.clock import clock_tool, system_clock
from pet.tools.files import file_tools
from pet.tools.memory import memory_tools
from pet.tools.notes import todo_tools
from pet.tools.plugins import Plugins, load_plugins
from pet.tools.registry import ToolRegistry
from pet.tools.reminders import reminder_tools
from pet.tools.shell import allowed_programs, shell_tool

if TYPE_CHECKING:
    from pet.scheduler.core import PetScheduler

log = logging.getLogger(__name__)


@dataclass
class PetRuntime:
    """One pet, ready to talk: its row, its persona, its tools and its agent."""

    record: PetRecord
    persona: Persona
    tools: ToolRegistry
    agent: Agent

    @property
    def adopted_on(self) -> dt.date:
        return self.agent.pet.adopted_on


@dataclass
class App:
    """The running home: what every device shares (its stores, its brain,
    its pets). Each browser page keeps its own pet and conversation (every
    tab of it: pet.ui.session) and names them with `target`; the HTTP API
    names them in each request (default: the first pet, its latest
    conversation). The "current" pet and conversation here (`current`,
    `switch_pet`, `turn_target`, `current_conversation`) belong to the one
    terminal client (`pet chat`) and the evaluation runner; no page reads
    or moves them. `persona`, `pet`, `tools` and `agent` are the current
    pet's."""

    settings: Settings
    db: Database
    conversations: ConversationStore
    memories: MemoryStore
    reminders: ReminderStore
    inbox: InboxStore
    brain: BrainChoice
    clock: Callable[[], dt.datetime]
    _wire: Callable[[PetRecord, Persona], PetRuntime]
    _pets: dict[int, PetRuntime] = field(default_factory=dict)
    _current: int = 0
    _conversations: dict[int, int] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    #: None when the `scheduler` setting is "off"
    scheduler: PetScheduler | None = None
    #: every turn's trace; also the sink the agents write to (`tracer`)
    traces: TraceStore | None = None
    #: the tools loaded from <home>/tools/ at start-up, and the files that failed
    plugins: Plugins | None = None
    #: the conversations' locks, shared by every pet's agent, with the work run after turns
    locks: ConversationLocks | None = None
    #: says what the inbox gets in the pet's latest conversation
    herald: Herald | None = None

    @property
    def tracer(self) -> TraceStore | None:
        return self.traces

    # -- the current pet ---------------------------------------------------------

    @property
    def current(self) -> PetRuntime:
        with self._lock:
            return self._pets[self._current]

    @property
    def persona(self) -> Persona:
        return self.current.persona

    @property
    def pet(self) -> PetRecord:
        return self.current.record

    @property
    def tools(self) -> ToolRegistry:
        return self.current.tools

    @property
    def agent(self) -> Agent:
        return self.current.agent

    @property
    def adopted_on(self) -> dt.date:
        return self.current.adopted_on

    # -- pets ----------------------------------------------------------------------

    def pets(self) -> list[PetRuntime]:
        with self._lock:
            return list(self._pets.values())

    def runtime(self, pet_id: int) -> PetRuntime:
        with self._lock:
            if pet_id not in self._pets:
                raise KeyError(f"there is no pet #{pet_id}")
            return self._pets[pet_id]

    def switch_pet(self, pet_id: int) -> PetRuntime:
        with self._lock:
            runtime = self.runtime(pet_id)
            self._current = pet_id
            return runtime

    def create_pet(self, name: str, template: str | None = None, like: int | None = None) -> PetRuntime:
        """A new pet named `name` (in every language), from a shipped or saved
        persona (default: pet `like`'s, else the current pet's), adopted today."""
        name = " ".join(name.split())
        if not name:
            raise PersonaError("a new pet needs a name")
        base = load_persona(template) if template else (self.runtime(like).persona if like is not None else self.persona)
        return self.adopt(dataclasses.replace(base, name={lang: name for lang in base.languages}, adopted=None))

    def adopt(self, persona: Persona) -> PetRuntime:
        """A new pet with this persona (say, from a character card), adopted
        today unless the persona is dated. Its persona file is written, and
        read back, in the home's personas folder before the pet's row exists,
        so a persona that cannot be saved leaves no half-made pet."""
        with self._lock:
            # every pet of the home, also one left out because its persona did not load
            taken = {record.slug for record in PetStore(self.db).all()}
            slug = _free_slug(persona.display_name("en"), taken)
            persona = dataclasses.replace(persona, id=slug, source=None)
            path = save_persona(persona, self.personas_dir, overwrite=True)
            today = self.today(persona)
            record = PetStore(self.db).create(slug, self._reference(path), today, path.read_text(encoding="utf-8"))
            runtime = self._wire(record, persona)
            self._pets[record.id] = runtime
            if self.scheduler is not None:
                self.scheduler.schedule_brief(record.id, self.settings.brief_time)
            return runtime

    def update_persona(self, pet_id: int, persona: Persona) -> PetRuntime:
        """Save an edited persona for this pet (its id stays the pet's slug)
        and talk with it from the next message on."""
        with self._lock:
            runtime = self.runtime(pet_id)
            persona = dataclasses.replace(persona, id=runtime.record.slug, source=None)
            path = save_persona(persona, self.personas_dir, overwrite=True)
            record = PetStore(self.db).set_persona(pet_id, self._reference(path), path.read_text(encoding="utf-8"))
            assert record is not None
            self._pets[pet_id] = self._wire(record, load_persona(str(path)))
            return self._pets[pet_id]

    def rename_pet(self, pet_id: int, name: str) -> PetRuntime:
        name = " ".join(name.split())
        if not name:
            raise PersonaError("a pet's name cannot be empty")
        persona = self.runtime(pet_id).persona
        return self.update_persona(pet_id, dataclasses.replace(persona, name={lang: name for lang in persona.languages}))

    def reset_persona(self, pet_id: int) -> PetRuntime:
        """Back to the shipped persona file of the same name; the edited copy
        stays in the personas folder."""
        with self._lock:
            runtime = self.runtime(pet_id)
            shipped = PERSONA_DIR / f"{runtime.record.slug}.toml"
            if not shipped.exists():
                raise PersonaError(f"{runtime.persona.full_name()} was not shipped with pet; there is nothing to reset to")
            record = PetStore(self.db).set_persona(pet_id, runtime.record.slug)
            assert record is not None
            self._pets[pet_id] = self._wire(record, load_persona(record.slug))
            return self._pets[pet_id]

    @property
    def personas_dir(self) -> Path:
        return self.settings.home / "personas"

    def _reference(self, path: Path) -> str:
        """How a pet row names its persona file: relative to the home when
        inside it, so a home can move."""
        try:
            return path.relative_to(self.settings.home).as_posix()
        except ValueError:
            return str(path)

    def today(self, persona: Persona) -> dt.date:
        return self.clock().astimezone(persona.zone()).date()

    def zone_of(self, pet_id: int) -> dt.tzinfo:
        """A pet's timezone (the current pet's for a pet not loaded)."""
        with self._lock:
            runtime = self._pets.get(pet_id) or self._pets[self._current]
        return runtime.persona.zone()

    def language_of(self, pet_id: int) -> str:
        with self._lock:
            runtime = self._pets.get(pet_id) or self._pets[self._current]
        return runtime.persona.languages[0]

    def reload(self) -> list[PetRuntime]:
        """Take in what an import added while running: new pets (with their
        morning brief) and the reminders' jobs. Returns the new pets."""
        added = []
        with self._lock:
            for record in PetStore(self.db).all():
                if record.id in self._pets:
                    continue
                try:
                    runtime = self._wire(record, resolve_persona(self.settings.home, record))
                except PersonaError as exc:
                    log.warning("pet %s is left out: %s", record.slug, exc)
                    continue
                self._pets[record.id] = runtime
                added.append(runtime)
                if self.scheduler is not None:
                    self.scheduler.schedule_brief(record.id, self.settings.brief_time)
        if self.scheduler is not None:
            self.scheduler.sync()
        meaning.start_backfill(self.db.engine)  # the imported memories' vectors
        return added

    # -- a pet and conversation named explicitly (a page, an API request) -------------

    def first_pet(self) -> PetRuntime:
        """The home's first pet (the one it started with)."""
        with self._lock:
            return self._pets[min(self._pets)]

    def latest_conversation(self, pet_id: int) -> int:
        """The pet's most recently active conversation, created if it has none."""
        return self.conversations.latest_or_create(pet_id)

    def target(self, pet_id: int | None = None, conversation_id: int | None = None) -> tuple[PetRuntime, int]:
        """A pet and one of its conversations. By default the first pet; a
        conversation names its own pet; without one, the pet's latest.
        KeyError (saying which) for a pet or conversation that is not there,
        or a conversation of another pet."""
        if conversation_id is not None:
            owner = self.conversations.pet_of(conversation_id)
            if owner is None:
                raise KeyError(f"there is no conversation #{conversation_id}")
            if pet_id is not None and pet_id != owner:
                raise KeyError(f"conversation #{conversation_id} belongs to pet #{owner}, not to pet #{pet_id}")
            return self.runtime(owner), conversation_id
        runtime = self.runtime(pet_id) if pet_id is not None else self.first_pet()
        return runtime, self.latest_conversation(runtime.record.id)

    def warm_ahead(self, runtime: PetRuntime | None = None, conversation: int | None = None) -> None:
        """In a thread: a brain that caches its prompt's prefix (the embedded
        one) reads the stable start of the conversation's prompt before the
        person writes (Agent.warm). The current pet's current conversation by
        default."""
        def warm() -> None:
            try:
                nonlocal runtime, conversation
                if runtime is None or conversation is None:
                    runtime, conversation = self.turn_target()
                took = time.perf_counter()
                tokens = runtime.agent.warm(conversation)
                if tokens:
                    log.info("read %d prompt tokens ahead in %.1f s", tokens, time.perf_counter() - took)
            except Exception as exc:  # a cache warm-up never stops the pet
                log.warning("prompt warm-up failed: %s", exc)

        if getattr(self.brain.model, "reuses_prompt_prefix", False):
            threading.Thread(target=warm, name="prompt-warm-up", daemon=True).start()

    def turn_target(self) -> tuple[PetRuntime, int]:
        """The current pet and its current conversation, taken together so a
        pet switch in between cannot pair one pet's agent with another's chat."""
        with self._lock:
            return self.current, self.current_conversation()

    # -- conversations of the current pet ------------------------------------------

    def current_conversation(self) -> int:
        """The conversation the UI shows: the pet's latest one, created if none."""
        with self._lock:
            pet_id = self._current
            if pet_id not in self._conversations:
                self._conversations[pet_id] = self.latest_conversation(pet_id)
            return self._conversations[pet_id]

    def new_conversation(self) -> int:
        with self._lock:
            self._conversations[self._current] = self.conversations.create(self._current)
            return self._conversations[self._current]

    def switch_conversation(self, conversation_id: int) -> None:
        with self._lock:
            owner = self.conversations.pet_of(conversation_id)
            if owner is not None and owner in self._pets:
                self._current = owner
            self._conversations[self._current] = conversation_id

    def close(self) -> None:
        if self.scheduler is not None:
            self.scheduler.shutdown()
        # An in-process model still generating in a worker thread (a brief's
        # rewording past its time limit) must stop before the process ends.
        # A brain given to build() belongs to the caller, who may share it
        # between apps (the tool benchmark builds one app per case).
        close_model = getattr(self.brain.model, "close", None)
        if callable(close_model) and self.brain.tier != "custom":
            close_model()
        if self.locks is not None and not self.locks.wait_idle(timeout=30):
            log.warning("a summary fold was still running when the pet stopped")
        meaning.stop_backfill(self.db.engine)
        self.db.close()


_SLUG = re.compile(r"[^a-z0-9]+")


def _free_slug(name: str, taken: set[str]) -> str:
    """A file-safe id from the name ("Dou Dou" -> "dou-dou"; a Chinese name
    becomes "pet"), numbered when taken."""
    base = _SLUG.sub("-", name.casefold()).strip("-")[:40] or "pet"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    return slug


def resolve_persona(home: Path, record: PetRecord) -> Persona:
    """A pet row's persona: a file in the home (edited or adopted pets; made
    again from the row's copy when missing, as after an import into another
    home), else a shipped persona name or a path."""
    reference = record.persona
    local = home / reference
    if reference.endswith(".toml") and not reference.startswith(("/", "..")) and ".." not in Path(reference).parts:
        if not local.is_file() and record.persona_text:
            local.parent.mkdir(parents=True, exist_ok=True)
            local.write_text(record.persona_text, encoding="utf-8")
        if local.is_file():
            return load_persona(str(local))
    return load_persona(reference)


def build_tools(
    settings: Settings,
    memories: MemoryStore,
    reminders: ReminderStore,
    persona: Persona,
    clock: Callable[[], dt.datetime],
) -> ToolRegistry:
    return ToolRegistry(
        [
            clock_tool(persona.zone, clock),
            calc_tool(),
            *memory_tools(memories),
            *reminder_tools(reminders, persona.zone, clock),
            *todo_tools(settings.workspace_dir),
            *(file_tools(settings.workspace_dir) if settings.file_tools else []),
            *([shell_tool(settings.workspace_dir, allowed_programs(settings.shell_programs), settings.shell_timeout)]
              if settings.shell else []),
        ]
    )


def history_budget(settings: Settings, tier: str) -> int:
    """Tokens of earlier messages kept verbatim. The embedded brain keeps half
    its window for the reply and trims older turns itself when the prompt
    overflows, so its budget is a quarter of the window: the summary then folds
    turns before the embedded brain would drop them unseen."""
    if tier == "embedded":
        return min(settings.history_tokens, settings.embedded_context // 4)
    return settings.history_tokens


def reply_sentences(settings: Settings, tier: str) -> int:
    """The sentence cap on a reply (see Settings.reply_sentences)."""
    if settings.reply_sentences >= 0:
        return settings.reply_sentences
    return AgentConfig.reply_sentences if tier == "embedded" else 0


def build(
    settings: Settings,
    *,
    brain: ChatModel | None = None,
    behaves_as: str | None = None,
    clock: Callable[[], dt.datetime] = system_clock,
    scheduler: str | None = None,
) -> App:
    """Wire the app. `brain` replaces the chosen model (tests, benchmarks);
    `behaves_as` ("embedded", "server") gives it that tier's ways (history
    budget, reply length, wording), as a benchmark's wrapped model needs.
    `scheduler` ("on", "paused", "off") overrides the setting. With an
    injected `clock` the setting's "on" starts paused: the jobs would fire by
    the real clock, the firing would judge by the injected one."""
    default = load_persona(settings.persona)
    # a new home is the person's alone: it holds their conversations and memories
    private_dir(settings.home)
    if tightened := tighten(settings.home, settings.database_path):  # a home from an older release
        log.info("took group and other access away from %d paths in %s", len(tightened), settings.home)
    db = open_database(settings.database)
    pets = PetStore(db)
    today = clock().astimezone(default.zone()).date()
    first = pets.ensure(default.id, settings.persona, default.adopted or today)
    conversations = ConversationStore(db)
    memories = MemoryStore(db)
    reminders = ReminderStore(db)
    inbox = InboxStore(db)
    traces = TraceStore(db, keep=settings.trace_keep)
    choice = BrainChoice(brain, "custom", "given by the caller") if brain is not None else choose_brain(settings)
    log.info("brain: %s (%s)", choice.model.label, choice.reason)
    summarizer = HistorySummarizer(
        choice.model,
        SummaryStore(db),
        budget_tokens=history_budget(settings, behaves_as or choice.tier),
        max_messages=settings.history_messages,
    )
    config = AgentConfig(
        max_model_calls=settings.max_model_calls,
        max_message_chars=settings.max_message_chars,
        history_messages=settings.history_messages,
        recall_limit=settings.recall_limit,
        memory_tokens=settings.memory_tokens,
        reply_sentences=reply_sentences(settings, behaves_as or choice.tier),
        wording_seconds=0.0 if (behaves_as or choice.tier) == "embedded" else AgentConfig.wording_seconds,
        reflexes=settings.reflexes,
        greeting=settings.greeting,
        canned=settings.canned_replies == "on" or (
            settings.canned_replies == "auto" and (behaves_as or choice.tier) == "embedded"),
        confirm_side_effects=confirms_every_side_effect(settings.confirm_tools, settings.lan),
    )

    locks = ConversationLocks()  # shared: a pet's agent is rebuilt when its persona changes

    plugins = load_plugins(settings)  # once: each pet's registry gets the same tools

    def wire(record: PetRecord, persona: Persona) -> PetRuntime:
        tools = build_tools(settings, memories, reminders, persona, clock)
        for clash in plugins.add_to(tools):
            log.warning("plugin tool %r skipped: a built-in tool has that name; rename it in %s",
                        clash, plugins.sources[clash].name)
        agent = Agent(
            brain=choice.model,
            tools=tools,
            conversations=conversations,
            memories=memories,
            persona=persona,
            pet=PetIdentity(record.id, persona.adopted or record.adopted_on),
            config=config,
            clock=clock,
            summarizer=summarizer,
            locks=locks,
            tracer=traces,
            reminders=reminders,
        )
        return PetRuntime(record, persona, tools, agent)

    app = App(settings, db, conversations, memories, reminders, inbox, choice, clock, wire, _current=first.id,
              traces=traces, plugins=plugins, locks=locks)
    try:  # a start refused from here on (a persona, a setting) closes the database it opened
        for record in pets.all():
            try:
                persona = default if record.id == first.id and record.persona == settings.persona else (
                    resolve_persona(settings.home, record))
            except PersonaError as exc:
                if record.id == first.id:
                    raise
                log.warning("pet %s is left out: %s", record.slug, exc)
                continue
            app._pets[record.id] = wire(record, persona)
        mode = scheduler or settings.scheduler
        if mode not in SCHEDULER_MODES:
            raise ValueError(f"scheduler must be one of {SCHEDULER_MODES}, not {mode!r}")
        if scheduler is None and mode == "on" and clock is not system_clock:
            mode = "paused"
        _start_scheduler(app, mode, default.zone())
    except BaseException:
        app.close()
        raise
    meaning.start_backfill(db.engine)  # vectors for memories imported or written without them
    return app


def _start_scheduler(app: App, mode: str, zone: dt.tzinfo) -> None:
    """Quiet hours for the inbox, and (unless "off") the scheduler: it
    settles what fell due while the pet was down, then runs the reminders'
    jobs and each pet's morning brief."""
    settings = app.settings
    policy = Policy(dt.timedelta(minutes=settings.reminder_grace_minutes), quiet_window(settings.quiet_hours))
    app.herald = Herald(app.inbox, app.conversations, pets=lambda: [r.record.id for r in app.pets()],
                        persona_of=lambda pet_id: app.runtime(pet_id).persona if pet_id in app._pets else None,
                        clock=app.clock)
    delivery = Delivery(app.reminders, app.inbox, zone_of=app.zone_of, language_of=app.language_of,
                        policy=policy, clock=app.clock, written=app.herald.post)
    app.inbox.hold = delivery.quiet_until
    if mode == "off":
        return
    from pet.scheduler.core import PetScheduler

    app.scheduler = PetScheduler(app.db, delivery, key=settings.database, zone=zone, context=app)
    try:
        settled = app.scheduler.start(paused=mode == "paused")
        app.reminders.listen(app.scheduler.reminder_changed)
        for runtime in app.pets():
            app.scheduler.schedule_brief(runtime.record.id, settings.brief_time)
    except BaseException:
        app.close()
        raise
    if settled:
        log.info("settled %d reminder(s) that fell due while the pet was not running", len(settled))
