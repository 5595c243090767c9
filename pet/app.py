"""The composition root: the one place that names concrete classes and wires
them together. Everything else receives its collaborators."""

from __future__ import annotations

import datetime as dt
import logging
import threading
from dataclasses import dataclass, field
from typing import Callable

from pet.agent.loop import Agent, AgentConfig, PetIdentity
from pet.brain.base import ChatModel
from pet.brain.select import BrainChoice, choose_brain
from pet.config import Settings
from pet.memory.db import Database, open_database
from pet.memory.store import (
    ConversationStore,
    MemoryStore,
    PetRecord,
    PetStore,
    ReminderStore,
    SummaryStore,
)
from pet.memory.summary import HistorySummarizer
from pet.persona.model import Persona, load_persona
from pet.tools.calc import calculate
from pet.tools.clock import clock_tool, system_clock
from pet.tools.memory import memory_tools
from pet.tools.notes import todo_tools
from pet.tools.reminders import reminder_tools
from pet.tools.registry import Tool, ToolRegistry

log = logging.getLogger(__name__)


@dataclass
class App:
    settings: Settings
    db: Database
    persona: Persona
    pet: PetRecord
    conversations: ConversationStore
    memories: MemoryStore
    reminders: ReminderStore
    tools: ToolRegistry
    brain: BrainChoice
    agent: Agent
    _conversation: int | None = None
    _conversation_lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def adopted_on(self) -> dt.date:
        return self.agent.pet.adopted_on

    def current_conversation(self) -> int:
        """The conversation the UI shows: the latest one, created if none."""
        with self._conversation_lock:
            if self._conversation is None:
                self._conversation = self.conversations.latest(self.pet.id) or self.conversations.create(self.pet.id)
            return self._conversation

    def new_conversation(self) -> int:
        with self._conversation_lock:
            self._conversation = self.conversations.create(self.pet.id)
            return self._conversation

    def switch_conversation(self, conversation_id: int) -> None:
        with self._conversation_lock:
            self._conversation = conversation_id

    def close(self) -> None:
        self.db.close()


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
            Tool.from_function(calculate),
            *memory_tools(memories),
            *reminder_tools(reminders, persona.zone, clock),
            *todo_tools(settings.workspace_dir),
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


def build(
    settings: Settings,
    *,
    brain: ChatModel | None = None,
    clock: Callable[[], dt.datetime] = system_clock,
) -> App:
    """Wire the app. `brain` replaces the chosen model (tests, benchmarks)."""
    persona = load_persona(settings.persona)
    settings.home.mkdir(parents=True, exist_ok=True)
    db = open_database(settings.database)
    today = clock().astimezone(persona.zone()).date()
    pet = PetStore(db).ensure(persona.id, settings.persona, persona.adopted or today)
    conversations = ConversationStore(db)
    memories = MemoryStore(db)
    reminders = ReminderStore(db)
    tools = build_tools(settings, memories, reminders, persona, clock)
    choice = BrainChoice(brain, "custom", "given by the caller") if brain is not None else choose_brain(settings)
    log.info("brain: %s (%s)", choice.model.label, choice.reason)
    agent = Agent(
        brain=choice.model,
        tools=tools,
        conversations=conversations,
        memories=memories,
        persona=persona,
        pet=PetIdentity(pet.id, persona.adopted or pet.adopted_on),
        config=AgentConfig(
            max_model_calls=settings.max_model_calls,
            max_message_chars=settings.max_message_chars,
            history_messages=settings.history_messages,
            recall_limit=settings.recall_limit,
            memory_tokens=settings.memory_tokens,
            reflexes=settings.reflexes,
            greeting=settings.greeting,
        ),
        clock=clock,
        summarizer=HistorySummarizer(
            choice.model,
            SummaryStore(db),
            budget_tokens=history_budget(settings, choice.tier),
            max_messages=settings.history_messages,
        ),
    )
    return App(settings, db, persona, pet, conversations, memories, reminders, tools, choice, agent)
