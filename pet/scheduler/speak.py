"""The pet speaks first: what the inbox holds for a pet (a reminder that
fired, the morning brief, a report of missed reminders) is also said in the
pet's latest conversation, as its own message, from the moment it shows
(quiet hours hold a brief until they end). Any page showing that
conversation shows it; the Inbox tab keeps the history.

Saying is idempotent: an inbox message is linked to the conversation
message that said it in the same transaction (InboxStore.post), so two
posters (the scheduler's thread, a page's poll) say it once.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from pet.memory.store import ConversationStore, InboxRecord, InboxStore, Posted
from pet.persona.messages import say
from pet.text import detect_language

if TYPE_CHECKING:
    from pet.persona.model import Persona

log = logging.getLogger(__name__)

#: an unread message that showed longer ago than this stays in the Inbox tab
#: only: a week-old reminder said in today's chat would only confuse
FRESH_FOR = dt.timedelta(hours=12)


def wording(message: InboxRecord, persona: Persona | None) -> str:
    """The pet's words for an inbox message: a reminder says it is one (and
    whether it is late); a brief and a missed report are worded already."""
    if message.kind != "reminder":
        return message.text
    default = persona.languages[0] if persona is not None else "en"
    language = detect_language(message.text, default=default)
    return say("reminder_late" if message.late else "reminder_due", language, persona, text=message.text)


class Herald:
    """Writes what the pet says unasked to its inbox and its latest conversation."""

    def __init__(
        self,
        inbox: InboxStore,
        conversations: ConversationStore,
        *,
        pets: Callable[[], Iterable[int]],
        persona_of: Callable[[int], Persona | None],
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.timezone.utc),
    ):
        self.inbox = inbox
        self.conversations = conversations
        self.pets = pets
        self.persona_of = persona_of
        self.clock = clock

    def conversation_of(self, pet_id: int) -> int:
        """The pet's latest conversation (the one its pages open), made if it has none."""
        return self.conversations.latest_or_create(pet_id)

    def deliver(self, pet_id: int, text: str, kind: str, **options: object) -> InboxRecord | None:
        """Put `text` in the pet's inbox (`options` as InboxStore.add takes
        them) and say it in its latest conversation once it shows. None when
        `once` found it written already."""
        record = self.inbox.add(pet_id, text, kind=kind, now=self.clock(), **options)  # type: ignore[arg-type]
        self.post(pet_id)
        return record

    def post(self, pet_id: int | None = None) -> list[Posted]:
        """Say every fresh unread inbox message that shows by now and is in
        no conversation yet (of one pet, or of all). Never raises: a message
        not said now is said at the next call."""
        now = self.clock()
        said: list[Posted] = []
        for pet in [pet_id] if pet_id is not None else list(self.pets()):
            try:
                waiting = self.inbox.unposted(pet, since=now - FRESH_FOR, now=now)
                for message in waiting:
                    conversation = self.conversation_of(pet)
                    message_id = self.inbox.post(message.id, conversation, wording(message, self.persona_of(pet)))
                    if message_id is not None:
                        log.info("inbox #%d (%s) said in conversation %d", message.id, message.kind, conversation)
                        said.append(Posted(message, conversation, message_id))
            except Exception:
                log.exception("could not say the inbox messages of pet #%d in its conversation", pet)
        return said
