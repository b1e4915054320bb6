"""The documented outputs are the code's: every marked block of README.md and docs/*.md is generated again
(tools/docs.py, the same code as ``make docs``) and must match the page, block by block.

A failure names the block (``docs/api.md:errors``) and shows the difference; ``make docs`` rewrites the pages.
"""
from __future__ import annotations

import difflib
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _docs_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("uw_docs", ROOT / "tools" / "docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("uw_docs", module)  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


docs = _docs_tool()


def every_block() -> list[tuple[str, str]]:
    return [(path.relative_to(ROOT).as_posix(), block.name)
            for path in docs.pages() for block in docs.blocks(path.read_text(encoding="utf-8"),
                                                                path.relative_to(ROOT).as_posix())]


BLOCKS = every_block()


@pytest.fixture(autouse=True)
def shipped_dictionary(monkeypatch: pytest.MonkeyPatch) -> None:
    """The docs show the shipped dictionary, whatever this machine's ``UW_DICTIONARY`` says."""
    monkeypatch.delenv("UW_DICTIONARY", raising=False)


def test_the_pages_have_blocks() -> None:
    """The README and the manual's pages hold marked blocks (so the checks below check something)."""
    pages = {page for page, _ in BLOCKS}
    assert {"README.md", "docs/referee.md", "docs/api.md"} <= pages
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize(("page", "name"), BLOCKS, ids=[f"{page}:{name}" for page, name in BLOCKS])
def test_a_documented_output_is_what_the_code_prints(page: str, name: str) -> None:
    block = next(b for b in docs.blocks((ROOT / page).read_text(encoding="utf-8"), page) if b.name == name)
    fresh = docs.render(block)
    diff = "\n".join(difflib.unified_diff(block.body.splitlines(), fresh.splitlines(), "the page", "the code",
                                          lineterm="", n=1))
    assert fresh == block.body, f"{page}:{name} differs from what the code prints; run `make docs`:\n{diff}"


def test_generating_twice_gives_the_same_page() -> None:
    """Deterministic: a second run changes nothing (no clock, temporary path or ETag leaks through)."""
    text = (ROOT / "docs" / "referee.md").read_text(encoding="utf-8")
    once, _ = docs.regenerate(text, "docs/referee.md")
    twice, changed = docs.regenerate(once, "docs/referee.md")
    assert twice == once and changed == []


DOCTORED = """Intro.

<!-- docs: taps -->
```console
$ uw-referee check taps
TAPS: legal, 10 points (T2 A5 P3 S0); sanity check passes 55% of the time
```
<!-- /docs -->

<!-- docs: dictionary -->
```console
$ curl -s http://localhost:8000/v1/words/taps
{"word":"TAPS"}
```
<!-- /docs -->
"""


def test_a_doctored_block_is_named_and_the_others_pass() -> None:
    """The check can fail: a block whose text differs from the code's output is named, and only it."""
    fresh, changed = docs.regenerate(DOCTORED, "doctored.md")
    assert changed == ["doctored.md:dictionary"]
    assert '"legal":true' in fresh and fresh.count("<!-- /docs -->") == 2
    doctored = DOCTORED.replace("10 points", "11 points")
    assert docs.regenerate(doctored, "doctored.md")[1] == ["doctored.md:taps", "doctored.md:dictionary"]


def test_a_refusal_shows_its_exit_status_and_the_times_are_normalised() -> None:
    page = """<!-- docs: game -->\n```console\n$ uw-referee new Ann Bob --first Ann\n$ uw-referee roll 3\n""" \
           """$ uw-referee games\n```\n<!-- /docs -->\n"""
    fresh, _ = docs.regenerate(page, "p.md")
    assert "Refused: no roll is awaited" in fresh and "(exit status 1)\n" in fresh
    assert f"Games in {docs.DATA_SHOWN}/games.sqlite3" in fresh and f"  {docs.TIME}  Ann, Bob" in fresh


@pytest.mark.parametrize("page", [
    "<!-- docs: x -->\n```console\n$ rm -rf /\n```\n<!-- /docs -->\n",
    "<!-- docs: x -->\n```console\n$ curl --insecure http://localhost:8000/healthz\n```\n<!-- /docs -->\n",
    "<!-- docs: x -->\n```console\nno command\n```\n<!-- /docs -->\n",
    "<!-- docs: x -->\n```console\n$ uw-referee check taps\n```\n",
    "<!-- docs: x -->\n```console\n$ uw-referee check don't\n```\n<!-- /docs -->\n",
    "<!-- docs: x -->\n```console\n$ uw-referee check a\n```\n<!-- /docs -->\n"
    "<!-- docs: x -->\n```console\n$ uw-referee check b\n```\n<!-- /docs -->\n",
])
def test_a_block_that_cannot_be_run_is_an_error_naming_it(page: str) -> None:
    with pytest.raises(docs.DocsError, match=r"p\.md"):
        docs.regenerate(page, "p.md")


FENCE = re.compile(r"^```[\w-]*\n(.*?)^```$", re.M | re.S)


@pytest.mark.parametrize("path", docs.pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_example_of_output_is_in_a_marked_block(path: Path) -> None:
    """A code block that shows a ``$ command`` with what it prints is generated, never typed by hand."""
    text = path.read_text(encoding="utf-8")
    marked = [(b.start, b.end) for b in docs.blocks(text, path.name)]
    for match in FENCE.finditer(text):
        lines = match[1].splitlines()
        shows_output = any(line.startswith("$ ") for line in lines) and not all(
            line.startswith("$ ") or not line.strip() for line in lines)
        inside = any(start <= match.start() < end for start, end in marked)
        line_no = text.count("\n", 0, match.start()) + 1
        assert inside or not shows_output, f"{path.name}, line {line_no}: output typed by hand; mark it for make docs"


#: A Markdown link or image, ``[text](target)`` or ``![alt](target "title")``, and an HTML image's ``src``.
LINK = re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)|<img [^>]*src=\"(?P<src>[^\"]+)\"")
CODE_SPAN = re.compile(r"`[^`\n]*`")


def relative_links(text: str) -> list[str]:
    """The relative targets a page links to (the file part: no ``#anchor``), outside code blocks and spans."""
    prose = CODE_SPAN.sub("", FENCE.sub("", text))
    targets = [m["target"] or m["src"] for m in LINK.finditer(prose)]
    return [t.split("#", 1)[0] for t in targets
            if not re.match(r"[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def test_the_link_check_sees_links() -> None:
    """The check below can fail: it finds links and images, and leaves code, URLs and anchors alone."""
    text = ("[a](docs/a.md#x) ![b](b.png) <img src=\"c.png\" alt=\"c\"> [d](https://example.org) [e](#here) "
            "`[f](g.md)`\n```\n[h](i.md)\n```\n")
    assert relative_links(text) == ["docs/a.md", "b.png", "c.png"]


@pytest.mark.parametrize("path", docs.pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_points_to_a_file(path: Path) -> None:
    """A page's links to other pages, files and pictures resolve (pages move; their links must follow)."""
    missing = [t for t in relative_links(path.read_text(encoding="utf-8")) if not (path.parent / t).exists()]
    assert missing == [], f"{path.relative_to(ROOT).as_posix()} links to files that do not exist: {missing}"
