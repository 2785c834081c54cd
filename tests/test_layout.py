"""The shape of the library: no import cycles, no streamlit, and ``import explorer`` stays cheap."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "explorer"


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every ``explorer`` module ``path`` imports, at module level or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: imports_of(path) & set(modules) - {name} for name, path in modules.items()}


def test_no_module_of_the_library_is_in_an_import_cycle() -> None:
    """Between the library's modules (a package's ``__init__`` only re-exports its own modules,
    so edges into a package are left out: a module names the module it needs)."""
    packages = {module_name(p) for p in PACKAGE.rglob("__init__.py")}
    edges = {m: ts - packages for m, ts in graph().items() if m not in packages}
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for t in sorted(edges.get(m, set())):
            assert state.get(t) != 1, "import cycle: " + " → ".join([*path, m, t])
            if t not in state and t in edges:
                visit(t, [*path, m])
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [])
    assert "explorer.documents.load" in edges and "explorer.documents.pdf.reader" in edges
    assert "explorer.documents.pdf.reader" in edges["explorer.documents.load"]


def test_the_library_never_imports_streamlit() -> None:
    for path in PACKAGE.rglob("*.py"):
        names = imports_of(path)
        assert not any(n == "streamlit" or n.startswith("streamlit.") for n in names), path


def test_import_explorer_loads_no_heavy_package() -> None:
    code = (
        "import sys, explorer; "
        "print(','.join(m for m in ('streamlit', 'torch', 'sentence_transformers', 'pymupdf', "
        "'numpy', 'bm25s', 'plotly') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert out.stdout.strip() == ""
