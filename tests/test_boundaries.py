"""Heavy libraries stay in their own packages and load only when needed."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("gradio", "openai", "sqlalchemy", "llama_cpp", "fastapi", "uvicorn")


def modules_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in out.stdout.split()}


@pytest.mark.parametrize(
    "statement",
    [
        "import pet.agent",
        "import pet.agent.loop",
        "import pet.tools.registry, pet.tools.memory, pet.tools.calc, pet.tools.clock",
        "import pet.persona.prompt",
        "import pet.brain.select, pet.brain.embedded, pet.brain.openai_compat",
        "import pet.config, pet.events, pet.errors",
    ],
)
def test_core_imports_no_heavy_library(statement):
    loaded = modules_after(statement)
    if "openai_compat" in statement:
        # openai_compat is the openai package's home; it may import it, nothing else heavy.
        assert not (loaded & {"gradio", "sqlalchemy", "llama_cpp"})
    else:
        assert not (loaded & set(HEAVY)), statement


def test_the_app_imports_no_ui_or_model_library():
    loaded = modules_after("import pet.app, pet.cli")
    assert not (loaded & {"gradio", "openai", "llama_cpp", "fastapi", "uvicorn"})


def imported_libraries(source: str) -> set[str]:
    """Top-level names of every library a module imports at run time
    (imports under `if TYPE_CHECKING:` are for type hints only)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    return found


def test_each_heavy_library_is_imported_in_one_package_only():
    homes = {
        "gradio": "pet/ui",
        "openai": "pet/brain/openai_compat.py",
        "llama_cpp": "pet/brain/embedded.py",
        "sqlalchemy": "pet/memory",
        "fastapi": "pet/api",
        "uvicorn": "pet/api",
    }
    seen = set()
    for path in (ROOT / "pet").rglob("*.py"):
        relative = path.relative_to(ROOT).as_posix()
        for library in imported_libraries(path.read_text(encoding="utf-8")) & set(homes):
            seen.add(library)
            assert relative.startswith(homes[library]), f"{relative} imports {library}; only {homes[library]} may"
    assert seen == set(homes)  # the check looked at real imports
