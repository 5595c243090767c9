"""Voice turn latency with the embedded brain: from the end of a spoken
question (the recording is complete) to the first audio of the answer, in
English and in Chinese, on the default settings (speech_language = auto:
each recording's language is detected among the pet's).

    python tests/bench/voice.py [--rounds 8] [--languages en zh] [--model small]
    python tests/bench/voice.py --barge-in [--rounds 3]

Each round runs the whole voice turn, the rounds of a language one after
another in one conversation, as in the page's talk mode (`--fresh`: each
in a new conversation, the same size of prompt every round): read the
recording, detect its language, transcribe it (Whisper base, int8), the
pet's turn on the embedded model (default: the `small` rung), and text to
speech of each sentence as it completes. The first round of each language
loads the models and is left out. Printed: median and p95 of each stage,
and the share of each step in the time to the first audio.

In the page's talk mode the browser's voice detector waits for a stretch of
silence (`SILENCE_MS` in pet/ui/voice.py) before the recording is complete;
that wait comes on top of these figures and is printed with them.

`--speaking` waits, before each round, as long as its question takes to say:
the time a person speaks, during which the pet is idle in the page but for
the work it does after a reply (reading the conversation ahead). Without
it the rounds follow each other at once, and that work delays the next
round's transcription.

`--barge-in` instead speaks `--rounds` interruptions into headless
Chromium's fake microphone on the talk-mode page while the page's player
keeps playing (as if the pet were talking), and prints how long the page
took from the first loud look (32 ms) of each interruption to pausing the
player. The server's turns are left out: they do not take part in stopping.

Target: first audio at most 2.5 s median and 4 s p95 on a quiet 2-core CPU.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

TARGET_MEDIAN, TARGET_P95 = 2.5, 4.0
#: a different question each round, so the model cannot reuse the last round's prompt whole
QUESTIONS = {
    "en": (
        "Hello pet. What is the weather like today? Please tell me a short story about a crayfish.",
        "Good morning little friend. Did you sleep well last night? What did you dream about?",
        "I just came home from work and I am very tired. Can you cheer me up with a joke?",
        "Tell me, what is your favourite food, and where do crayfish like to live?",
    ),
    "zh": (
        "你好，请给我讲一个小龙虾的故事。",
        "我今天工作很累，你能陪我聊聊天吗？",
        "小钳，你最喜欢吃什么东西？",
        "明天周末，你觉得我们去哪里玩比较好？",
    ),
}
STAGES = ("language_detection", "transcription", "first_token", "first_audio", "total")


def p95(values: list[float]) -> float:
    """The 95th percentile (linear between the nearest ranks)."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--languages", nargs="+", choices=("en", "zh"), default=["en", "zh"])
    parser.add_argument("--model", choices=("tiny", "small", "medium"), default="small")
    parser.add_argument("--barge-in", action="store_true", help="measure the talk mode's barge-in instead")
    parser.add_argument("--fresh", action="store_true", help="each round in a new conversation (see above)")
    parser.add_argument("--speaking", action="store_true",
                        help="wait as long as each question is spoken before sending it (see above)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pet-bench-") as folder:  # holds a 145 MB model copy
        if args.barge_in:
            barge_in(args, Path(folder))
        else:
            run(args, Path(folder))


