"""Teach the pet new tricks: Python files in `<home>/tools/` become tools.

A plugin file marks its tools with `@tool(side_effect=...)`; the flag must be
declared, since it decides whether a call may run in parallel and whether it
waits for the person's "yes". The schema comes from the function's type
hints and docstring, as for the built-in tools (`Tool.from_function`)::

    # ~/.pet/tools/dice.py
    import random
    from pet.tools.plugins import tool

    @tool(side_effect=False)
    def roll_dice(sides: int = 6) -> str:
        \"\"\"Roll a die and say what came up.

        Args:
            sides: how many sides the die has
        \"\"\"
        return f"rolled a {random.randint(1, sides)}"

`@tool(side_effect=False, label=Label(en=("rolling a die", "rolled a die"),
zh=("正在掷骰子", "掷好了骰子")))` names its step in the chat (default:
"using roll_dice").

A file that fails to load, or a tool that cannot become one, is reported and
skipped; the other files still load. Plugins run whatever code their files
hold, so they are off in LAN mode unless `plugins_on_lan` allows them.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

from pet.config import Settings
from pet.tools.registry import Label, Tool, ToolRegistry

log = logging.getLogger(__name__)

PLUGIN_DIR = "tools"
_MARK = "__pet_tool__"
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class _Mark:
    side_effect: bool
    name: str | None
    label: Label | None = None


def tool(
    function: Callable[..., Any] | None = None, *, side_effect: bool | None = None, name: str | None = None,
    label: Label | None = None,
) -> Any:
    """Mark a function in a plugin file as a tool. `side_effect=True` when it
    changes anything (writes, sends, deletes); `False` when it only reads or
    computes."""
    if function is not None or side_effect is None:
        raise TypeError(
            "declare whether the tool changes anything: @tool(side_effect=True) or @tool(side_effect=False)"
        )
    if not isinstance(side_effect, bool):
        raise TypeError(f"side_effect must be True or False, not {side_effect!r}")

    def mark(fn: F) -> F:
        setattr(fn, _MARK, _Mark(side_effect, name, label))
        return fn

    return mark


@dataclass(frozen=True)
class PluginProblem:
    file: Path
    error: str

    def __str__(self) -> str:
        return f"{self.file.name}: {self.error}"


@dataclass
class Plugins:
    """What start-up found in the tools folder."""

    folder: Path
    tools: list[Tool] = field(default_factory=list)
    #: the file each tool came from, by tool name
    sources: dict[str, Path] = field(default_factory=dict)
    problems: list[PluginProblem] = field(default_factory=list)
    #: why nothing was loaded, when plugins are off
    off: str = ""

    def names(self) -> list[str]:
        return [t.name for t in self.tools]

    def add_to(self, registry: ToolRegistry) -> list[str]:
        """Register the plugin tools a registry lacks; returns the names
        skipped because a built-in tool has them."""
        clashes = []
        for plugin in self.tools:
            if plugin.name in registry:
                clashes.append(plugin.name)
            else:
                registry.add(plugin)
        return clashes


def plugin_folder(settings: Settings) -> Path:
    return settings.home / PLUGIN_DIR


def plugins_off_reason(settings: Settings) -> str:
    """Why plugins stay off with these settings ("" when they load)."""
    if not settings.plugins:
        return "plugins are turned off (plugins = false)"
    if settings.lan and not settings.plugins_on_lan:
        return (
            "plugins are off in LAN mode: anyone who can reach the pet could run them; "
            "set plugins_on_lan = true in config.toml to allow them"
        )
    return ""


def _module_name(path: Path) -> str:
    stem = "".join(ch if ch.isalnum() else "_" for ch in path.stem)
    return f"pet_plugin_{stem}"


def _load_file(path: Path) -> tuple[list[Tool], list[str]]:
    """The file's tools, and what was wrong with the functions that could
    not become tools. Raises what running the file raised."""
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError("not a loadable Python file")
    module = importlib.util.module_from_spec(spec)
    # registered while it runs, so dataclasses and pickling inside the file work
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    tools, errors = [], []
    for value in vars(module).values():
        mark = getattr(value, _MARK, None)
        if not (isinstance(mark, _Mark) and callable(value)):
            continue
        try:
            tools.append(Tool.from_function(value, side_effect=mark.side_effect, name=mark.name, label=mark.label))
        except (TypeError, ValueError, NameError) as exc:
            errors.append(f"{getattr(value, '__name__', value)!s} is not a usable tool: {exc}")
    return tools, errors


def _describe(exc: BaseException, path: Path) -> str:
    """The error and the line of the plugin file where it happened."""
    where = ""
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    own = [f for f in frames if Path(f.filename) == path]
    if isinstance(exc, SyntaxError) and exc.lineno:
        where = f" (line {exc.lineno})"
    elif own:
        where = f" (line {own[-1].lineno})"
    return f"{type(exc).__name__}: {exc}{where}"


def load_plugins(settings: Settings) -> Plugins:
    """Load every `*.py` file in `<home>/tools/` (names starting with `_`
    are helpers, not plugins), in name order. Never raises."""
    folder = plugin_folder(settings)
    found = Plugins(folder)
    found.off = plugins_off_reason(settings)
    if found.off or not folder.is_dir():
        if found.off and folder.is_dir() and any(folder.glob("*.py")):
            log.warning("%s; not loading the files in %s", found.off, folder)
        return found
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("_"):
            continue
        try:
            tools, errors = _load_file(path)
        except (Exception, SystemExit) as exc:  # a broken plugin must not stop the pet
            found.problems.append(PluginProblem(path, _describe(exc, path)))
            continue
        found.problems.extend(PluginProblem(path, error) for error in errors)
        if not tools and not errors:
            found.problems.append(
                PluginProblem(path, "no tools in it: mark each tool function with @tool(side_effect=...)")
            )
        for plugin in tools:
            if plugin.name in found.sources:
                found.problems.append(
                    PluginProblem(
                        path,
                        f"a tool named {plugin.name!r} already came from {found.sources[plugin.name].name}; "
                        "rename one of them",
                    )
                )
                continue
            found.tools.append(plugin)
            found.sources[plugin.name] = path
    for problem in found.problems:
        log.warning("plugin skipped: %s — fix the file and restart the pet", problem)
    if found.tools:
        log.info("plugins: %s from %s", ", ".join(found.names()), folder)
    return found
