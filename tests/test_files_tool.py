"""read_file / write_file / list_dir stay inside the workspace folder: a
traversal corpus runs against a real folder with real symbolic links."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.errors import ConfigError, ToolError
from pet.events import ToolCall
from pet.tools import files
from pet.tools.files import MAX_FILE_BYTES, MAX_WRITE_BYTES, SHOWN_CHARS, confine, file_tools
from pet.tools.registry import ToolContext, ToolRegistry

CORPUS = Path(__file__).parent / "fixtures" / "traversal.txt"
SECRET = "SECRET-OUTSIDE-THE-WORKSPACE"
CONTEXT = ToolContext(pet_id=1, conversation_id=1)


def corpus() -> list[str]:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.lstrip().startswith("#")]


@pytest.fixture
def place(tmp_path: Path) -> Path:
    """tmp/outside/secret.txt, and tmp/workspace with links in and out."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET, encoding="utf-8")
    workspace = tmp_path / "workspace"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "notes.md").write_text("# Notes\nbuy milk\n", encoding="utf-8")
    (workspace / "sub" / "inner.md").write_text("inner\n", encoding="utf-8")
    (workspace / "笔记.md").write_text("你好\n", encoding="utf-8")
    os.symlink("../outside/secret.txt", workspace / "link_out")
    os.symlink("../outside", workspace / "dir_out")
    os.symlink(str(outside), workspace / "abs_link")
    os.symlink("../outside/new.txt", workspace / "dangling_out")
    os.symlink("..", workspace / "sub" / "up")
    os.symlink("../..", workspace / "sub" / "up2")
    os.symlink("loop", workspace / "loop")
    os.symlink("notes.md", workspace / "link_in")
    return tmp_path


def tools(workspace: Path) -> ToolRegistry:
    return ToolRegistry(file_tools(workspace))


def run(registry: ToolRegistry, name: str, **arguments):
    return registry.execute(ToolCall(name, arguments), CONTEXT)


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every name under `folder` with its content (links by their target)."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        key = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[key] = "-> " + os.readlink(path)
        elif path.is_file():
            found[key] = path.read_bytes()
    return found


def test_the_corpus_is_large_and_covers_each_kind():
    paths = corpus()
    assert len(paths) >= 80
    assert any("\x00" in p for p in paths) and any("%2e" in p.lower() for p in paths)
    assert any("\uff0e" in p for p in paths) and any("\\" in p for p in paths)


@pytest.mark.parametrize("raw", corpus())
def test_every_corpus_path_is_refused_by_every_tool(place, raw):
    workspace, outside = place / "workspace", place / "outside"
    registry = tools(workspace)
    before_inside, before_outside = snapshot(workspace), snapshot(outside)

    with pytest.raises(ToolError):
        confine(workspace, raw)
    read = run(registry, "read_file", path=raw)
    listed = run(registry, "list_dir", path=raw)
    written = [run(registry, "write_file", path=raw, content="pwned", mode=mode)
               for mode in ("create", "append", "overwrite")]

    for result in (read, listed, *written):
        assert not result.ok, (raw, result.content)
        assert result.content.startswith("Error: ")
        assert SECRET not in result.content
    assert snapshot(outside) == before_outside
    assert snapshot(workspace) == before_inside
    assert sorted(p.name for p in place.iterdir()) == ["outside", "workspace"]


@pytest.mark.parametrize(
    "raw, content",
    [
        ("notes.md", "buy milk"),
        ("./notes.md", "buy milk"),
        ("  notes.md ", "buy milk"),
        ("sub/inner.md", "inner"),
        ("sub//inner.md", "inner"),
        ("link_in", "buy milk"),
        ("sub/up/notes.md", "buy milk"),
        ("sub/up2/workspace/notes.md", "buy milk"),  # out and back in: the same file
        ("笔记.md", "你好"),
    ],
)
def test_plain_paths_inside_are_read(place, raw, content):
    result = run(tools(place / "workspace"), "read_file", path=raw)
    assert result.ok, result.content
    assert content in result.content


def test_refusals_say_what_to_do(place):
    registry = tools(place / "workspace")
    assert "goes up out of its folder" in run(registry, "read_file", path="../x").content
    assert "separate folders with /" in run(registry, "read_file", path="a\\b").content
    assert "URL-encoded" in run(registry, "read_file", path="%2e%2e/x").content
    assert "look-alike" in run(registry, "read_file", path="\uff0e\uff0e/x").content
    assert "symbolic link" in run(registry, "read_file", path="link_out").content
    assert "absolute path" in run(registry, "read_file", path="/etc/passwd").content
    assert 'like "notes.md"' in run(registry, "read_file", path="/etc/passwd").content


