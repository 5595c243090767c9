"""The Pond tab: two pets talk about a topic the person gives, streamed live.

`PondPanel` holds the actions as plain methods (tested directly);
`build_pond_tab` lays them out inside a `gr.Tab`. Nothing either pet says is
stored by the talk itself: a line becomes a memory only when the person keeps
it with the "Keep a line" button.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import gradio as gr

from pet.agent.pond import LineFinished, LineStarted, Pond, PondStopped, Speaker
from pet.app import App, PetRuntime
from pet.errors import PetError
from pet.events import TextDelta
from pet.memory.recall import read_id
from pet.ui.persona_tab import pet_choices

ChatMessage = dict[str, Any]
#: One marker per seat, so the two pets are told apart at a glance.
MARKS = ("🔵", "🟠")

_REASONS = {
    "turn_cap": "🏁 The talk reached its turn cap ({detail}).",
    "repeating": "🔁 They started repeating themselves: {detail}.",
    "token_budget": "🪙 The talk used up its token budget: {detail}.",
    "stopped": "⏹️ Stopped by you.",
    "error": "❌ A model error ended the talk — {detail}",
    "empty": "🤐 The talk ended empty: {detail}.",
}


def reason_in_words(stopped: PondStopped) -> str:
    return _REASONS.get(stopped.reason, "The talk ended: {detail}").format(detail=stopped.detail)


@dataclass(frozen=True)
class PondLine:
    """A finished line of the last talk; `pet_id` is the pet who said it."""

    pet_id: int
    name: str
    text: str


def _number(value: Any) -> int | None:
    """A pet id or line number as a widget or a person gives it: 3, 3.0, "#3"."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int):
        return value
    return read_id(str(value)) if value not in (None, "") else None


def _header(number: int, seat: int, name: str) -> str:
    return f"**{number} · {MARKS[seat]} {name}**\n\n"


class PondPanel:
    """The tab's actions. One talk at a time (a single-user app): the lines of
    the last talk and the stop switch live on the panel."""

    def __init__(self, app: App):
        self.app = app
        self.stop_event = threading.Event()
        self.lines: list[PondLine] = []

    def _pet(self, pet_id: Any) -> PetRuntime:
        number = _number(pet_id)
        if number is None:
            raise ValueError("pick a pet first")
        try:
            return self.app.runtime(number)
        except KeyError:
            raise ValueError(f"there is no pet #{number}") from None

    def talk(self, first_id: Any, second_id: Any, topic: str) -> Iterator[tuple[list[ChatMessage], str]]:
        """Yield (chat messages, status) as the talk goes; the last status
        says why it stopped."""
        self.stop_event.clear()
        try:
            pets = (self._pet(first_id), self._pet(second_id))
        except ValueError as exc:
            yield [], f"⚠️ {exc}: choose two pets to talk"
            return
        if pets[0].record.id == pets[1].record.id:
            yield [], "⚠️ pick two different pets: one pet cannot talk with itself here"
            return
        if not (topic or "").strip():
            yield [], "⚠️ give the pets something to talk about (type a topic)"
            return
        model = self.app.brain.model
        pond = Pond(*(Speaker(pet.persona, pet.adopted_on, model) for pet in pets), clock=self.app.clock)
        names = [pet.persona.full_name() for pet in pets]
        self.lines = []
        shown: list[ChatMessage] = []
        talking = f"🌊 {names[0]} and {names[1]} are talking…"
        yield shown, talking
        for event in pond.talk(topic, self.stop_event):
            if isinstance(event, LineStarted):
                seat = event.index % 2
                shown.append({"role": "assistant", "content": _header(event.index + 1, seat, names[seat])})
            elif isinstance(event, TextDelta) and shown:
                shown[-1]["content"] += event.text
            elif isinstance(event, LineFinished):
                seat = event.index % 2
                # the finished text is the one kept: whitespace squeezed, "…" when cut
                shown[-1]["content"] = _header(event.index + 1, seat, names[seat]) + event.text
                self.lines.append(PondLine(pets[seat].record.id, names[seat], event.text))
            elif isinstance(event, PondStopped):
                if shown and len(shown) > len(self.lines):
                    shown.pop()  # a line that started but never finished says nothing
                yield [dict(m) for m in shown], reason_in_words(event)
                return
            yield [dict(m) for m in shown], talking

    def stop(self) -> str:
        self.stop_event.set()
        return "⏹️ stopping…"

    def keep(self, line_number: Any, pet_id: Any) -> str:
        """Store line `line_number` of the last talk as a memory of one pet.

        The person's click is the approval, so the memory is active at once
        (asserted by the model, the pet who said it). The other pet's line is
        kept with its speaker's name, so the keeper remembers who said it."""
        if not self.lines:
            return "⚠️ there is no talk yet: start one first"
        number = _number(line_number)
        if number is None or not 1 <= number <= len(self.lines):
            return f"⚠️ pick a line number from 1 to {len(self.lines)}"
        try:
            keeper = self._pet(pet_id)
        except ValueError as exc:
            return f"⚠️ {exc}: choose the pet who should remember it"
        line = self.lines[number - 1]
        content = line.text if line.pet_id == keeper.record.id else f"{line.name}: {line.text}"
        try:
            record, created = self.app.memories.remember(keeper.record.id, content, asserted_by="model")
        except (ValueError, PetError) as exc:
            return f"⚠️ nothing was kept: {exc}"
        verb = "kept" if created else "already knew; refreshed"
        return f"📌 {keeper.persona.full_name()} {verb} memory #{record.id}: {record.content}"


