"""The file tools cannot be raced out of the workspace: while they run, a
thread keeps swapping a folder inside the workspace for a symbolic link to a
folder outside it and back. Not one read may show the secret kept outside,
not one write may land outside.

Run alone to see the counts: python -m pytest -q -s tests/test_files_race.py
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pet.events import ToolCall
from pet.tools.files import file_tools
from pet.tools.registry import ToolContext, ToolRegistry

pytestmark = pytest.mark.slow

READS = 20_000
WRITES = 5_000
SECRET = "SECRET-OUTSIDE-THE-WORKSPACE"
CONTEXT = ToolContext(pet_id=1, conversation_id=1)


class Swapper(threading.Thread):
    """Turns workspace/d from a real folder into a link to `outside` and
    back, as fast as it can. The real folder waits in a stash outside the
    workspace while the link stands in for it."""

    def __init__(self, workspace: Path, outside: Path, spare: Path) -> None:
        super().__init__(daemon=True)
        self.slot = workspace / "d"
        self.stash = spare / "stash"
        self.link = spare / "link"
        self.trash = spare / "trash"
        self.trash.mkdir()
        self.numbers = itertools.count()
        os.symlink(outside, self.link)
        self.stop = threading.Event()
        self.swaps = 0

    def _into_slot(self, source: Path) -> None:
        """Move `source` to the slot, clearing a folder a write made there."""
        while True:
            try:
                os.rename(source, self.slot)
                return
            except OSError:
                # write_file may have made d itself in the gap; move it aside.
                try:
                    os.rename(self.slot, self.trash / str(next(self.numbers)))
                except FileNotFoundError:
                    pass

    def run(self) -> None:
        while not self.stop.is_set():
            os.rename(self.slot, self.stash)
            self._into_slot(self.link)
            os.rename(self.slot, self.link)
            self._into_slot(self.stash)
            self.swaps += 1


@pytest.fixture
def race(tmp_path: Path) -> Iterator[tuple[ToolRegistry, Path, Swapper]]:
    workspace, outside, spare = tmp_path / "workspace", tmp_path / "outside", tmp_path / "spare"
    for folder in (workspace / "d", outside, spare):
        folder.mkdir(parents=True)
    (workspace / "d" / "f.txt").write_text("inside\n", encoding="utf-8")
    (outside / "f.txt").write_text(SECRET, encoding="utf-8")
    swapper = Swapper(workspace, outside, spare)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # let the swapper cut in between check and open
    swapper.start()
    try:
        yield ToolRegistry(file_tools(workspace)), outside, swapper
    finally:
        swapper.stop.set()
        swapper.join()
        sys.setswitchinterval(interval)


def test_reads_never_follow_a_folder_swapped_for_a_link(race):
    registry, _, swapper = race
    escapes = inside = crashes = 0
    for _ in range(READS):
        result = registry.execute(ToolCall("read_file", {"path": "d/f.txt"}), CONTEXT)
        escapes += SECRET in result.content
        inside += result.ok and "inside" in result.content
        crashes += "read_file failed:" in result.content  # an exception the tool did not expect
    print(f"\nread_file: {escapes} escapes in {READS} tries "
          f"({inside} read inside, {crashes} crashes, {swapper.swaps} swaps)")
    assert swapper.swaps > 100, "the swapper barely ran; the race was not tried"
    assert inside > 0, "the folder was never there; the race was not tried"
    assert escapes == 0
    assert crashes == 0


def test_writes_never_land_outside_through_a_swapped_folder(race):
    registry, outside, swapper = race
    made = crashes = 0
    for number in range(WRITES):
        call = ToolCall("write_file", {"path": f"d/new-{number}.txt", "content": "x"})
        result = registry.execute(call, CONTEXT)
        made += result.ok
        crashes += "write_file failed:" in result.content
    escapes = len([p for p in outside.iterdir() if p.name != "f.txt"])
    print(f"\nwrite_file: {escapes} files outside in {WRITES} tries "
          f"({made} written, {crashes} crashes, {swapper.swaps} swaps)")
    assert swapper.swaps > 100, "the swapper barely ran; the race was not tried"
    assert made > 0, "no write got through; the race was not tried"
    assert escapes == 0
    assert crashes == 0
