"""The header's words about the brain, and the switch that shows the
plumbing. Everyone reads which brain answers, in words, and on the embedded
fallback one line on how to get a better one; the model's name and address,
why it was chosen, and the Trace tab (messages sent, tokens, timings) show
only with "Technical details" on, remembered by the browser."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import gradio as gr

from pet.app import App
from pet.persona.model import Persona

LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
#: the switch is a small line under the brain's words, not a box
HEADER_CSS = """
.pet-advanced { padding: 0 4px !important; border: none !important; background: none !important;
                box-shadow: none !important; min-height: 0 !important; font-size: 0.85em; opacity: 0.8; }
"""


def brain_words(app: App, persona: Persona | None = None) -> str:
    """Which brain answers `persona` (default: the first pet), said plainly,
    with one line of advice on the embedded fallback."""
    name = f"**{(persona or app.first_pet().persona).full_name()}**"
    choice = app.brain
    model = choice.model
    if choice.tier == "embedded":
        rung = getattr(model, "rung", None)
        size = f"the {rung.key} model" if rung is not None else "a model"
        words = f"{name} thinks with {size} built into the pet, on this computer."
        advice = getattr(model, "advice", "")
        return words + (f"  \n{advice[:1].upper()}{advice[1:]}." if advice else "")
    if choice.tier == "server":
        host = urlsplit(getattr(model, "base_url", "") or app.settings.base_url).hostname or ""
        where = "on this computer" if host in LOOPBACK else "on another computer"
        served = getattr(model, "model", "") or app.settings.model
        return f"{name} thinks with {served}, on a model server {where}."
    return f"{name} thinks with a model the program was given ({model.label})."


def brain_details(app: App) -> str:
    """The plumbing: the model's label, its address and why it was chosen."""
    choice = app.brain
    address = getattr(choice.model, "base_url", None)
    rung = getattr(choice.model, "rung", None)
    return (f"Model: `{choice.model.label}`" + (f" ({rung.summary})" if rung is not None else "")
            + (f" at `{address}`" if address else "") + f" — {choice.reason}")


class AdvancedSwitch:
    """The "Technical details" switch and the details line, built in the
    header; `controls` then names what it shows (the Trace tab, built later)."""

    def __init__(self, app: App):
        self.switch = gr.Checkbox(False, label="Technical details / 技术细节", container=False,
                                  elem_id="pet-advanced", elem_classes=["pet-advanced"])
        self.details = gr.Markdown(lambda: brain_details(app), visible=False, elem_classes=["pet-status"],
                                   elem_id="pet-brain-details")

    def controls(self, hidden: list[Any]) -> None:
        """Show `hidden` (and the details line) while the switch is on; the
        browser remembers the switch. Call inside gr.Blocks."""
        shown = [self.details, *hidden]
        remembered = gr.BrowserState(False, storage_key="pet-advanced")

        def show(on: bool) -> list[Any]:
            return [gr.update(visible=bool(on)) for _ in shown]

        self.switch.change(show, self.switch, shown, api_visibility="private", show_progress="hidden").then(
            lambda on: bool(on), self.switch, remembered, api_visibility="private", show_progress="hidden")
        page = gr.context.Context.root_block
        assert page is not None, "AdvancedSwitch.controls is called inside gr.Blocks"
        page.load(lambda on: bool(on), remembered, self.switch, api_visibility="private")