def test_a_self_referring_link_is_an_error_not_a_hang(place):
    registry = tools(place / "workspace")
    assert not run(registry, "read_file", path="loop").ok
    assert not run(registry, "list_dir", path="loop").ok


def test_writing_through_a_dangling_link_creates_nothing_outside(place):
    result = run(tools(place / "workspace"), "write_file", path="dangling_out", content="x", mode="overwrite")
    assert not result.ok
    assert not (place / "outside" / "new.txt").exists()


def test_write_creates_folders_and_refuses_to_clobber(place):
    workspace = place / "workspace"
    registry = tools(workspace)
    made = run(registry, "write_file", path="trips/japan.md", content="Kyoto\n")
    assert made.ok, made.content
    assert (workspace / "trips" / "japan.md").read_text(encoding="utf-8") == "Kyoto\n"

    again = run(registry, "write_file", path="trips/japan.md", content="lost?")
    assert not again.ok and 'mode "append"' in again.content
    assert (workspace / "trips" / "japan.md").read_text(encoding="utf-8") == "Kyoto\n"

    assert run(registry, "write_file", path="trips/japan.md", content="Osaka\n", mode="append").ok
    assert (workspace / "trips" / "japan.md").read_text(encoding="utf-8") == "Kyoto\nOsaka\n"
    assert run(registry, "write_file", path="trips/japan.md", content="Nara\n", mode="overwrite").ok
    assert (workspace / "trips" / "japan.md").read_text(encoding="utf-8") == "Nara\n"
    assert not [p for p in (workspace / "trips").iterdir() if p.name.startswith(".pet-write-")]


def test_overwrite_keeps_the_file_mode(place):
    target = place / "workspace" / "notes.md"
    target.chmod(0o600)
    assert run(tools(place / "workspace"), "write_file", path="notes.md", content="new", mode="overwrite").ok
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_the_workspace_is_made_on_the_first_write(tmp_path):
    workspace = tmp_path / "fresh"
    registry = tools(workspace)
    assert run(registry, "list_dir").content == "The workspace folder is empty."
    assert run(registry, "write_file", path="a.txt", content="hi").ok
    assert (workspace / "a.txt").read_text(encoding="utf-8") == "hi"


def test_write_size_is_capped_and_nothing_is_written(place):
    registry = tools(place / "workspace")
    big = run(registry, "write_file", path="big.txt", content="x" * (MAX_WRITE_BYTES + 1))
    assert not big.ok and "Split it" in big.content
    assert not (place / "workspace" / "big.txt").exists()

    target = place / "workspace" / "grow.txt"
    target.write_text("y" * (MAX_FILE_BYTES - 10), encoding="utf-8")
    grown = run(registry, "write_file", path="grow.txt", content="z" * 11, mode="append")
    assert not grown.ok and "would grow" in grown.content
    assert target.stat().st_size == MAX_FILE_BYTES - 10


def test_write_refuses_nul_in_content(place):
    result = run(tools(place / "workspace"), "write_file", path="n.txt", content="a\x00b")
    assert not result.ok and "NUL" in result.content
    assert not (place / "workspace" / "n.txt").exists()


def test_read_size_is_capped(place):
    (place / "workspace" / "huge.log").write_bytes(b"a" * (MAX_FILE_BYTES + 1))
    result = run(tools(place / "workspace"), "read_file", path="huge.log")
    assert not result.ok and "up to 256.0 KB" in result.content


def test_binary_files_are_reported_not_dumped(place):
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
    (place / "workspace" / "face.png").write_bytes(png)
    (place / "workspace" / "latin1.txt").write_bytes("café".encode("latin-1"))
    registry = tools(place / "workspace")
    image = run(registry, "read_file", path="face.png")
    assert not image.ok and "image/png" in image.content and "IHDR" not in image.content
    latin = run(registry, "read_file", path="latin1.txt")
    assert not latin.ok and "not UTF-8" in latin.content


