"""The shell tool: allow-listed programs, argument lists only, in the
workspace, with a timeout and an output cap. Real programs, real folders."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import Settings, load_settings
from pet.errors import ConfigError, ToolArgumentError
from pet.events import ToolCall
from pet.tools.registry import ToolRegistry
from pet.tools.shell import MAX_OUTPUT_BYTES, allowed_programs, shell_tool

DEFAULT_PROGRAMS = Settings().shell_programs
CORPUS = Path(__file__).parent / "fixtures" / "traversal.txt"
SECRET = "SECRET-OUTSIDE-THE-WORKSPACE"


@pytest.fixture
def place(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    workspace = tmp_path / "workspace"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "notes.md").write_text("buy milk\nwalk the dog\n", encoding="utf-8")
    (workspace / "list0").write_bytes(str(outside / "secret.txt").encode() + b"\x00")
    os.symlink("../outside/secret.txt", workspace / "link_out")
    os.symlink("../outside", workspace / "dir_out")
    os.symlink(str(outside), workspace / "abs_link")
    os.symlink("../..", workspace / "sub" / "up2")
    return tmp_path


def registry(workspace: Path, programs: str = DEFAULT_PROGRAMS, timeout: float = 10.0) -> ToolRegistry:
    return ToolRegistry([shell_tool(workspace, allowed_programs(programs), timeout)])


def run(reg: ToolRegistry, program: str, *args: str):
    return reg.execute(ToolCall("shell", {"program": program, "args": list(args)}))


def test_an_allowed_program_runs_in_the_workspace(place):
    result = run(registry(place / "workspace"), "ls")
    assert result.ok, result.content
    assert "notes.md" in result.content and "(exit code 0)" in result.content
    counted = run(registry(place / "workspace"), "wc", "-l", "notes.md")
    assert counted.ok and "2 notes.md" in counted.content


def test_arguments_are_never_read_by_a_shell(place):
    workspace = place / "workspace"
    result = run(registry(workspace), "echo", "a | rm notes.md", "$(rm notes.md)", "*", "; rm -rf .")
    assert result.ok
    assert "a | rm notes.md $(rm notes.md) * ; rm -rf ." in result.content
    assert (workspace / "notes.md").exists()


@pytest.mark.parametrize("program", ["rm", "sh", "bash", "/bin/ls", "ls -la", "ls;rm", "python3", "sort", "env"])
def test_programs_off_the_list_are_refused(place, program):
    result = run(registry(place / "workspace"), program)
    assert not result.ok
    assert "'program' must be one of ['ls', 'cat'" in result.content
    assert "(exit code" not in result.content


def test_the_tool_itself_refuses_a_program_off_the_list(place):
    """Also when called without the registry's schema check."""
    tool = shell_tool(place / "workspace", ("ls",), 10.0)
    with pytest.raises(ToolArgumentError, match="not an allowed program; the shell tool runs only: ls"):
        tool.function(program="rm", args=["-rf", "."])
    assert (place / "workspace" / "notes.md").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["cat", "../outside/secret.txt"],
        ["cat", "/etc/passwd"],
        ["cat", "~/.bashrc"],
        ["cat", "link_out"],
        ["cat", "dir_out/secret.txt"],
        ["cat", "abs_link/secret.txt"],
        ["cat", "sub/up2/outside/secret.txt"],
        ["cat", "--", "../outside/secret.txt"],
        ["head", "-n", "5", "link_out"],
        ["grep", "--file=../outside/secret.txt", "notes.md"],
        ["grep", "-f/etc/passwd", "notes.md"],
        ["grep", "-R", "SECRET", "."],
        ["grep", "-rR", "SECRET", "."],
        ["ls", "-L", "dir_out"],
        ["ls", "-lL"],
        ["wc", "--files0-from=list0"],
        # GNU programs take any unambiguous beginning of a long option
        ["grep", "--dereference-r", "SECRET"],
        ["grep", "--dereference", "SECRET"],
        ["wc", "--files0", "list0"],
        ["wc", "--files0-f=list0"],
        ["cat", "notes.md\x00../outside/secret.txt"],
        ["ls", "dir_out"],
        ["date", "--file=link_out"],
    ],
)
def test_arguments_reaching_outside_are_refused_before_anything_runs(place, args):
    result = run(registry(place / "workspace"), *args)
    assert not result.ok, result.content
    assert SECRET not in result.content
    assert "(exit code" not in result.content  # refused, not run


