"""What the pet says unasked, on an open page: a reminder that fired or the
morning brief is said in the pet's latest conversation (pet.scheduler.speak);
a page showing that conversation gets it in its chat within seconds, a page
showing another gets one short toast, and a hidden page also a browser
notification with a chirp (once the person allowed notifications with a
click). What a page showed is marked read, and a page starts from what was
said before it loaded: nothing pops up twice, across reloads too.

`Arrivals` holds the steps as plain methods; `build_arrivals` wires them to
a page's chat with a timer. Call it outside `gr.Tabs()`: a timer among the
tabs makes Gradio's tab bar repeat a label when a tab is selected.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import gradio as gr

from pet.app import App, PetRuntime
from pet.memory.store import Posted
from pet.ui.render import for_gradio, history_messages

if TYPE_CHECKING:
    from pet.ui.inbox_tab import InboxPanel

#: seconds between two looks from an open page
POLL_SECONDS = 3.0
#: a notification's text is cut to this many characters
NOTIFY_CHARS = 160
#: seconds a toast for a message said elsewhere stays
TOAST_SECONDS = 15
#: The page's own toasts (Gradio's are all titled "Info"): titled by the
#: pet and the kind, never over the header (the pet and its picker): in the
#: lower right corner of a computer's screen, across a phone's under its tabs.
TOAST_CSS = """
#pet-toasts { position: fixed; right: 16px; top: 8px; z-index: 1000; display: flex; flex-direction: column;
              gap: 8px; width: 360px; max-width: calc(100vw - 16px); pointer-events: none; }
.pet-toast { pointer-events: auto; position: relative; padding: 10px 36px 10px 12px; border-radius: 8px;
             background: var(--background-fill-primary); color: var(--body-text-color);
             border: 1px solid var(--border-color-primary); border-left: 4px solid var(--color-accent);
             box-shadow: var(--shadow-drop-lg); font-size: 0.92em; line-height: 1.35; }
.pet-toast-title { font-weight: 600; margin-bottom: 2px; }
.pet-toast button { position: absolute; top: 4px; right: 6px; border: none; background: none;
                    font-size: 1.2em; cursor: pointer; color: inherit; opacity: 0.7; }