def run(args: argparse.Namespace, home: Path) -> None:
    os.environ.update(PET_HOME=str(home), PET_BRAIN="embedded", PET_EMBEDDED_MODEL=args.model,
                      PET_GREETING="off", PET_SCHEDULER="off", HF_HUB_OFFLINE="1",
                      GRADIO_ANALYTICS_ENABLED="False")

    from speechclips import espeak_clip, read_wav

    from pet.app import build
    from pet.config import load_settings
    from pet.speech.turn import Timings, Voice
    from pet.ui.voice import SILENCE_MS

    settings = load_settings()
    app = build(settings)
    voice = Voice(home)
    print(f"embedded model: {settings.embedded_model}; speech_language = {settings.speech_language}; "
          f"pet languages {', '.join(app.persona.languages)}")
    print(f"load average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for language in args.languages:
        texts = QUESTIONS[language]
        questions = [espeak_clip(text, language, home / f"{language}{n}.wav") for n, text in enumerate(texts)]
        lengths = [len(samples) / rate for samples, rate in map(read_wav, questions)]
        rounds: list[Timings] = []
        heard: list[tuple[str, str]] = []
        firsts: list[str] = []
        conversation = app.new_conversation()
        for i in range(args.rounds + 1):
            # the person speaks the question before the recording is complete: meanwhile the
            # pet may still read the last conversation ahead (after its reply), as in the page
            time.sleep(lengths[i % len(questions)] if args.speaking else 0.0)
            if args.fresh and i:
                conversation = app.new_conversation()
            timings, spoken = None, []
            for event in voice.turn(app.agent, conversation, questions[i % len(questions)], settings.speech_language,
                                    choices=app.persona.languages, traces=app.traces):
                kind = type(event).__name__
                if kind == "Heard":
                    heard.append((event.transcript.language, event.transcript.text))
                elif kind == "Said":
                    spoken.append(event.speech.text)
                elif kind == "Rejected":
                    sys.exit(f"the question was refused: {event.reason}")
                elif isinstance(event, Timings):
                    timings = event
            if i > 0 and timings is not None:  # the first round loads Whisper, espeak-ng and the model
                rounds.append(timings)
            if timings is not None and heard:
                print(f"  round {i}: heard {heard[-1][0]} {heard[-1][1][:40]!r}, first token "
                      f"{timings.first_token or 0:.2f} s, first audio {timings.first_audio or 0:.2f} s", flush=True)
            firsts.append(spoken[0] if spoken else "(nothing spoken)")
        report(language, lengths, heard, firsts, rounds)
    print(f"load average at the end {os.getloadavg()[0]:.1f}; in talk mode add the {SILENCE_MS} ms of silence "
          "the browser waits for before the recording is complete")
    app.close()


def report(language: str, lengths: list[float], heard: list[tuple[str, str]], firsts: list[str],
           rounds: list) -> None:
    print(f"\n== {language}: {len(rounds)} rounds after one warm-up; questions "
          f"{', '.join(f'{n:.1f}' for n in lengths)} s of speech")
    detected = sum(lang == language for lang, _ in heard)
    print(f"  language detected right {detected}/{len(heard)}; heard e.g. {heard[-1][1]!r}")
    print(f"  first spoken sentence (last round): {firsts[-1]!r}")
    for stage in STAGES:
        values = [getattr(t, stage) for t in rounds if getattr(t, stage) is not None]
        if values:
            print(f"  {stage:<19} median {statistics.median(values):6.2f} s   p95 {p95(values):6.2f} s   "
                  f"(min {min(values):.2f}, max {max(values):.2f})")
    complete = [t for t in rounds if t.first_audio is not None and t.first_token is not None]
    if not complete:
        print("  no round spoke its answer")
        return
    firsts_s = [t.first_audio for t in complete]
    median, high = statistics.median(firsts_s), p95(firsts_s)
    verdict = "meets" if median <= TARGET_MEDIAN and high <= TARGET_P95 else "misses"
    print(f"  end of question -> first audio: median {median:.2f} s, p95 {high:.2f} s "
          f"({verdict} the {TARGET_MEDIAN:g} s / {TARGET_P95:g} s target)")
    shares = {
        "language detection": [t.language_detection for t in complete],
        "transcription": [t.transcription - t.language_detection for t in complete],
        "model to first token": [t.first_token - t.transcription for t in complete],
        "first sentence + speech": [t.first_audio - t.first_token for t in complete],
    }
    total = sum(t.first_audio for t in complete)
    print("  share of the time to first audio: " + ", ".join(
        f"{name} {100 * sum(values) / total:.0f}%" for name, values in shares.items()))


def barge_in(args: argparse.Namespace, home: Path) -> None:
    os.environ.update(PET_HOME=str(home), HF_HUB_OFFLINE="1", GRADIO_ANALYTICS_ENABLED="False")
    from talkclips import barge_in_times

    stops, events = barge_in_times(home, args.rounds)
    print(f"barge-in: {len(stops)} interruptions of a talking page; loud interruption -> the pet's audio paused: "
          f"median {statistics.median(stops):.0f} ms, max {max(stops):.0f} ms "
          f"(each: {', '.join(f'{ms:.0f}' for ms in stops)}); load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    print(f"page log: {events}")


if __name__ == "__main__":
    main()
