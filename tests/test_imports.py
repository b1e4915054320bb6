"""The layout holds: the referee never imports the HTTP service, the word engine never imports Flask or
Click, and no two project modules import each other in a circle (imports inside functions count)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("dictionaries", "referee", "service")


def project_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            modules[name] = path
    return modules


MODULES = project_modules()


def imports_of(name: str) -> set[str]:
    """Every module ``name`` imports anywhere in its file, by absolute name."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES)
    return found


GRAPH = {name: {i for i in imports_of(name) if i in MODULES and i != name} for name in MODULES}


def test_the_modules_were_found() -> None:
    assert {"dictionaries.verdict", "referee.engine", "referee.actions", "service.app"} <= set(MODULES)


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.split(".")[0] in ("referee", "dictionaries")))
def test_the_referee_and_the_word_engine_never_import_the_service(name: str) -> None:
    assert not {i for i in imports_of(name) if i.split(".")[0] == "service"}


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.split(".")[0] == "dictionaries"))
def test_the_word_engine_imports_neither_flask_nor_click(name: str) -> None:
    assert not {i for i in imports_of(name) if i.split(".")[0] in ("flask", "werkzeug", "click", "referee")}


def test_no_import_circles() -> None:
    """Tarjan's strongly connected components: any component of more than one module is a circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in GRAPH[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(GRAPH):
        if node not in index:
            visit(node)
    assert circles == []


def test_the_circle_check_can_fail() -> None:
    """The check above finds a circle when there is one (so its passing means something)."""
    GRAPH["referee.render"] = GRAPH["referee.render"] | {"referee.quick"}
    try:
        with pytest.raises(AssertionError):
            test_no_import_circles()
    finally:
        GRAPH["referee.render"] = GRAPH["referee.render"] - {"referee.quick"}