#: shown while the home has one pet: the pond needs two
LONELY = ("**The pond needs two pets, and only one lives here.** Adopt a second in the **Pets** tab "
          "(*New pet's name*, then **Adopt**), then come back and give them a topic. "
          "池塘需要两只宠物：先在「宠物」页领养第二只。")


def pond_hint(app: App) -> str:
    """What to do first when the home has fewer than two pets; "" otherwise."""
    return LONELY if len(app.pets()) < 2 else ""


def build_pond_tab(app: App) -> None:
    """The Pond tab's components and events; call inside `gr.Blocks`."""
    panel = PondPanel(app)
    choices = pet_choices(app)
    first_value = choices[0][1] if choices else None
    second_value = choices[1][1] if len(choices) > 1 else None
    with gr.Tab("🌊 Pond / 池塘", id="pond") as tab:
        hint = gr.Markdown(lambda: pond_hint(app), elem_id="pet-pond-hint")
        with gr.Row():
            first = gr.Dropdown(choices, value=first_value, label="First pet / 第一只", scale=1)
            second = gr.Dropdown(choices, value=second_value, label="Second pet / 第二只", scale=1)
            topic = gr.Textbox(label="Topic / 话题", placeholder="the sea, 晚饭吃什么…", scale=3)
        with gr.Row():
            start = gr.Button("🌊 Start", variant="primary")
            stop = gr.Button("⏹️ Stop", variant="stop")
        chat = gr.Chatbot(label="The pond / 池塘", height="50vh", buttons=["copy"], feedback_options=None,
                          group_consecutive_messages=False,
                          placeholder="Pick two pets and a topic, then Start. 选两只宠物和一个话题。")
        status = gr.Markdown()
        with gr.Accordion("Keep a line / 记住一句", open=False):
            gr.Markdown("Nothing said in the pond is remembered unless you keep it here.")
            with gr.Row():
                line = gr.Number(label="Line #", precision=0, minimum=1, value=1, scale=1)
                keeper = gr.Dropdown(choices, value=first_value, label="Remembered by", scale=2)
                keep = gr.Button("📌 Keep", scale=1)
            kept = gr.Markdown()

    def refresh(chosen: Any) -> tuple[Any, Any, Any, str]:
        fresh = pet_choices(app)
        # a second pet adopted since the page loaded takes the empty second seat
        second_seat = gr.update(choices=fresh, value=fresh[1][1]) if chosen in (None, "") and len(fresh) > 1 else (
            gr.update(choices=fresh))
        return gr.update(choices=fresh), second_seat, gr.update(choices=fresh), pond_hint(app)

    tab.select(refresh, second, [first, second, keeper, hint], api_visibility="private")
    # one talk at a time; Stop skips the queue so it is never waiting behind the talk
    start.click(panel.talk, [first, second, topic], [chat, status], api_name="pond_talk",
                concurrency_limit=1, concurrency_id="pond_talk")
    topic.submit(panel.talk, [first, second, topic], [chat, status], api_visibility="private",
                 concurrency_limit=1, concurrency_id="pond_talk")
    stop.click(panel.stop, None, status, api_name="pond_stop", queue=False)
    keep.click(panel.keep, [line, keeper], kept, api_name="pond_keep")
