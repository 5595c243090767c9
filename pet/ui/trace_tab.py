"""The Trace tab: what a turn did, step by step. It shows the trace that
/api/debug/{conversation} serves: the exact messages sent to the model, its
tool calls and their results, timings and token counts."""

from __future__ import annotations

import json
from typing import Any

import gradio as gr

from pet.app import App
from pet.ui.session import Session, resolve

#: how many of the conversation's last turns the picker offers
TURNS = 20
_CLIP = 80


def _clip(text: str, limit: int = _CLIP) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cell(text: str) -> str:
    """Safe inside a Markdown table cell."""
    return _clip(text).replace("|", "\\|")


class TracePanel:
    def __init__(self, app: App):
        self.app = app
        #: the tab, once built
        self.tab: gr.Tab | None = None
        #: the tab's refresh (fn, inputs, outputs), for the page to run when its pet changes
        self.refresh: dict[str, Any] = {}

    def conversation(self, chosen: Any = None, session: Session | None = None) -> int:
        """The conversation asked for, or the one the page's chat shows."""
        try:
            number = int(chosen)
        except (TypeError, ValueError, OverflowError):
            number = 0
        return number if number > 0 else resolve(self.app, session)[1]

    def turns(self, conversation_id: int) -> list[tuple[str, int]]:
        """(label, trace id) of the conversation's last turns, newest first."""
        traces = self.app.traces.recent(conversation_id, limit=TURNS) if self.app.traces is not None else []
        return [(f"#{t['id']} · {_clip(t.get('text') or '…', 40)}", t["id"]) for t in reversed(traces)]

    def trace(self, trace_id: Any) -> dict[str, Any] | None:
        try:
            number = int(trace_id)
        except (TypeError, ValueError, OverflowError):
            return None
        return self.app.traces.get(number) if self.app.traces is not None else None

    def summary(self, trace: dict[str, Any] | None) -> str:
        if not trace:
            return "No turn traced in this conversation yet. Chat, then refresh. / 还没有记录。"
        seconds = trace.get("seconds")
        took = f"{seconds:.3f} s" if isinstance(seconds, (int, float)) else "still running"
        head = [
            f"**Turn #{trace['id']}** · conversation {trace.get('conversation_id')} · {took}"
            + (f" · reflex `{trace['reflex']}`" if trace.get("reflex") else ""),
            f"**You:** {_clip(trace.get('text', ''), 300)}",
            "",
            "| # | step | what | seconds | tokens in + out |",
            "|---|---|---|---|---|",
        ]
        for number, step in enumerate(trace.get("steps") or [], 1):
            head.append(self._row(number, step))
        for notice in trace.get("notices") or []:
            head.append(f"\n⚠️ Notice: {notice}")
        if trace.get("reply"):
            cut = " *(cut short)*" if trace.get("partial") else ""
            head.append(f"\n**Reply:** {_clip(trace['reply'], 300)}{cut}")
        stages = trace.get("stages") or {}
        if stages:
            head.append("\n**Stages:** " + ", ".join(f"{k} {v:.3f} s" for k, v in stages.items()))
        return "\n".join(head)

    @staticmethod
    def _row(number: int, step: dict[str, Any]) -> str:
        if step.get("kind") == "model":
            calls = ", ".join(c.get("name", "?") for c in step.get("tool_calls") or [])
            what = (
                f"error: {step['error']}"
                if step.get("error")
                else (f"calls {calls}" if calls else f"says “{step.get('text', '')}”")
            )
            estimated = " (est.)" if step.get("tokens_estimated") else ""
            tokens = f"{step.get('prompt_tokens', 0)} + {step.get('completion_tokens', 0)}{estimated}"
            label = f"🧠 model {step.get('step')}" + (
                f" ({step['purpose']})" if step.get("purpose") not in (None, "reply") else ""
            )
            return (
                f"| {number} | {label} · {len(step.get('messages') or [])} messages | {_cell(what)} | "
                f"{step.get('seconds', 0):.3f} | {tokens} |"
            )
        mark = "🔧 tool" if step.get("ok") else "⚠️ failed tool"
        arguments = json.dumps(step.get("arguments") or {}, ensure_ascii=False)
        what = f"{arguments} → {step.get('content', '')}"
        return f"| {number} | {mark} {step.get('name')} | {_cell(what)} | {step.get('seconds', 0):.3f} | |"

    def show(self, conversation: Any, trace_id: Any = None,
             session: Session | None = None) -> tuple[Any, str, dict[str, Any] | None]:
        """The picker (newest turn chosen unless `trace_id` is one of them), the
        summary and the whole trace; by default of the page's conversation."""
        choices = self.turns(self.conversation(conversation, session))
        ids = [value for _, value in choices]
        try:
            wanted = int(trace_id)
        except (TypeError, ValueError, OverflowError):
            wanted = None
        chosen = wanted if wanted in ids else (ids[0] if ids else None)
        trace = self.trace(chosen)
        return gr.Dropdown(choices=choices, value=chosen), self.summary(trace), trace


def build_trace_tab(app: App, session: gr.State) -> TracePanel:
    """The Trace tab, of the page's conversation (its `session`) unless told
    another; call inside `gr.Tabs()`."""
    panel = TracePanel(app)
    # plumbing: shown by the header's "Technical details" switch (pet.ui.header)
    with gr.Tab("🔍 Trace / 追踪", id="trace", visible=False) as tab:
        gr.Markdown(
            "What each turn did: the exact messages sent to the model, tool calls and results, "
            "timings and tokens — the same as `/api/debug/{conversation}`."
        )
        with gr.Row():
            conversation = gr.Number(
                label="Conversation (empty or 0: the one in the chat)", precision=0, value=None, minimum=0, scale=1
            )
            turn = gr.Dropdown(label="Turn", choices=[], allow_custom_value=True, interactive=True, scale=3)
            refresh = gr.Button("🔄 Refresh / 刷新", scale=1)
        summary = gr.Markdown(elem_classes=["pet-trace-summary"])
        with gr.Accordion("The whole trace (JSON)", open=False):
            whole = gr.JSON()

    outputs = [turn, summary, whole]
    def latest(chosen: Any, current: Session | None) -> tuple[Any, str, dict[str, Any] | None]:
        return panel.show(chosen, None, current)

    tab.select(latest, [conversation, session], outputs, api_visibility="private")
    refresh.click(latest, [conversation, session], outputs, api_name="trace_refresh")
    conversation.submit(latest, [conversation, session], outputs, api_visibility="private")
    turn.input(panel.show, [conversation, turn, session], outputs, api_name="trace_show")
    panel.refresh = dict(fn=latest, inputs=[conversation, session], outputs=outputs)
    panel.tab = tab
    return panel
