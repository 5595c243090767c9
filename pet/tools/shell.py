"""The `shell` tool: one allow-listed program at a time, in the workspace.

Off unless the `shell` setting is on. There is no shell in it: the program
and its arguments are an argument list (never a command string), so pipes,
redirection, wildcards and `$(...)` are plain text to the program. The
program must be on the allow list and is looked up on a fixed system PATH;
it runs in the workspace folder with a minimal environment (no secrets from
the pet's own), no input, a timeout and an output cap. Every argument that
names a path goes through the file tools' confinement, so `cat ../x`,
`cat /etc/passwd` and a symbolic link leading out are refused before
anything runs.
"""

from __future__ import annotations

import logging
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from pet.errors import ConfigError, ToolArgumentError, ToolError
from pet.tools.files import confine
from pet.tools.registry import Label, Tool

log = logging.getLogger(__name__)

#: bytes of output kept; then the program is stopped. Under the registry's
#: cap on a result, so what the model sees is never cut in the middle
MAX_OUTPUT_BYTES = 3 * 1024
MAX_ARGUMENTS = 64
MAX_ARGUMENT_CHARS = 1000
#: where programs are looked up: system folders only, never the workspace or ~
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
# Options that read a list of other files, or run another program.
_REFUSED_OPTIONS = ("--files0-from", "--compress-program")
# Options that make a program follow symbolic links while walking folders.
_LINK_FOLLOWING = {"ls": ("L", "--dereference"), "grep": ("R", "--dereference-recursive")}
# Programs that run other programs: allowing one allows everything.
_RUNNERS = {"sh", "bash", "zsh", "dash", "fish", "env", "xargs", "find", "sudo", "su", "python", "python3",
            "perl", "ruby", "node", "awk", "sed", "nohup", "timeout", "nice", "watch", "ssh", "doas"}
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


def allowed_programs(text: str) -> tuple[str, ...]:
    """Read the `shell_programs` setting ("ls,cat,wc"). Raises ConfigError for
    anything but plain program names."""
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    for name in names:
        if not _NAME.fullmatch(name):
            raise ConfigError(f"shell_programs: {name!r} is not a program name; list names like ls,cat,wc "
                              "separated by commas (no paths, no arguments)")
        if name in _RUNNERS:
            log.warning("shell_programs allows %s, which can run any other program", name)
    return names


def _refuse(why: str) -> ToolArgumentError:
    return ToolArgumentError(why)


def _check_operand(workspace: Path, value: str) -> None:
    """A value that may name a file: it must stay inside the workspace."""
    if value.startswith(("/", "~")):
        raise _refuse(f"{value!r} is an absolute path; the shell tool only reaches the workspace folder")
    if ".." in value.split("/"):
        raise _refuse(f"{value!r} goes up out of the workspace with ..")
    if "/" in value or os.path.lexists(os.path.join(workspace, value)):
        confine(workspace, value)


def _may_mean(option: str, name: str) -> bool:
    """Whether `option` may be the long option `name`: GNU programs take any
    unambiguous beginning of one ("--dereference-r" is --dereference-recursive)."""
    return option.startswith("--") and len(option) > 2 and name.startswith(option)


