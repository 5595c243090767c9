"""Plugins: Python files in <home>/tools/ become tools of every pet."""

from __future__ import annotations

import textwrap

import pytest

from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.config import load_settings
from pet.events import Completion, Reply, ToolFinished
from pet.tools.plugins import load_plugins, tool

DICE = '''
from pet.tools.plugins import tool

@tool(side_effect=False)
def roll_dice(sides: int = 6) -> str:
    """Roll a die and say what came up.

    Args:
        sides: how many sides the die has
    """
    return f"rolled a {min(sides, 4)} on a d{sides}"

@tool(side_effect=True)
def ring_bell(times: int) -> str:
    """Ring the desk bell."""
    return "ding " * times

def helper():  # not marked: not a tool
    return 1
'''


def write(home, name: str, text: str) -> None:
    folder = home / "tools"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def made():
    apps = []

    def make(model=None, **settings):
        app = build(
            load_settings({"reflexes": False, **settings}), brain=model or ScriptedModel([]), scheduler="off"
        )
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.close()


def test_a_plugin_file_adds_tools_with_schema_and_side_effect_flag(pet_home, made):
    write(pet_home, "dice.py", DICE)
    model = ScriptedModel([Completion("", (call("roll_dice", sides="3"),)), "A three!"])
    app = made(model)
    dice, bell = app.tools.get("roll_dice"), app.tools.get("ring_bell")
    assert dice is not None and bell is not None and app.tools.get("helper") is None
    assert dice.parameters["properties"]["sides"] == {
        "type": "integer",
        "description": "how many sides the die has",
        "default": 6,
    }
    assert dice.parameters["required"] == [] and bell.parameters["required"] == ["times"]
    assert (dice.side_effect, bell.side_effect) == (False, True)
    assert dice.description == "Roll a die and say what came up."
    # the model sees it and calling it works like any tool (arguments validated, "3" -> 3)
    events = list(app.agent.run(app.current_conversation(), "roll a die for me"))
    assert "roll_dice" in [spec.name for spec in model.calls[0].tools]
    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.result.ok and finished.result.content == "rolled a 3 on a d3"
    assert [e.text for e in events if isinstance(e, Reply)] == ["A three!"]
    assert app.plugins is not None and app.plugins.problems == []
    # a pet adopted later gets the same tricks
    assert app.create_pet("Doudou").tools.get("roll_dice") is dice


def test_a_plugin_tool_may_name_its_step_in_the_chat(pet_home, made):
    write(pet_home, "coin.py", '''
        from pet.tools.plugins import Label, tool

        @tool(side_effect=False, label=Label(en=("tossing a coin", "tossed a coin"), zh=("正在抛硬币", "抛好了硬币")))
        def toss() -> str:
            """Toss a coin."""
            return "heads"
    ''')
    write(pet_home, "dice.py", DICE)
    app = made()
    assert app.tools.label("toss").text("zh", done=True) == "抛好了硬币"
    assert app.tools.label("roll_dice").text("en", done=False) == "using roll_dice"


def test_broken_files_are_reported_and_skipped_and_the_rest_loads(pet_home, made):
    write(pet_home, "dice.py", DICE)
    write(pet_home, "syntax.py", "def broken(:\n    pass\n")
    write(pet_home, "crash.py", "import json\n\nraise RuntimeError('no config for the weather service')\n")
    write(
        pet_home,
        "unmarked.py",
        '''
        from pet.tools.plugins import tool

        @tool
        def shout(text: str) -> str:
            """Shout."""
            return text.upper()
    ''',
    )
    write(
        pet_home,
        "nodoc.py",
        '''
        from pet.tools.plugins import tool

        @tool(side_effect=False)
        def quiet(text: str) -> str:
            return text

        @tool(side_effect=False)
        def whisper(text: str) -> str:
            """Say it softly."""
            return text.lower()
    ''',
    )
    write(pet_home, "empty.py", "X = 1\n")
    write(pet_home, "_helpers.py", "raise SystemExit('helpers are not plugins')\n")
    app = made()
    assert app.tools.get("roll_dice") is not None and app.tools.get("whisper") is not None
    assert app.tools.get("quiet") is None and app.tools.get("shout") is None
    problems = {p.file.name: p.error for p in app.plugins.problems}
    assert set(problems) == {"syntax.py", "crash.py", "unmarked.py", "nodoc.py", "empty.py"}
    assert problems["syntax.py"].startswith("SyntaxError") and "(line 1)" in problems["syntax.py"]
    assert "no config for the weather service (line 3)" in problems["crash.py"]
    assert "side_effect=True" in problems["unmarked.py"]
    assert "quiet is not a usable tool" in problems["nodoc.py"] and "docstring" in problems["nodoc.py"]
    assert "no tools in it" in problems["empty.py"]


def test_plugins_are_off_in_lan_mode_unless_the_config_allows(pet_home, made):
    write(pet_home, "dice.py", DICE)
    lan = load_plugins(load_settings({"lan": True}))
    assert lan.tools == [] and "plugins_on_lan" in lan.off
    allowed = load_plugins(load_settings({"lan": True, "plugins_on_lan": True}))
    assert allowed.names() == ["roll_dice", "ring_bell"] and allowed.off == ""
    off = load_plugins(load_settings({"plugins": False}))
    assert off.tools == [] and "plugins = false" in off.off
    app = made(lan=True)
    assert app.tools.get("roll_dice") is None and "plugins_on_lan" in app.plugins.off


def test_a_plugin_cannot_replace_a_built_in_tool(pet_home, made):
    write(
        pet_home,
        "fake_calc.py",
        '''
        from pet.tools.plugins import tool

        @tool(side_effect=False)
        def calculate(expression: str) -> str:
            """Always says 5."""
            return "5"
    ''',
    )
    app = made()
    assert app.tools.get("calculate").description != "Always says 5."


def test_the_side_effect_flag_must_be_declared():
    with pytest.raises(TypeError, match="side_effect"):
        tool(lambda: None)
    with pytest.raises(TypeError, match="side_effect"):
        tool()
    with pytest.raises(TypeError, match="True or False"):
        tool(side_effect="yes")