@media (max-width: 640px) { #pet-toasts { left: 8px; right: 8px; width: auto; } }
"""

KIND_WORDS = {"reminder": "Reminder / 提醒", "brief": "Morning brief / 早报", "missed": "Missed reminder / 错过的提醒"}

#: Shows the toasts of a tick (each once, text only: never as HTML), and
#: the notifications when the page is hidden, each once, with a chirp (Web
#: Audio: no sound file to fetch).
NOTIFY_JS = """
(payload) => {
  window.__petToasted = window.__petToasted || new Set();
  const toasts = ((payload && payload.toasts) || []).filter((item) => !window.__petToasted.has(item.id));
  if (toasts.length) {
    let shelf = document.getElementById("pet-toasts");
    if (!shelf) {
      shelf = document.createElement("div");
      shelf.id = "pet-toasts";
      document.body.appendChild(shelf);
    }
    if (window.matchMedia("(max-width: 640px)").matches) {
      // a phone: under the header and the tab bar, over the chat's top
      const bottoms = [".pet-header", "[role=tablist]"].map((where) => document.querySelector(where))
        .filter(Boolean).map((element) => element.getBoundingClientRect().bottom);
      shelf.style.top = Math.max(8, ...bottoms.map((bottom) => bottom + 8)) + "px";
      shelf.style.bottom = "auto";
    } else {  // a computer: the lower right corner, off the pet's face and its picker
      shelf.style.top = "auto";
      shelf.style.bottom = "16px";
    }
    toasts.forEach((item) => {
      window.__petToasted.add(item.id);
      const toast = document.createElement("div");
      toast.className = "pet-toast";
      toast.setAttribute("role", "status");
      toast.dataset.testid = "pet-toast";
      const title = document.createElement("div");
      title.className = "pet-toast-title";
      title.textContent = item.title;
      const text = document.createElement("div");
      text.textContent = item.text;
      const close = document.createElement("button");
      close.textContent = "×";
      close.setAttribute("aria-label", "Close");
      close.onclick = () => toast.remove();
      toast.append(title, text, close);
      shelf.appendChild(toast);
      setTimeout(() => toast.remove(), TOAST_MS);
    });
  }
  const items = (payload && payload.items) || [];
  window.__petNotified = window.__petNotified || new Set();
  const fresh = items.filter((item) => !window.__petNotified.has(item.id));
  fresh.forEach((item) => window.__petNotified.add(item.id));
  if (!fresh.length || !document.hidden) return;
  if ("Notification" in window && Notification.permission === "granted") {
    fresh.forEach((item) => new Notification(item.title, { body: item.body, tag: "pet-" + item.id }));
    window.__petNotifications = (window.__petNotifications || 0) + fresh.length;
  }
  try {
    const audio = window.__petAudio || new (window.AudioContext || window.webkitAudioContext)();
    window.__petAudio = audio;
    const gain = audio.createGain();
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
    gain.connect(audio.destination);
    [880, 1320].forEach((hz, i) => {
      const tone = audio.createOscillator();
      tone.frequency.value = hz;
      tone.connect(gain);
      tone.start(audio.currentTime + i * 0.12);
      tone.stop(audio.currentTime + i * 0.12 + 0.15);
    });
  } catch (error) { /* no sound: the notification still shows */ }
}
""".replace("TOAST_MS", str(TOAST_SECONDS * 1000))

#: The click that asks for notifications (a browser asks only from a click)
#: and unlocks the chirp; says what the browser answered.
ASK_JS = """
async () => {
  try {
    window.__petAudio = window.__petAudio || new (window.AudioContext || window.webkitAudioContext)();
    await window.__petAudio.resume();
  } catch (error) {}
  if (!("Notification" in window)) {
    return "This browser shows no notifications here (they need http://127.0.0.1 or HTTPS). "
      + "Messages still arrive in the chat. / 此浏览器在这里不能通知。";
  }
  const answer = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
  return answer === "granted"
    ? "Notifications are on: when this page is hidden, new messages from the pet pop up with a chirp. / 通知已开启。"
    : "Notifications are blocked by the browser: allow them in this site's settings. / 浏览器拒绝了通知。";
}
"""

Target = Callable[..., tuple[PetRuntime, int]]


@dataclass(frozen=True)
class Seen:
    """What a page's look found."""

    #: the newest conversation message looked at (the page's next start)
    upto: int
    #: said in the conversation the page shows
    here: tuple[Posted, ...] = ()
    #: said elsewhere: another pet's, or another conversation of this pet
    elsewhere: tuple[Posted, ...] = ()


class Arrivals:
    """The page's side of what the pet says unasked. `target(*inputs)` gives
    the page's pet and conversation (default: the first pet's latest)."""

    def __init__(self, app: App, target: Target | None = None):
        self.app = app
        self.target: Target = target or (lambda *_: app.target())

    def start(self, *inputs: Any) -> int:
        """A page loaded: what its conversation holds is on screen, so it is
        read; the page looks from the newest message said so far."""
        _, conversation = self.target(*inputs)
        self.app.inbox.mark_read(self.app.inbox.unread_in(conversation))
        return self.app.inbox.last_posted()

    def look(self, seen: Any, *inputs: Any) -> Seen:
        """Say what showed since the last look, then what was said after
        message `seen`, split by where. Nothing while a turn runs in the
        page's conversation: its streaming would overwrite the chat; the
        next look after the turn brings it. What is found is marked read."""
        upto = seen if isinstance(seen, int) and not isinstance(seen, bool) else self.app.inbox.last_posted()
        if self.app.herald is not None:
            self.app.herald.post()
        _, conversation = self.target(*inputs)
        if self.app.locks is not None and self.app.locks.of(conversation).locked():
            return Seen(upto)
        found = self.app.inbox.posted_since(upto)
        if not found:
            return Seen(upto)
        self.app.inbox.mark_read([posted.message.id for posted in found])
        return Seen(
            found[-1].message_id,
            tuple(p for p in found if p.conversation_id == conversation),
            tuple(p for p in found if p.conversation_id != conversation),
        )

    def name_of(self, posted: Posted) -> str:
        try:
            return self.app.runtime(posted.message.pet_id).persona.full_name()
        except KeyError:
            return f"pet #{posted.message.pet_id}"

    def toast(self, posted: Posted) -> tuple[str, str]:
        """(title, text) of a toast for a message said elsewhere."""
        title = f"{self.name_of(posted)} · {KIND_WORDS.get(posted.message.kind, 'Message / 消息')}"
        return title, posted.message.text + (" (late / 晚了)" if posted.message.late else "")

    def notifications(self, found: Seen) -> dict[str, Any]:
        """What the page shows itself: a toast for each message said
        elsewhere, and a notification for each (when the page is hidden)."""
        toasts = [dict(zip(("title", "text"), self.toast(posted)), id=posted.message.id) for posted in found.elsewhere]
        items = []
        for posted in (*found.here, *found.elsewhere):
            body = " ".join(posted.message.text.split())
            body = body if len(body) <= NOTIFY_CHARS else body[: NOTIFY_CHARS - 1] + "…"
            items.append({"id": posted.message.id, "title": self.toast(posted)[0], "body": body})
        return {"items": items, "toasts": toasts}

    def history(self, *inputs: Any) -> list[dict]:
        """The page's conversation as the chat shows it."""
        runtime, conversation = self.target(*inputs)
        stored = self.app.conversations.history(conversation)
        return for_gradio(history_messages(stored, runtime.tools, runtime.persona.languages[0]))


def notify_button() -> None:
    """The button that asks the browser for notifications, and what it answered."""
    with gr.Row(equal_height=True):
        ask = gr.Button("🔔 Notify me when this page is hidden / 后台时通知我", size="sm", scale=0, min_width=380,
                        elem_id="pet-notify-ask")
        answer = gr.Markdown(elem_id="pet-notify-answer")
    ask.click(None, None, answer, js=ASK_JS)


def build_arrivals(
    app: App,
    chatbot: gr.Chatbot,
    *,
    inbox: InboxPanel | None = None,
    target: Target | None = None,
    target_inputs: Sequence[gr.components.Component] = (),
    mirrors: Sequence[gr.components.Component] = (),
    history: Callable[..., list[dict]] | None = None,
) -> Arrivals:
    """Wire the page's look for what the pet says unasked: a timer, the
    chat (and `mirrors`, such as a ChatInterface's history state, given the
    same value), the Inbox tab's listing, toasts and notifications.
    `target_inputs` are passed to `target` (and `history`)."""
    arrivals = Arrivals(app, target)
    show = history or arrivals.history
    seen = gr.State(None)
    payload = gr.JSON(value=None, visible=False, elem_id="pet-arrivals")
    timer = gr.Timer(POLL_SECONDS)
    inputs = list(target_inputs)
    inbox_outputs = list(inbox.components) if inbox is not None else []
    chats = [chatbot, *mirrors]

    def start(*values: Any) -> int:
        return arrivals.start(*values)

    def tick(upto: Any, *values: Any) -> list[Any]:
        found = arrivals.look(upto, *values)
        if not found.here and not found.elsewhere:
            return [found.upto, gr.skip(), *(gr.skip() for _ in chats), *(gr.skip() for _ in inbox_outputs)]
        chat = [show(*values)] * len(chats) if found.here else [gr.skip() for _ in chats]
        listing = list(inbox.refresh(*values)) if inbox is not None else []
        return [found.upto, arrivals.notifications(found), *chat, *listing]

    page = gr.context.Context.root_block
    assert page is not None, "build_arrivals is called inside gr.Blocks"
    page.load(start, inputs, seen, api_visibility="private")
    timer.tick(tick, [seen, *inputs], [seen, payload, *chats, *inbox_outputs], show_progress="hidden",
               api_name="inbox_poll")
    payload.change(None, payload, None, js=NOTIFY_JS)
    return arrivals
