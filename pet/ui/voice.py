"""The voice panel under the chat: press the microphone (or upload a clip),
the words appear in the chat as your message, the answer streams in and is
spoken sentence by sentence on its own. Off, with the reason and the fix,
when the speech packages or espeak-ng are missing.
"""

from __future__ import annotations

import base64
import io
import itertools
import logging
import threading
import wave
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import gradio as gr

from pet.app import App
from pet.events import ConversationStarted, Reply
from pet.speech.errors import SpeechError
from pet.speech.status import VoiceStatus, voice_status
from pet.speech.stt import AUTO
from pet.speech.tts import join_wavs
from pet.speech.turn import Heard, Muted, Rejected, Said, Timings, Voice
from pet.ui.render import TURNS_AT_ONCE, apply_event, for_gradio, steps_language
from pet.ui.session import Session, page_pet, page_session, resolve
from pet.ui.talk import build_talk

log = logging.getLogger(__name__)

#: talk mode: this much quiet after speech ends an utterance (a breath
#: between sentences is shorter; a reply waits no longer than needed)
SILENCE_MS = 700

VOICE_CSS = """
#pet-voice .pet-voice-note { font-size: 0.85em; opacity: 0.8; min-height: 1.5em; }
#pet-talk-status { font-size: 0.9em; align-self: center; }
"""


@dataclass(frozen=True)
class VoiceUpdate:
    """What the chat shows at one moment of a voice turn."""

    messages: list[dict]
    #: the next spoken sentence (WAV bytes); None when there is none yet
    sound: bytes | None
    #: one line under the microphone: heard, timings, or what went wrong
    note: str
    #: the recording was not used (the note says why)
    rejected: bool = False
    #: at the end of the turn: every spoken sentence in one WAV, to play again
    answer: bytes | None = None
    #: at the end of the turn: the stored answer (its message and trace ids)
    reply: Reply | None = None
    #: the page's pet and conversation after this moment (a spoken /new moves it)
    session: Session | None = None