def corpus() -> list[str]:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.lstrip().startswith("#")]


def test_no_traversal_path_lets_cat_show_what_is_outside(place):
    reg = registry(place / "workspace")
    for raw in corpus():
        result = run(reg, "cat", raw)
        assert SECRET not in result.content, raw


def test_a_failing_program_reports_its_exit_code(place):
    result = run(registry(place / "workspace"), "cat", "missing.txt")
    assert result.ok
    assert "(exit code 1)" in result.content and "No such file" in result.content


def test_a_program_that_runs_too_long_is_stopped(place):
    result = run(registry(place / "workspace", timeout=0.5), "tail", "-f", "notes.md")
    assert not result.ok
    assert "took too long" in result.content and "buy milk" in result.content


def test_output_is_capped(place):
    (place / "workspace" / "big.txt").write_bytes(b"0123456789abcdef\n" * 65536)  # 1.1 MB
    result = run(registry(place / "workspace"), "cat", "big.txt")
    assert result.ok
    assert "output cut at 3 KB" in result.content
    assert len(result.content) < MAX_OUTPUT_BYTES + 200
    shown = run(registry(place / "workspace"), "head", "-c", str(MAX_OUTPUT_BYTES), "big.txt")
    assert "output cut" not in shown.content


def test_the_program_gets_no_secrets_from_the_environment(place, monkeypatch):
    monkeypatch.setenv("PET_API_KEY", "sk-very-secret")
    result = run(registry(place / "workspace", "printenv"), "printenv")
    assert result.ok
    assert "sk-very-secret" not in result.content and "PET_API_KEY" not in result.content
    assert "PATH=/usr/local/bin:/usr/bin:/bin" in result.content


def test_an_allowed_program_that_is_not_installed_says_so(place):
    result = run(registry(place / "workspace", "ls,no-such-program-here"), "no-such-program-here")
    assert not result.ok and "not installed" in result.content


@pytest.mark.parametrize("setting", ["/bin/ls", "ls -la", "ls,../x", "ls;rm"])
def test_the_allow_list_setting_takes_plain_names_only(setting):
    with pytest.raises(ConfigError, match="not a program name"):
        allowed_programs(setting)


def test_the_allow_list_setting_is_read():
    assert allowed_programs(" ls, cat ,,ls ") == ("ls", "cat")


def test_shell_is_a_side_effect_tool_that_names_its_programs(place):
    spec = registry(place / "workspace", "ls,wc").specs()[0]
    assert spec.side_effect
    assert "ls, wc" in spec.parameters["properties"]["program"]["description"]
    assert spec.parameters["properties"]["program"]["enum"] == ["ls", "wc"]
    assert spec.parameters["properties"]["args"]["type"] == "array"


# --- in the app -----------------------------------------------------------------------


def test_the_app_has_no_shell_unless_it_is_turned_on(pet_home):
    app = build(load_settings({"scheduler": "off"}), brain=ScriptedModel([]))
    assert "shell" not in app.tools.names()
    app.close()
    app = build(load_settings({"scheduler": "off", "shell": True, "shell_programs": "ls,wc"}), brain=ScriptedModel([]))
    assert app.tools.get("shell").parameters["properties"]["program"]["enum"] == ["ls", "wc"]
    app.close()


def test_bad_shell_settings_stop_the_start_with_a_clear_message(pet_home):
    with pytest.raises(ConfigError, match="shell_timeout must be more than 0"):
        load_settings({"shell_timeout": 0})
    with pytest.raises(ConfigError, match="not a program name"):
        build(load_settings({"scheduler": "off", "shell": True, "shell_programs": "ls,/bin/sh"}),
              brain=ScriptedModel([]))