def test_long_files_are_read_a_page_at_a_time(place):
    lines = [f"line {n:04d} " + "x" * 60 for n in range(1, 301)]
    (place / "workspace" / "long.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    registry = tools(place / "workspace")
    first = run(registry, "read_file", path="long.md")
    assert first.ok and "line 0001" in first.content and "line 0300" not in first.content
    assert len(first.content) < SHOWN_CHARS + 200
    next_line = int(first.content.rsplit("start_line=", 1)[1].split()[0])
    second = run(registry, "read_file", path="long.md", start_line=next_line)
    assert f"line {next_line:04d}" in second.content and f"line {next_line - 1:04d}" not in second.content
    past = run(registry, "read_file", path="long.md", start_line=301)
    assert not past.ok and "300 lines" in past.content


def test_special_files_are_left_alone(place):
    workspace = place / "workspace"
    os.mkfifo(workspace / "pipe")
    os.link(place / "outside" / "secret.txt", workspace / "hard")
    registry = tools(workspace)
    piped = run(registry, "read_file", path="pipe")
    assert not piped.ok and "not an ordinary file" in piped.content
    hard = run(registry, "read_file", path="hard")
    assert not hard.ok and "hard link" in hard.content and SECRET not in hard.content
    appended = run(registry, "write_file", path="hard", content="pwned", mode="append")
    assert not appended.ok
    assert (place / "outside" / "secret.txt").read_text(encoding="utf-8") == SECRET


def test_folders_are_listed_and_read_file_points_to_list_dir(place):
    registry = tools(place / "workspace")
    listing = run(registry, "list_dir").content
    assert "sub/" in listing and "notes.md (" in listing and "笔记.md" in listing
    assert "dir_out (a link leading outside the workspace" in listing
    assert "link_in (a link to notes.md)" in listing
    assert SECRET not in listing
    assert "inner.md" in run(registry, "list_dir", path="sub").content
    folder = run(registry, "read_file", path="sub")
    assert not folder.ok and "list_dir" in folder.content
    missing = run(registry, "read_file", path="nope.md")
    assert not missing.ok and "list_dir" in missing.content


def test_only_write_file_is_a_side_effect_tool(place):
    registry = tools(place / "workspace")
    assert {spec.name: spec.side_effect for spec in registry.specs()} == {
        "read_file": False, "write_file": True, "list_dir": False,
    }


def test_the_app_gives_every_pet_the_file_tools_on_its_workspace(pet_home):
    app = build(load_settings({"scheduler": "off"}), brain=ScriptedModel([]))
    assert {"read_file", "write_file", "list_dir"} <= set(app.tools.names())
    result = app.tools.execute(ToolCall("write_file", {"path": "hello.md", "content": "hi"}), CONTEXT)
    assert result.ok and (app.settings.workspace_dir / "hello.md").read_text(encoding="utf-8") == "hi"
    app.close()
    app = build(load_settings({"scheduler": "off", "file_tools": False}), brain=ScriptedModel([]))
    assert not {"read_file", "write_file", "list_dir"} & set(app.tools.names())
    app.close()


@pytest.mark.parametrize("workspace", ["{home}", "{home}/..", "{db_dir}"])
def test_the_workspace_may_not_hold_the_pets_own_files(tmp_path, workspace):
    home, db_dir = tmp_path / "home", tmp_path / "data"
    chosen = workspace.format(home=home, db_dir=db_dir)
    with pytest.raises(ConfigError, match="which the file tools must not reach"):
        load_settings({"home": str(home), "workspace": chosen, "database_url": f"sqlite:///{db_dir}/pet.db"})
    assert load_settings({"home": str(home), "workspace": str(tmp_path / "files")}).workspace_dir == tmp_path / "files"


@pytest.mark.parametrize("name, arguments", [
    ("read_file", {"path": "sub/inner.md"}),
    ("list_dir", {"path": "sub"}),
    ("write_file", {"path": "sub/new.md", "content": "pwned"}),
    ("write_file", {"path": "sub/inner.md", "content": "pwned", "mode": "overwrite"}),
    ("write_file", {"path": "sub/deeper/new.md", "content": "pwned"}),
])
def test_a_folder_swapped_for_a_link_after_the_check_is_not_followed(place, monkeypatch, name, arguments):
    """The race, made certain: sub becomes a link to outside right after
    confine() approved the path, before the tool opens it."""
    workspace, outside = place / "workspace", place / "outside"
    (outside / "inner.md").write_text(SECRET, encoding="utf-8")
    before_outside = snapshot(outside)
    real_confine = files.confine

    def confine_then_swap(root: Path, raw: str) -> Path:
        approved = real_confine(root, raw)
        os.rename(workspace / "sub", place / "sub-moved")
        os.symlink(outside, workspace / "sub")
        return approved

    monkeypatch.setattr(files, "confine", confine_then_swap)
    result = run(tools(workspace), name, **arguments)
    assert not result.ok and "symbolic link" in result.content, result.content
    assert SECRET not in result.content
    assert snapshot(outside) == before_outside