class VoiceChat:
    """Voice turns for the chat of a page: its pet, its conversation (the
    page's session; the first pet's latest without one). The speech models
    are made on first use (or when the person starts recording) and kept."""

    def __init__(self, app: App, voice: Voice | None = None):
        """`voice`: ears and mouth already made (tests share one); by default
        they are made from the settings on first use."""
        self.app = app
        self.status: VoiceStatus = voice_status(app.settings.voice)
        self._voice = voice
        self._lock = threading.Lock()

    @property
    def voice(self) -> Voice:
        with self._lock:
            if self._voice is None:
                self._voice = Voice(self.app.settings.home, max_seconds=self.app.settings.max_recording_seconds)
            return self._voice

    def language(self) -> str:
        """What the pet listens for: the setting's language, or "auto" (each
        recording's language among the pet's)."""
        return self.app.settings.speech_language.strip() or AUTO

    def warm_up(self, session: Session | None = None) -> None:
        """Load the models while the person is still speaking."""
        if not self.status.on:
            return
        try:
            self.voice.warm_up(self.language(), page_pet(self.app, session).persona.languages)
        except SpeechError as exc:  # the turn itself will say what is wrong
            log.warning("voice warm-up: %s", exc)

    def respond(self, audio: str | None, history: list | None,
                session: Session | None = None) -> Iterator[VoiceUpdate]:
        """One voice turn in the page's conversation, as chat updates."""
        chat = list(history or [])
        runtime, conversation = resolve(self.app, session)
        if not self.status.on:
            yield VoiceUpdate(chat + [_notice(self.status.message)], None, self.status.message, rejected=True,
                              session=page_session(runtime, conversation))
            return
        shown: list[dict] = []
        spoken: list[bytes] = []
        mutes: list[Muted] = []
        note = "🎧 listening…"
        language, choices = self.language(), runtime.persona.languages
        steps_in = choices[0]  # tool steps are worded in the language of the words heard
        reply: Reply | None = None
        for event in self.voice.turn(runtime.agent, conversation, audio, language, choices=choices,
                                     traces=self.app.traces):
            sound = answer = None
            if isinstance(event, Reply):
                reply = event
            if isinstance(event, Rejected):
                # shown, never stored: the recording stays in the microphone box to play back or retry
                yield VoiceUpdate(chat + [_notice(event.reason)], None, f"⚠️ {event.reason}", rejected=True,
                                  session=page_session(runtime, conversation))
                return
            if isinstance(event, Heard):
                chat.append({"role": "user", "content": event.transcript.text})
                note = f"🎤 heard in {event.transcript.seconds:.1f} s"
                steps_in = steps_language(event.transcript.text, event.transcript.language)
            elif isinstance(event, Said):
                sound = event.speech.wav
                spoken.append(sound)
            elif isinstance(event, Muted):
                mutes.append(event)
                note = _mute_note(mutes)
            elif isinstance(event, Timings):
                # the timings do not hide why something went unspoken: both show
                note = " · ".join(filter(None, [_timings_note(event), _mute_note(mutes)]))
                answer = join_wavs(spoken) if spoken else None
            elif isinstance(event, ConversationStarted):
                conversation = event.conversation_id
            else:
                apply_event(shown, event, runtime.tools, steps_in)
            yield VoiceUpdate(chat + for_gradio(shown), sound, note, answer=answer,
                              reply=reply if isinstance(event, Timings) else None,
                              session=page_session(runtime, conversation))

    def cut_short(self, reply: Reply, stop_seconds: float | None = None) -> None:
        """The person talked over this spoken answer: it is stored as cut
        short, and the time the page took to fall silent goes to its trace."""
        if reply.message_id is not None:
            self.app.conversations.set_status(reply.message_id, "partial")
        if reply.trace_id is not None and stop_seconds is not None and self.app.traces is not None:
            self.app.traces.add_stages(reply.trace_id, {"barge_in_stop": round(stop_seconds, 3)})
        log.info("voice: answer #%s cut short by the person speaking%s", reply.message_id,
                 f" (silent after {stop_seconds * 1000:.0f} ms)" if stop_seconds is not None else "")


def _notice(text: str) -> dict:
    return {"role": "assistant", "content": f"⚠️ *{text}*"}


def _mute_note(mutes: list[Muted]) -> str:
    """Why some or all of the answer was not spoken; "" when all of it was."""
    parts = []
    whole = [m for m in mutes if m.sentence is None]
    skipped = [m for m in mutes if m.sentence is not None]
    if whole:
        parts.append(f"🔇 {whole[0].reason}")
    if len(skipped) == 1:
        parts.append(f"🔇 one sentence could not be spoken: {skipped[0].reason}")
    elif skipped:
        parts.append(f"🔇 {len(skipped)} sentences could not be spoken: {skipped[-1].reason}")
    return " · ".join(parts)


def _timings_note(timings: Timings) -> str:
    parts = [f"heard in {timings.transcription:.1f} s"]
    if timings.first_audio is not None:
        parts.append(f"first sound after {timings.first_audio:.1f} s")
    parts.append(f"done in {timings.total:.1f} s")
    return "⏱ " + " · ".join(parts)


