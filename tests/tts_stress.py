"""Stress harness for text to speech: many sentences, in fresh processes and
in threads, every WAV checked for being whole (the RIFF header's sizes agree
with the bytes) and long enough for its text.

Used by tests/test_speech_tts_stress.py; also runnable on its own, e.g. to
measure another version of pet/speech/tts.py:

    python tests/tts_stress.py [--tts-file OLD_TTS.py] [--processes 4] [--threads 4]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import struct
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: the sentence that went unspoken in issue 22
ISSUE_SENTENCE = "Tuesday 2026-12-01 12:44 (Etc/UTC,"

#: seconds of audio per character at least (espeak-ng at its default rate
#: speaks about 0.06-0.08 s per English character and 0.2-0.3 s per Chinese one;
#: a truncated file falls well under these)
FLOOR = {"en": 0.04, "zh": 0.12}

_EN = [
    ISSUE_SENTENCE,
    "It is 12:44 on Tuesday, the 1st of December 2026.",
    "Your meeting starts at 9:30 a.m. (in 45 minutes).",
    "I counted 1,234,567 grains of sand — roughly.",
    "Hello! I am a small crayfish, and I like warm water.",
    "Is it 3.14159, or 22/7? Either way: pi.",
    "Remind me on 2027-01-15 at 08:00, please!",
    "The temperature is -3 °C; wear a coat.",
    "Version 6.31 shipped on 2026/11/30 at 23:59:59.",
    "What time is it? It's 7 o'clock.",
]
_ZH = [
    "你好！我是一只小龙虾，我喜欢温暖的水。",
    "现在是2026年12月1日12点44分。",
    "明天上午9点半开会，别忘了。",
    "温度是零下3度，请穿外套。",
    "一共是1234元，对吗？",
    "今天星期二，天气晴朗。",
    "你的提醒在2027-01-15 08:00。",
    "我数了数：一、二、三、四、五。",
    "这是第42个问题吗？",
    "好的，我记住了：牛奶、面包和鸡蛋。",
]


def sentences(count: int = 200) -> list[tuple[str, str]]:
    """`count` (text, language) pairs, English and Chinese alternating, each
    text made distinct by a number so no two runs are alike."""
    out = []
    for i in range(count):
        if i % 2 == 0:
            base = _EN[(i // 2) % len(_EN)]
            text = base if i == 0 else f"{base} Number {i}."
            out.append((text, "en"))
        else:
            base = _ZH[(i // 2) % len(_ZH)]
            out.append((f"{base}第{i}句。", "zh"))
    return out


def check_wav(data: bytes, text: str, language: str) -> str | None:
    """What is wrong with a WAV of `text`, or None when it is whole and long enough."""
    if len(data) < 44:
        return f"empty ({len(data)} bytes)"
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return "not a RIFF/WAVE file"
    riff_size = struct.unpack_from("<I", data, 4)[0]
    if riff_size + 8 != len(data):
        return f"RIFF size {riff_size + 8} != file length {len(data)}"
    at, fmt, frames_bytes = 12, None, None
    while at + 8 <= len(data):
        chunk, size = data[at:at + 4], struct.unpack_from("<I", data, at + 4)[0]
        if chunk == b"fmt ":
            fmt = struct.unpack_from("<HHIIHH", data, at + 8)
        elif chunk == b"data":
            if at + 8 + size != len(data):
                return f"data size {size} does not reach the file's end ({len(data) - at - 8} bytes there)"
            frames_bytes = size
        at += 8 + size + (size & 1)
    if fmt is None or frames_bytes is None:
        return "no fmt or data chunk"
    _, channels, rate, _, block, _ = fmt
    seconds = frames_bytes / block / rate
    floor = FLOOR[language] * len(text)
    if seconds < floor:
        return f"{seconds:.2f} s for {len(text)} characters (floor {floor:.2f} s)"
    return None


def load_speaker(tts_file: str | None):
    if tts_file is None:
        from pet.speech.tts import Speaker
        return Speaker()
    spec = importlib.util.spec_from_file_location("tts_under_test", tts_file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.Speaker()


def speak_all(items: list[tuple[str, str]], threads: int, tts_file: str | None) -> list[dict]:
    """Say every item with one Speaker, from `threads` threads at once; one
    record per item: its text, what was wrong (None when fine) and the seconds."""
    speaker = load_speaker(tts_file)
    results: list[dict] = []
    lock = threading.Lock()

    def attempt(text: str, language: str) -> tuple[str | None, float]:
        try:
            speech = speaker.say(text, language)
            return check_wav(speech.wav, text, language), speech.seconds
        except Exception as exc:  # noqa: BLE001 — every failure counts
            return f"{type(exc).__name__}: {exc}", 0.0

    def work(share: list[tuple[str, str]]) -> None:
        for text, language in share:
            problem, seconds = attempt(text, language)
            first = problem
            if problem:  # as a voice turn does (pet.speech.turn.Voice._say): once more
                problem, seconds = attempt(text, language)
            with lock:
                results.append({"text": text, "language": language, "problem": problem, "seconds": seconds,
                                "retried": first})

    shares = [items[i::threads] for i in range(threads)]
    workers = [threading.Thread(target=work, args=(share,)) for share in shares]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return results


def in_processes(items: list[tuple[str, str]], processes: int, tts_file: str | None) -> list[dict]:
    """Each of `processes` fresh interpreters says its share, one after another."""
    children = []
    for i in range(processes):
        args = [sys.executable, str(Path(__file__)), "--worker", json.dumps(items[i::processes])]
        if tts_file:
            args += ["--tts-file", tts_file]
        children.append(subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True))
    results = []
    for i, child in enumerate(children):
        out, _ = child.communicate(timeout=600)
        results += _results(out, child.returncode, items[i::processes])
    return results


def _results(out: str, returncode: int, items: list[tuple[str, str]]) -> list[dict]:
    """A worker's records; when it died, every sentence of its share counts as lost."""
    lines = out.strip().splitlines()
    if returncode == 0 and lines:
        return json.loads(lines[-1])
    return [{"text": text, "language": language, "problem": f"the process died (exit {returncode})",
             "seconds": 0.0} for text, language in items]


