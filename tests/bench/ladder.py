"""Time to first token, turn by turn, for one rung of the embedded ladder.

    python tests/bench/ladder.py --rung small --threads 1 [--layout current|volatile-last] [--warm]
    python tests/bench/ladder.py --rung small --threads 0 --layout volatile-last --warm --reflexes
    python tests/bench/ladder.py --rung small --layout volatile-last --warm --reflexes [--withhold off]
    python tests/bench/ladder.py --rung small --layout volatile-last --warm --switch

Runs a short conversation (5 turns, reflexes off) through the whole pet with
the real persona prompt and tools, on a clock that moves a minute per turn
as a real chat does, with a few memories to recall. For each turn it prints
the prompt tokens, how many of them llama.cpp could reuse from its cache, the
time to the first token the model sends, and the whole model time. Then a
40-token reply on the last conversation, and the process's peak RSS.

`--layout current` sends the whole system prompt first (as for a server
brain); `volatile-last` (what the embedded brain asks for) puts its volatile
end, the time and the recalled memories, in a system message just before
the new message, so that llama.cpp's prefix cache covers the rest. Timings
on a shared machine are noisy: the load average is printed with each run.

`--reflexes` runs the turns as the app does, through the intent router: small
talk may call no tool, and a time question between the turns is answered by
code. `--withhold off` then shows the model no tools on a step that may call
none (as before 2026-12-01's second session) instead of every tool with
none callable, to compare what that costs the next turn.

`--pause S` waits S seconds before each message, as a person reads the reply
and writes the next: the pet reads the conversation ahead meanwhile (after
each reply), and each turn prints the time from sending to the first text
as well as the model's own first token.

`--rounds R --history-messages N` makes a longer conversation whose older
turns fold into the summary (after a reply, while the person writes).

`--switch` says turns 2 and 4 in English, as a bilingual person might, to
time what a change of language costs the turn after it.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

TURNS = [
    "你好呀！今天过得怎么样？",
    "我今天加班到很晚，有点累。",
    "你喜欢吃什么？",
    "周末我想去公园散步，你觉得呢？",
    "给我讲个简短的笑话吧。",
]
#: with --switch: turns 2 and 4 in English instead
SWITCHED = {2: "I worked late today and I'm a bit tired.", 4: "I want to walk in the park this weekend, what do you think?"}
#: with --reflexes: a question answered by code, between the third and fourth turn
REFLEX_TURN = (3, "现在几点了？")
MEMORIES = ["主人养了一只叫Tom的猫", "主人喜欢喝绿茶", "主人晚上11点以后写代码", "主人住在杭州"]


class Timed:
    """Wraps the embedded model: times each call's first part and its end."""

    def __init__(self, model, layout: str, withhold: bool = True):
        self.model = model
        self.label = model.label
        self.withholds_tools = withhold and getattr(model, "withholds_tools", False)
        # the app treats the wrapped model as it treats the embedded one
        self.avoids_copies = getattr(model, "avoids_copies", False)
        self.constrained_tool_calls = getattr(model, "constrained_tool_calls", False)
        # the agent puts the time and the memories late for a brain that says so
        self.reuses_prompt_prefix = layout == "volatile-last"
        self.calls: list[dict] = []
        self.in_aside = False
        self.warms: list[tuple[int, float]] = []  # (tokens read, seconds): at start and after each reply

    def stream(self, messages, tools=(), **kwargs):
        llm = self.model._llm
        cached = list(llm._input_ids) if llm is not None else []
        started, cpu = time.perf_counter(), time.process_time()
        first = first_cpu = None
        done = None
        try:
            for part in self.model.stream(messages, tools, **kwargs):
                if first is None:
                    first, first_cpu = time.perf_counter() - started, time.process_time() - cpu
                if hasattr(part, "usage") and part.usage is not None:
                    done = part
                yield part
        finally:
            # also when the agent stops reading early (a reply at its sentence cap):
            # then the prompt's length is what llama.cpp holds less what it generated
            current = list(self.model._llm._input_ids)
            reused = 0
            while reused < min(len(cached), len(current)) and cached[reused] == current[reused]:
                reused += 1
            prompt = done.usage.prompt_tokens if done is not None else None
            self.calls.append({"prompt_tokens": prompt if prompt is not None else f"~{len(current)}",
                               "reused": min(reused, prompt) if prompt is not None else reused, "first_s": first,
                               "first_cpu_s": first_cpu, "total_s": time.perf_counter() - started,
                               "total_cpu_s": time.process_time() - cpu,
                               "completion_tokens": done.usage.completion_tokens if done is not None else "cut",
                               "threads": self.model.threads_used, "aside": self.in_aside,
                               "tool_calls": [c.name for c in done.tool_calls] if done is not None else []})

    @contextlib.contextmanager
    def aside(self):
        """A summary between turns: kept out of the turns' figures."""
        with self.model.aside():
            self.in_aside = True
            try:
                yield
            finally:
                self.in_aside = False

    def warm(self, messages, tools=(), stable=0):
        started = time.perf_counter()
        tokens = self.model.warm(messages, tools, stable=stable)
        self.warms.append((tokens, time.perf_counter() - started))
        return tokens

    def complete(self, messages, tools=(), **kwargs):
        from pet.brain.base import complete_from_stream

        return complete_from_stream(self.stream(messages, tools, **kwargs))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rung", default="small")
    parser.add_argument("--threads", type=int, default=1,
                        help="llama.cpp threads; 0: as the pet chooses them (the free cores, before each call)")
    parser.add_argument("--layout", choices=("current", "volatile-last"), default="current")
    parser.add_argument("--models-home", default=os.path.join(tempfile.gettempdir(), "pet-bench-models"),
                        help="where joined models are kept between runs")
    parser.add_argument("--warm", action="store_true",
                        help="read the prompt's stable start before turn 1, as `run` does at start")
    parser.add_argument("--reflexes", action="store_true", help="route the turns as the app does (see above)")
    parser.add_argument("--withhold", choices=("on", "off"), default="on")
    parser.add_argument("--switch", action="store_true", help="turns 2 and 4 in English (see above)")
    parser.add_argument("--rounds", type=int, default=1, help="say the five turns this many times")
    parser.add_argument("--history-messages", type=int, default=None,
                        help="messages shown before older ones fold into the summary (the pet's setting)")
    parser.add_argument("--pause", type=float, default=0.0,
                        help="seconds between a reply and the next message, as a person reads and writes")
    args = parser.parse_args()
    os.environ["PET_HOME"] = tempfile.mkdtemp(prefix="pet-bench-")

    from pet.app import build
    from pet.brain import ladder
    from pet.brain.embedded import EmbeddedChatModel
    from pet.config import load_settings
    from pet.events import Message

    rung = ladder.RUNGS[args.rung]
    model = EmbeddedChatModel(rung=rung, home=Path(args.models_home), n_threads=args.threads)
    started = time.perf_counter()
    model.load()
    load_s = time.perf_counter() - started
    timed = Timed(model, args.layout, args.withhold == "on")
    minute = [0]
    base = dt.datetime(2026, 12, 1, 20, 0, tzinfo=dt.UTC)
    settings = {"reflexes": args.reflexes}
    if args.history_messages:
        settings["history_messages"] = args.history_messages
    app = build(load_settings(settings), brain=timed, behaves_as="embedded",
                clock=lambda: base + dt.timedelta(minutes=minute[0]), scheduler="off")
    pet_id = app.pet.id
    for fact in MEMORIES:
        app.memories.remember(pet_id, fact)
    conversation = app.new_conversation()
    if args.warm:
        started = time.perf_counter()
        print(f"warm-up: {app.agent.warm(conversation)} tokens read in {time.perf_counter() - started:.2f} s")
    print(f"{rung.label}, {args.threads} thread(s), layout {args.layout}, reflexes {args.reflexes}, "
          f"withhold {args.withhold}, switch {args.switch}; load {load_s:.2f} s; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {time.strftime('%H:%M UTC', time.gmtime())}")
    turns = []
    said = [(i, SWITCHED.get(i, text) if args.switch else text) for i, text in enumerate(TURNS * args.rounds, 1)]
    if args.reflexes:
        said.insert(REFLEX_TURN[0], (0, REFLEX_TURN[1]))
    mark, fold_mark = len(timed.warms), len(timed.calls)
    for i, text in said:
        minute[0] += 1
        time.sleep(args.pause)  # the person reads the reply and writes; the pet reads ahead meanwhile
        before = len(timed.calls)
        reply = ""
        sent, shown = time.perf_counter(), None
        for event in app.agent.run(conversation, text):
            if shown is None and type(event).__name__ in ("TextDelta", "Reply"):
                shown = time.perf_counter() - sent
            if type(event).__name__ == "Reply":
                reply = event.text
        calls = [c for c in timed.calls[before:] if not c["aside"]]
        folds = [c for c in timed.calls[fold_mark:] if c["aside"]]
        fold_mark = len(timed.calls)
        ahead = [sum(t for t, _ in timed.warms[mark:]), sum(s for _, s in timed.warms[mark:])]
        mark = len(timed.warms)
        if not calls:
            waited = "" if shown is None else f"first text {shown:.2f} s after sending; "
            print(f"(no model call) {waited}{text} — {reply[:60]!r}", flush=True)
            continue
        first = calls[0]
        turns.append({"turn": i, **first, "calls": len(calls), "reply": reply, "shown_s": shown,
                      "read_ahead": ahead[0]})
        print(f"turn {i}: first text {shown if shown is not None else float('nan'):.2f} s after sending; "
              f"prompt {first['prompt_tokens']} tok, reused {first['reused']}, "
              f"first token {first['first_s']:.2f} s ({first['first_cpu_s']:.2f} CPU-s), "
              f"model {sum(c['total_s'] for c in calls):.2f} s ({sum(c['total_cpu_s'] for c in calls):.2f} CPU-s) "
              f"({len(calls)} call(s), {first['threads']} thread(s), {first['completion_tokens']} tok{', tools ' + str(first['tool_calls']) if first['tool_calls'] else ''})"
              f"; read ahead {ahead[0]} tok in {ahead[1]:.2f} s"
              f"{'; a summary before it: %.1f s' % sum(c['total_s'] for c in folds) if folds else ''}"
              f" — {reply[:60]!r}", flush=True)

    app.agent.locks.wait_idle()  # a summary or a read-ahead after the last reply is not the 40 tokens' time
    # A 40-token reply on the conversation so far (its prefix is cached).
    history = [Message("system", "你是小钳，一只住在主人电脑里的小龙虾。"), Message("user", "给我讲一个关于小龙虾的长故事。")]
    model.complete(history, max_tokens=4)  # the prompt is read and cached
    started, cpu = time.perf_counter(), time.process_time()
    done = model.complete(history, max_tokens=40, temperature=0.7)
    forty, forty_cpu = time.perf_counter() - started, time.process_time() - cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"40-token reply: {done.usage.completion_tokens} tokens in {forty:.2f} s ({forty_cpu:.2f} CPU-s) "
          f"({done.usage.completion_tokens / forty:.1f} tok/s, prompt cached); peak RSS {rss:.0f} MB; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(json.dumps({"rung": rung.key, "threads": args.threads, "layout": args.layout, "load_s": load_s,
                      "turns": turns, "forty_s": forty, "forty_cpu_s": forty_cpu, "forty_tokens": done.usage.completion_tokens,
                      "rss_mb": rss}, ensure_ascii=False))
    app.close()
    model.close()


if __name__ == "__main__":
    main()
