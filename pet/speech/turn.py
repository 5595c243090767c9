"""A voice turn: the recording becomes text, the agent answers it, and each
sentence of the answer is spoken as soon as it is complete, so the first
sentence can play while the rest is still being written. The turn's stage
timings go into its trace.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pet.events import Event, Reply, TextDelta
from pet.speech.audio import load_recording
from pet.speech.errors import RecordingRejected, SpeechError, SpeechUnavailable
from pet.speech.sentences import SentenceSplitter, speakable
from pet.speech.stt import Transcriber, Transcript
from pet.speech.tts import Speaker, Speech
from pet.text import detect_language

log = logging.getLogger(__name__)

#: a question longer than this is better typed; it also bounds a long upload
MAX_RECORDING_SECONDS = 120.0


class Answering(Protocol):
    def run(self, conversation_id: int, text: str) -> Iterator[Event]: ...


class StageSink(Protocol):
    def add_stages(self, trace_id: int, stages: dict[str, float]) -> None: ...


@dataclass(frozen=True)
class Heard:
    """The recording as text; the agent answers this."""

    transcript: Transcript


@dataclass(frozen=True)
class Rejected:
    """The recording could not be used (or voice could not run); says why and
    what to do. Nothing reached the agent."""

    reason: str


@dataclass(frozen=True)
class Said:
    """One sentence of the answer, spoken, ready to play."""

    speech: Speech


@dataclass(frozen=True)
class Muted:
    """Speaking failed (the reason says why). With a `sentence`, that one
    sentence was tried twice and skipped, and the turn speaks on; without,
    speaking cannot work (espeak-ng or pyttsx3 is missing) and the rest of the
    answer goes on in text only."""

    reason: str
    sentence: str | None = None


@dataclass(frozen=True)
class Timings:
    """Seconds from the moment the recording was complete."""

    transcription: float
    first_token: float | None
    first_audio: float | None
    total: float
    #: of `transcription`, the time spent telling which language was spoken
    language_detection: float = 0.0

    def stages(self) -> dict[str, float]:
        stages = {"transcription": self.transcription, "total": self.total}
        if self.language_detection:
            stages["language_detection"] = self.language_detection
        if self.first_token is not None:
            stages["first_token"] = self.first_token
        if self.first_audio is not None:
            stages["first_audio"] = self.first_audio
        return {name: round(seconds, 3) for name, seconds in stages.items()}


VoiceEvent = Heard | Rejected | Said | Muted | Timings | Event


class Voice:
    """The pet's ears and mouth, made once and kept: the models load on first use."""

    def __init__(self, home: Path, *, max_seconds: float = MAX_RECORDING_SECONDS,
                 transcriber: Transcriber | None = None, speaker: Speaker | None = None):
        self.max_seconds = max_seconds
        self.transcriber = transcriber or Transcriber(home)
        self.speaker = speaker or Speaker()

    def warm_up(self, language: str, choices: Sequence[str] = ()) -> None:
        """Load what a turn needs, so the person's first question does not wait for it."""
        self.transcriber.warm_up(language, choices)
        self.speaker.warm_up()

    def listen(self, audio: str | Path | None, language: str, choices: Sequence[str] = ()) -> Transcript:
        """The recording's words in `language` (with "auto": in the likeliest
        of `choices`); raises RecordingRejected or SpeechUnavailable."""
        return self.transcriber.transcribe(load_recording(audio, self.max_seconds), language, choices)

    def _say(self, text: str, language: str) -> Speech:
        """`text` spoken; a sentence that fails is tried once more."""
        try:
            return self.speaker.say(text, language)
        except SpeechUnavailable:
            raise
        except SpeechError as exc:
            log.info("voice turn: speaking a sentence failed, trying once more: %s", exc)
            return self.speaker.say(text, language)

    def turn(
        self,
        agent: Answering,
        conversation_id: int,
        audio: str | Path | None,
        language: str,
        *,
        choices: Sequence[str] = (),
        traces: StageSink | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> Iterator[VoiceEvent]:
        """Hear `audio` in `language` ("auto": the likeliest of `choices`),
        let `agent` answer, speak the answer, each sentence in the voice of
        its own language. Yields Heard (or Rejected, and stops), the agent's
        events with Said after each complete sentence, then Timings."""
        started = clock()  # the recording is complete: the person now waits
        try:
            transcript = self.listen(audio, language, choices)
        except (RecordingRejected, SpeechUnavailable) as exc:
            yield Rejected(str(exc))
            return
        transcription = clock() - started
        yield Heard(transcript)

        first_token: float | None = None
        first_audio: float | None = None
        muted = False
        reply: Reply | None = None
        splitter = SentenceSplitter()

        def speak(sentences: list[str]) -> Iterator[VoiceEvent]:
            nonlocal first_audio, muted
            for sentence in sentences:
                text = speakable(sentence)
                if muted or not text:
                    continue
                try:
                    speech = self._say(text, detect_language(text, default=transcript.language))
                except SpeechUnavailable as exc:
                    muted = True  # one explanation, then the answer goes on as text
                    log.warning("voice turn: the answer goes on in text only: %s", exc)
                    yield Muted(str(exc))
                    continue
                except SpeechError as exc:
                    # the log keeps no words of the conversation: the sentence's length stands in
                    log.warning("voice turn: skipped a sentence (%d characters) that could not be spoken twice (%s)",
                                len(text), type(exc).__name__)
                    yield Muted(str(exc), sentence=text)
                    continue
                if first_audio is None:
                    first_audio = clock() - started
                yield Said(speech)

        for event in agent.run(conversation_id, transcript.text):
            yield event
            if isinstance(event, TextDelta):
                if first_token is None and event.text.strip():
                    first_token = clock() - started
                yield from speak(splitter.feed(event.text))
            elif isinstance(event, Reply):
                reply = event
        yield from speak(splitter.flush())

        timings = Timings(transcription, first_token, first_audio, clock() - started, transcript.detection)
        trace_id = reply.trace_id if reply is not None else None
        if traces is not None and trace_id is not None:
            traces.add_stages(trace_id, timings.stages())
        log.info("voice turn: %s", " ".join(f"{k}={v:.2f}s" for k, v in timings.stages().items()))
        yield timings
