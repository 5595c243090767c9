"""One page's chat: its own pet and conversation, never another page's.

A page keeps {"pet": id, "conversation": id} in its session state (a
gr.State, one per page load); the browser remembers only which pet it last
talked with. A new page opens that pet's most recent conversation. The
methods here are plain: pet.ui.chat lays out the page and wires them.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pet.app import App, PetRuntime
from pet.events import ConversationStarted, Event
from pet.persona.growth import days_together
from pet.ui.face import chat_avatars, growth_card_html, stage_face_html
from pet.ui.render import apply_event, for_gradio, history_messages, steps_language

#: {"pet": id, "conversation": id}: plain values, kept per page by Gradio
Session = dict[str, int]

#: how an untitled conversation (nothing said in it yet) is listed
UNTITLED = "New conversation / 新对话"
#: a title longer than this is cut in the list
LISTED_TITLE_CHARS = 36
#: how long the stop button waits for the turn to store what was said
STOP_WAIT_SECONDS = 30.0


@dataclass(frozen=True)
class Face:
    """The pet's face as the page shows it, and a key that changes when any of it does."""

    card: str
    stage: str
    avatars: tuple[Path, Path]
    key: str


def _number(value: Any) -> int | None:
    """An id from the browser or the page's state: a whole number, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


def resolve(app: App, session: Session | None) -> tuple[PetRuntime, int]:
    """The page's pet and conversation. What is gone since (a conversation
    deleted on another device, a pet left out) gives way to the pet's
    latest conversation, then to the first pet. Every tab of a page asks
    this, so a page never steers another."""
    session = session or {}
    pet_id, conversation = _number(session.get("pet")), _number(session.get("conversation"))
    if conversation is not None:
        record = app.conversations.get(conversation)
        if record is not None and record.deleted_at is None:
            try:
                return app.target(pet_id, conversation)
            except KeyError:
                pass
    try:
        return app.target(pet_id)
    except KeyError:
        return app.target()


def page_pet(app: App, session: Session | None) -> PetRuntime:
    """The page's pet alone (no conversation is looked up or made): the
    first pet for a page that has none yet, or whose pet is gone."""
    pet_id = _number((session or {}).get("pet"))
    if pet_id is not None:
        try:
            return app.runtime(pet_id)
        except KeyError:
            pass
    return app.first_pet()


def page_session(runtime: PetRuntime, conversation: int) -> Session:
    return {"pet": runtime.record.id, "conversation": conversation}


class ChatPage:
    """The chat of each page, over one App shared by every page."""

    def __init__(self, app: App):
        self.app = app
        self._guard = threading.Lock()
        #: per page (Gradio's session hash): asked to stop, and ended
        self._running: dict[str, tuple[threading.Event, threading.Event]] = {}

    # -- which pet and conversation ---------------------------------------------------

    def resolve(self, session: Session | None) -> tuple[PetRuntime, int]:
        """The page's pet and conversation (see `resolve`)."""
        return resolve(self.app, session)

    def session(self, runtime: PetRuntime, conversation: int) -> Session:
        return page_session(runtime, conversation)

    def open(self, remembered: Any) -> Session:
        """A new page: the pet the browser last talked with (else the first),
        in its most recent conversation."""
        pet_id = _number(remembered)
        try:
            runtime, conversation = self.app.target(pet_id)
        except KeyError:
            runtime, conversation = self.app.target()
        return self.session(runtime, conversation)

    def switch_pet(self, pet_id: Any) -> Session:
        """Talk with another pet, in its most recent conversation. KeyError
        for a pet that is not there."""
        number = _number(pet_id)
        if number is None:
            raise KeyError(f"there is no pet {pet_id!r}")
        runtime, conversation = self.app.target(number)
        return self.session(runtime, conversation)

    # -- what the page shows ------------------------------------------------------------

    def history(self, session: Session | None) -> list[dict]:
        runtime, conversation = self.resolve(session)
        return self._render(runtime, conversation)

    def _render(self, runtime: PetRuntime, conversation: int) -> list[dict]:
        stored = self.app.conversations.history(conversation)
        return for_gradio(history_messages(stored, runtime.tools, runtime.persona.languages[0]))

    def face_key(self, session: Session | None) -> str:
        """Changes whenever the face, the name or the day count does (an
        edited adoption date, a renamed pet, midnight): cheap to ask often."""
        runtime, _ = self.resolve(session)
        persona = runtime.persona
        days = days_together(runtime.adopted_on, self.app.clock().astimezone(persona.zone()))
        return f"{runtime.record.id}|{persona.full_name()}|{days}|{chat_avatars(persona, days)[1]}"

    def face(self, session: Session | None) -> Face:
        runtime, _ = self.resolve(session)
        persona = runtime.persona
        now = self.app.clock()
        language = persona.languages[0]
        days = days_together(runtime.adopted_on, now.astimezone(persona.zone()))
        return Face(
            card=growth_card_html(persona, runtime.adopted_on, now, language),
            stage=stage_face_html(persona, runtime.adopted_on, now, language),
            avatars=chat_avatars(persona, days),
            key=self.face_key(session),
        )

    def listing(self, session: Session | None) -> tuple[list[tuple[str, int]], int]:
        """The pet's conversations as (label, id), the most recent first, and the page's one."""
        runtime, conversation = self.resolve(session)
        zone = runtime.persona.zone()
        choices = []
        for record in self.app.conversations.listing(runtime.record.id):
            title = record.title or UNTITLED
            if len(title) > LISTED_TITLE_CHARS:
                title = title[: LISTED_TITLE_CHARS - 1].rstrip() + "…"
            when = record.updated_at.replace(tzinfo=dt.timezone.utc).astimezone(zone)
            choices.append((f"{title} · {when:%Y-%m-%d %H:%M}", record.id))
        return choices, conversation

    # -- a turn, and stopping it ----------------------------------------------------------

    def turn(
        self, text: str, session: Session | None, page: str, whole: bool = True
    ) -> Iterator[tuple[list[dict], Session]]:
        """Answer `text` in the page's conversation: the chat as it grows
        (`whole`: the conversation so far too, else only the pet's part of
        this turn) and the page's session (a /new moves it). `page` names
        the page for `stop`."""
        runtime, conversation = self.resolve(session)
        language = steps_language(text, runtime.persona.languages[0])
        before = self._render(runtime, conversation) + [{"role": "user", "content": text}] if whole else []
        stop, ended = threading.Event(), threading.Event()
        with self._guard:
            self._running[page] = (stop, ended)
        shown: list[dict] = []
        started = None
        events: Iterator[Event] = iter(())
        try:
            if whole:  # the person's words at once, whatever the page showed before
                yield before, self.session(runtime, conversation)
                if stop.is_set():  # stopped before the pet began: the message is not sent
                    return
            events = runtime.agent.run(conversation, text)
            for event in events:
                if isinstance(event, ConversationStarted):
                    conversation, before = event.conversation_id, []  # the old one stays as it was
                    started = conversation
                apply_event(shown, event, runtime.tools, language)
                yield before + for_gradio(shown), self.session(runtime, conversation)
                if stop.is_set():
                    break
        finally:
            # stopped mid-reply: closing the turn makes the agent store what was said, marked cut
            getattr(events, "close", lambda: None)()
            with self._guard:
                if self._running.get(page) == (stop, ended):
                    del self._running[page]
            ended.set()
            if started is not None:  # the pet's latest now, for the next page opened
                self.app.conversations.touch(started)
        if stop.is_set() and whole:  # as stored, with its "cut short" mark
            yield self._render(runtime, conversation), self.session(runtime, conversation)
        elif not shown:  # nothing came back at all; say so rather than show nothing
            yield before + [{"role": "assistant", "content": "…"}], self.session(runtime, conversation)

    def stop(self, page: str, wait: float = STOP_WAIT_SECONDS) -> bool:
        """End the page's running turn after the words already on screen,
        and wait until they are stored. False when no turn was running."""
        with self._guard:
            running = self._running.get(page)
        if running is None:
            return False
        stop, ended = running
        stop.set()
        ended.wait(wait)
        return True

    # -- the conversation list --------------------------------------------------------------

    def new(self, session: Session | None) -> Session:
        """A new conversation; the page's own when nothing was said in it yet (a new one over an empty one left an
        empty "New conversation" on the list, seen on the page)."""
        runtime, current = self.resolve(session)
        record = self.app.conversations.get(current)
        if (record is not None and record.deleted_at is None and not record.title
                and not any(m.message.role == "user" for m in self.app.conversations.history(current, chat_only=True))):
            return self.session(runtime, current)
        conversation = self.app.conversations.create(runtime.record.id)
        return self.session(runtime, conversation)

    def reopen(self, session: Session | None, conversation_id: Any) -> Session:
        """Open one of the pet's conversations; the page stays where it was
        when that one is gone or another pet's."""
        runtime, current = self.resolve(session)
        number = _number(conversation_id)
        record = self.app.conversations.get(number) if number is not None else None
        if record is None or record.deleted_at is not None or record.pet_id != runtime.record.id:
            return self.session(runtime, current)
        return self.session(runtime, record.id)

    def rename(self, session: Session | None, title: str) -> str:
        """Name the page's conversation; a line saying what happened."""
        _, conversation = self.resolve(session)
        try:
            record = self.app.conversations.rename(conversation, title)
        except ValueError as exc:
            return f"⚠️ {exc}"
        return f"Renamed: {record.title}" if record else "⚠️ that conversation is gone"

    def delete(self, session: Session | None) -> tuple[Session, int]:
        """Take the page's conversation off the list (its messages stay) and
        open the pet's latest other one. Returns the new session and the
        deleted conversation's id, for `undo`."""
        runtime, conversation = self.resolve(session)
        self.app.conversations.delete(conversation)
        _, latest = self.app.target(runtime.record.id)
        return self.session(runtime, latest), conversation

    def undo(self, session: Session | None, deleted: Any) -> Session:
        """Bring a deleted conversation back and open it."""
        number = _number(deleted)
        if number is None or not self.app.conversations.restore(number):
            return self.session(*self.resolve(session))
        return self.reopen(session, number)