def run(count: int = 200, processes: int = 4, threads: int = 4, tts_file: str | None = None) -> dict:
    """Half the sentences in fresh processes, half in threads of one process."""
    items = sentences(count)
    fresh = in_processes([item for i, item in enumerate(items) if i % 4 < 2], processes, tts_file)
    threaded = in_processes_threads([item for i, item in enumerate(items) if i % 4 >= 2], threads, tts_file)
    bad = [r for r in fresh + threaded if r["problem"]]
    retried = [r for r in fresh + threaded if r.get("retried")]
    return {"said": len(fresh) + len(threaded), "fresh": len(fresh), "threaded": len(threaded),
            "bad": len(bad), "problems": bad, "retried": retried}


def in_processes_threads(items: list[tuple[str, str]], threads: int, tts_file: str | None) -> list[dict]:
    """One fresh interpreter saying `items` from `threads` threads."""
    args = [sys.executable, str(Path(__file__)), "--worker", json.dumps(items), "--threads", str(threads)]
    if tts_file:
        args += ["--tts-file", tts_file]
    done = subprocess.run(args, cwd=ROOT, stdout=subprocess.PIPE, text=True, timeout=600, check=False)
    return _results(done.stdout, done.returncode, items)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker")
    parser.add_argument("--tts-file")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.worker:
        items = [tuple(item) for item in json.loads(args.worker)]
        print(json.dumps(speak_all(items, args.threads if "--threads" in sys.argv else 1, args.tts_file)))
        return
    report = run(args.count, args.processes, args.threads, args.tts_file)
    for problem in report["problems"]:
        print(f"{problem['language']} {problem['text']!r}: {problem['problem']}")
    print(f"said {report['said']} ({report['fresh']} in {args.processes} fresh processes, "
          f"{report['threaded']} in {args.threads} threads): {report['bad']} empty, truncated or short "
          f"after one more try; {len(report['retried'])} needed it")


if __name__ == "__main__":
    main()