def check_arguments(workspace: Path, program: str, args: Sequence[str]) -> None:
    """Raise ToolArgumentError for an argument that could reach outside the
    workspace or run something else."""
    if len(args) > MAX_ARGUMENTS:
        raise _refuse(f"{len(args)} arguments; the shell tool takes up to {MAX_ARGUMENTS}")
    operands_only = False
    for arg in args:
        if len(arg) > MAX_ARGUMENT_CHARS:
            raise _refuse(f"an argument is {len(arg)} characters long; the limit is {MAX_ARGUMENT_CHARS}")
        if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in arg):
            raise _refuse(f"{arg!a} holds a control or invisible character")
        if operands_only or not arg.startswith("-") or arg == "-":
            _check_operand(workspace, arg)
            continue
        if arg == "--":
            operands_only = True
            continue
        option, _, value = arg.partition("=")
        if option.startswith(_REFUSED_OPTIONS) or any(_may_mean(option, name) for name in _REFUSED_OPTIONS):
            raise _refuse(f"the option {option} is not allowed: it reaches other files or programs")
        short, long = _LINK_FOLLOWING.get(program, ("", ""))
        if (long and _may_mean(option, long)) or (short and not option.startswith("--") and short in option[1:]):
            raise _refuse(f"the option {arg} follows symbolic links, which may lead outside the workspace")
        if "/" in option or "~" in option:
            raise _refuse(f"{arg!r}: give an option's file as a separate argument or after =, e.g. -f notes.txt")
        if value:
            _check_operand(workspace, value)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Kill the program and anything it started."""
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


def run_program(executable: str, args: Sequence[str], cwd: Path, timeout: float) -> tuple[int, bytes, bool, bool]:
    """Run it and return (exit code, output, output was cut, timed out)."""
    environment = {"PATH": SAFE_PATH, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": str(cwd)}
    process = subprocess.Popen(
        [executable, *args], cwd=cwd, env=environment, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, close_fds=True,
        start_new_session=os.name == "posix",
    )
    assert process.stdout is not None
    output = bytearray()
    cut = False

    def drain() -> None:
        nonlocal cut
        while block := process.stdout.read1(65536):  # type: ignore[union-attr]
            room = MAX_OUTPUT_BYTES - len(output)
            output.extend(block[:max(room, 0)])
            if len(block) > room and not cut:
                cut = True
                _stop(process)  # keep reading to the end so the pipe closes

    reader = threading.Thread(target=drain, name="shell-output", daemon=True)
    reader.start()
    timed_out = False
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    _stop(process)  # also whatever it left running in the background
    process.wait()
    reader.join()
    process.stdout.close()
    return process.returncode, bytes(output), cut, timed_out


def shell_tool(workspace: Path, programs: Sequence[str], timeout: float) -> Tool:
    """The `shell` tool for these allowed programs, run in `workspace`."""
    allowed = tuple(programs)

    def shell(program: str, args: list[str] | None = None) -> str:
        """Run one allowed program in the person's workspace folder and show its output.

        Args:
            program: the program's name, one of: {programs}
            args: its arguments, one list item each, like ["-l", "notes.md"]; no pipes, redirection or wildcards
        """
        args = list(args or [])
        if program not in allowed:
            raise _refuse(f"{program!r} is not an allowed program; the shell tool runs only: {', '.join(allowed)}"
                          if allowed else "no program is allowed; the person lists them in the shell_programs setting")
        executable = shutil.which(program, path=SAFE_PATH)
        if executable is None:
            raise ToolError(f"{program} is allowed but not installed on this computer")
        check_arguments(workspace, program, args)
        root = Path(os.path.realpath(workspace))
        root.mkdir(parents=True, exist_ok=True)
        code, output, cut, timed_out = run_program(executable, args, root, timeout)
        text = output.decode("utf-8", "replace")
        if "\x00" in text:
            text = f"(binary output, {len(output)} bytes, not shown)"
        command = shlex.join([program, *args])
        if timed_out:
            raise ToolError(f"{command} was stopped after {timeout:g} s; it took too long. Output so far:\n{text}")
        if cut:
            return f"$ {command}\n(output cut at {MAX_OUTPUT_BYTES // 1024} KB; the program was stopped)\n{text}"
        return f"$ {command}\n(exit code {code})\n{text}"

    shell.__doc__ = (shell.__doc__ or "").replace("{programs}", ", ".join(allowed) or "(none)")
    tool = Tool.from_function(shell, side_effect=True,
                              label=Label(en=("running a program", "ran a program"), zh=("正在运行程序", "运行过程序")))
    if allowed:  # an enum lets constrained decoding (the embedded model) pick only allowed names
        tool.parameters["properties"]["program"]["enum"] = list(allowed)
    return tool
