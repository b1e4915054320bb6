"""No test of the quick loop (``make quick``: the tests not marked slow) asserts on the wall clock.

A test checks behaviour: a bound on seconds fails on a loaded machine and passes a broken program on a fast one.
Speed is measured in benchmarks/ (BENCHMARKS.md); a slow test may keep a bound when its margin is stated. A
wall-clock assertion, as found here: an ``assert`` whose condition reads the clock (``time.monotonic()``,
``perf_counter()``, ``time.time()`` and their ``_ns`` forms), directly or through a name computed from it in the
same function (``started = time.monotonic()``, ``deadline = started + 5``). A wait for a state with a limit on
how long to wait (``Event.wait(30)``, ``board_support.wait_until``) is not one: it fails only when the state
never comes. Slow is said one way: ``@pytest.mark.slow`` on the test, or ``pytestmark = pytest.mark.slow`` for a
whole module (docs/development.md)."""
from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CLOCKS = {"monotonic", "perf_counter", "time", "monotonic_ns", "perf_counter_ns", "time_ns"}


def is_slow_mark(node: ast.expr) -> bool:
    """``pytest.mark.slow`` (or a list or tuple holding it)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(is_slow_mark(element) for element in node.elts)
    return ast.unparse(node) == "pytest.mark.slow"


def reads_clock(node: ast.AST, clocked: set[str]) -> bool:
    """Whether ``node`` calls a clock or uses a name computed from one."""
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            func = child.func
            if (isinstance(func, ast.Attribute) and func.attr in CLOCKS and isinstance(func.value, ast.Name)
                    and func.value.id == "time") or (isinstance(func, ast.Name) and func.id in CLOCKS - {"time"}):
                return True
        if isinstance(child, ast.Name) and child.id in clocked:
            return True
    return False


def clock_names(function: ast.AST) -> set[str]:
    """The names ``function`` assigns from the clock, directly or through each other."""
    clocked: set[str] = set()
    while True:
        before = len(clocked)
        for node in ast.walk(function):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            if reads_clock(value, clocked):
                for target in targets:
                    clocked |= {name.id for name in ast.walk(target) if isinstance(name, ast.Name)}
        if len(clocked) == before:
            return clocked


def wall_clock_assertions(source: str, filename: str) -> list[str]:
    """``file:line`` of each wall-clock assertion that a quick run would make (outside a slow test)."""
    tree = ast.parse(source, filename)
    module_slow = any(isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                            for t in node.targets) and is_slow_mark(node.value)
                      for node in tree.body)
    if module_slow:
        return []
    found: list[str] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(is_slow_mark(decorator) for decorator in child.decorator_list):
                    continue  # a slow test, with whatever it defines inside
                clocked = clock_names(child)
                for inner in ast.walk(child):
                    if isinstance(inner, ast.Assert) and reads_clock(inner.test, clocked):
                        found.append(f"{filename}:{inner.lineno}")
            else:
                visit(child)

    visit(tree)
    return sorted(set(found), key=lambda where: int(where.rsplit(":", 1)[1]))


def test_no_quick_test_asserts_on_the_wall_clock() -> None:
    found = [where for path in sorted(TESTS.glob("*.py"))
             for where in wall_clock_assertions(path.read_text(encoding="utf-8"), path.name)]
    assert found == [], "wall-clock assertions in tests that make quick runs (move them to benchmarks/ or to a " \
                        f"slow test with the margin stated): {found}"


CAUGHT = '''
import time
import pytest

def test_fast_enough(client):
    started = time.monotonic()
    assert client.get("/").status_code == 200
    took = time.monotonic() - started
    assert took < 2

def test_deadline(client):
    deadline = time.perf_counter() + 5
    while not client.ready():
        assert time.perf_counter() < deadline

@pytest.mark.slow
def test_slow_with_its_margin(client):
    started = time.monotonic()
    client.get("/")
    assert time.monotonic() - started < 30  # 30 s: 10 times the worst seen
'''


def test_the_check_catches_an_elapsed_bound_and_a_deadline_but_not_a_slow_test() -> None:
    assert wall_clock_assertions(CAUGHT, "t.py") == ["t.py:9", "t.py:14"]
    assert wall_clock_assertions("import pytest\npytestmark = [pytest.mark.slow]\n" + CAUGHT, "t.py") == []
    waits = "import threading\n\ndef test_waits_for_the_state(done: threading.Event) -> None:\n    assert done.wait(30)\n"
    assert wall_clock_assertions(waits, "t.py") == []


def test_slow_is_marked_one_way() -> None:
    """The marker in the test's own file: no list of slow names elsewhere (a conftest hook adding the marker)."""
    adders = [path.name for path in sorted(TESTS.glob("*.py"))
              if "add_marker" in path.read_text(encoding="utf-8") and path.name != Path(__file__).name]
    assert adders == []