def build_voice_panel(app: App, chat: gr.ChatInterface, session: gr.State) -> VoiceChat:
    """The microphone, the answer to play again and a status line, under `chat`,
    for the page's pet and conversation (its `session`). Sentences play in
    the browser one after another as they arrive."""
    voice = VoiceChat(app)
    with gr.Group(elem_id="pet-voice"):
        if not voice.status.on:
            gr.Markdown(f"🔇 {voice.status.message}", elem_classes="pet-voice-note")
            return voice
        with gr.Row(equal_height=True):
            # "microphone" first: one tap records, on a desktop or a phone
            # (a phone's browser asks for permission, and over the LAN needs HTTPS)
            # min_width: on a phone the two stack instead of squeezing side by side
            mic = gr.Audio(sources=["microphone", "upload"], type="filepath", label="🎤 Talk / 说话",
                           scale=2, min_width=300, elem_id="pet-mic")
            again = gr.Audio(label="🔊 Answer / 回答", interactive=False, scale=1, min_width=300,
                             elem_id="pet-answer")
        note = gr.Markdown("", elem_id="pet-voice-note", elem_classes="pet-voice-note")
        # each spoken sentence passes through here to the page's player
        clip = gr.JSON(visible="hidden", elem_id="pet-clip")
        turns = itertools.count(1)
        build_talk(voice, chat, clip, note, again, turns, SILENCE_MS, unlock_js(), session)

    def voice_turn(audio: str | None, history: list | None, current: Session | None) -> Iterator[tuple[Any, ...]]:
        turn, count = next(turns), itertools.count()
        update = None
        for update in voice.respond(audio, history, current):
            sound = {"turn": turn, "n": next(count), "src": data_uri(update.sound)} if update.sound else gr.skip()
            answer = update.answer if update.answer else gr.skip()
            yield update.messages, sound, update.note, answer, gr.skip(), update.session
        if update is not None and not update.rejected:
            # ready for the next question; a rejected recording stays to play back or retry
            yield gr.skip(), gr.skip(), gr.skip(), gr.skip(), None, gr.skip()

    mic.start_recording(voice.warm_up, session, None, js=unlock_js(), api_visibility="private",
                        show_progress="hidden")
    inputs, outputs = [mic, chat.chatbot, session], [chat.chatbot, clip, note, again, mic, session]
    recorded = mic.stop_recording(voice_turn, inputs, outputs, api_name="voice", show_progress="hidden",
                                  concurrency_limit=TURNS_AT_ONCE)
    uploaded = mic.upload(voice_turn, inputs, outputs, api_visibility="private", show_progress="hidden")
    for event in (recorded, uploaded):
        # the text chat answers on top of what it last saw: let it see the voice turn
        event.then(lambda shown: shown, chat.chatbot, chat.chatbot_state, api_visibility="private", queue=False)
    clip.change(None, clip, None, js=PLAYER_JS)
    return voice


def data_uri(wav: bytes) -> str:
    return "data:audio/wav;base64," + base64.b64encode(wav).decode("ascii")


def _silence_wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(8000)
        writer.writeframes(b"\0\0" * 400)
    return out.getvalue()


#: plays the sentences of a turn one after another on one audio element
PLAYER_JS = """
(clip) => {
  const pet = window.petVoice = window.petVoice || {queue: [], player: new Audio(), busy: false};
  if (!clip || !clip.src || clip.turn === pet.cut) return;  // the person talked over that answer
  if (clip.turn !== pet.turn) { pet.turn = clip.turn; pet.queue = []; }
  pet.queue.push(clip.src);
  const next = () => {
    const src = pet.queue.shift();
    pet.busy = Boolean(src);
    if (src) { pet.player.src = src; pet.player.play().catch(() => { pet.busy = false; }); }
  };
  pet.player.onended = next;
  if (!pet.busy) next();
}
"""


def unlock_js() -> str:
    """Run on the tap that starts a recording: stop the pet talking (the
    person speaks now), and play a moment of silence on the player, because
    a phone's browser lets a page play sound only from a tap; the answer's
    sentences then play on the same, unlocked, audio element."""
    return UNLOCK_JS.replace("SILENCE", data_uri(_silence_wav()))


UNLOCK_JS = """
() => {
  const pet = window.petVoice = window.petVoice || {queue: [], player: new Audio(), busy: false};
  pet.queue = []; pet.busy = false; pet.player.pause();
  pet.player.src = "SILENCE";
  pet.player.play().catch(() => {});
}
"""
