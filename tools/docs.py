"""The documented outputs, made by the code: run every command of a marked block and write what it prints.

    python tools/docs.py           # rewrite every marked block of README.md and docs/*.md (make docs)
    python tools/docs.py --check   # change nothing; name each block whose output differs: exit 1

A marked block is a fenced code block between ``<!-- docs: NAME -->`` and ``<!-- /docs -->``. Its
``$ `` lines are the commands; everything else in it is their output, written here and never by hand:

- ``$ uw-referee ...`` runs the referee's Click CLI in this process (Click's CliRunner), on a database
  of the block's own in a temporary folder, so the commands of one block make one story. ``VAR=value``
  before the command sets an environment variable for it (``UW_LANG=es uw-referee status``). A command
  that exits non-zero is followed by ``(exit status N)``.
- ``$ curl ...`` sends the request to the word service through Flask's test client (``-s``, ``-i``, ``-X``,
  ``-H``, ``-d``, ``--data-binary @-``); ``| head -c N`` cuts, and ``python3 -c CODE | curl ...`` feeds
  the program's output to the request. With ``-i`` the status line and the headers the service sets
  are shown (gunicorn adds ``Server``, ``Date`` and ``Connection`` on the wire). An ``If-None-Match``
  header is given the ``ETag`` of the block's latest answer, so the example stays a real 304.
- ``<!-- docs: NAME; input: a | b | c -->`` types ``a``, ``b``, ``c`` (one line each) into the block's
  interactive command (``uw-referee table``).

Only what truly varies between runs is normalised: the temporary folder (shown as the default data
folder), the clock (shown as ``TIME``) and the order of the methods in ``Allow`` (sorted). The output is deterministic otherwise: no port, no network,
no random join code (the examples use the physical die or a seed).
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from flask.testing import FlaskClient

ROOT = Path(__file__).resolve().parent.parent
#: The pages whose marked blocks are generated: the README, then docs/*.md.
PAGES = ("README.md", "docs/*.md")
BLOCK = re.compile(r"^<!-- docs: (?P<name>[\w.-]+)(?:; input: (?P<input>[^>]*?))? -->\n"
                   r"(?P<body>.*?)^<!-- /docs -->$", re.M | re.S)
#: A marker at the start of a line (one inside a sentence's backquotes is text about markers).
OPENING, CLOSING = re.compile(r"^<!-- docs: ", re.M), re.compile(r"^<!-- /docs -->", re.M)
FENCE = re.compile(r"\A(?P<open>```[\w-]*)\n(?P<inner>.*?)^```\n\Z", re.M | re.S)
#: A clock reading in the referee's words (``log``, ``games``) or in JSON (``export``).
CLOCK = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")
#: What the clock is shown as (it differs on every run).
TIME = "2026-12-01 21:00:00"
#: What the block's temporary data folder is shown as: the referee's default on Linux.
DATA_SHOWN = "~/.local/share/uw-referee"
#: Headers that list methods in an order that changes from run to run.
METHOD_LISTS = ("allow", "access-control-allow-methods")
ETAG_ASKED = re.compile(r"(If-None-Match: )\"[^\"]*\"")


class DocsError(ValueError):
    """A marked block that cannot be generated (an unknown command, a malformed block): says which."""


@dataclass(frozen=True)
class Block:
    """One marked block of a page: its name, the text between the markers and where that text lies."""

    page: str
    name: str
    body: str
    typed: tuple[str, ...]
    start: int
    end: int

    @property
    def label(self) -> str:
        return f"{self.page}:{self.name}"


def pages(root: Path = ROOT) -> list[Path]:
    """The Markdown pages that may hold marked blocks, in a fixed order."""
    found: list[Path] = []
    for pattern in PAGES:
        found.extend(sorted(root.glob(pattern)))
    return found


def blocks(text: str, page: str) -> list[Block]:
    """The marked blocks of ``text`` (the page ``page``), in order; a name used twice is an error."""
    found = []
    seen: set[str] = set()
    for match in BLOCK.finditer(text):
        name = match["name"]
        if name in seen:
            raise DocsError(f"{page}: the block name {name!r} is used twice")
        seen.add(name)
        typed = tuple(part.strip() for part in match["input"].split("|")) if match["input"] else ()
        found.append(Block(page, name, match["body"], typed, match.start("body"), match.end("body")))
    if len(OPENING.findall(text)) != len(found) or len(CLOSING.findall(text)) != len(found):
        raise DocsError(f"{page}: a '<!-- docs: NAME -->' marker without its '<!-- /docs -->' (or the reverse)")
    return found


def commands(block: Block) -> tuple[str, list[str]]:
    """The block's fence opening (```console) and its ``$`` command lines, without the ``$ ``."""
    fence = FENCE.match(block.body)
    if fence is None:
        raise DocsError(f"{block.label}: the text between the markers must be one fenced code block")
    lines = [line[2:] for line in fence["inner"].splitlines() if line.startswith("$ ")]
    if not lines:
        raise DocsError(f"{block.label}: no '$ ' command line to run")
    return fence["open"], lines


def render(block: Block) -> str:
    """The block's text as the code makes it now: each command followed by what it prints."""
    opening, lines = commands(block)
    with Session(block) as session:
        parts = [session.run(line) for line in lines]
    return f"{opening}\n" + "\n".join(parts) + "```\n"


def regenerate(text: str, page: str) -> tuple[str, list[str]]:
    """``text`` with every marked block generated anew, and the labels of the blocks that changed."""
    out, changed, last = [], [], 0
    for block in blocks(text, page):
        fresh = render(block)
        if fresh != block.body:
            changed.append(block.label)
        out.append(text[last:block.start] + fresh)
        last = block.end
    out.append(text[last:])
    return "".join(out), changed


class Session:
    """The world of one block: a temporary data folder (the referee's database) and the word service."""

    def __init__(self, block: Block) -> None:
        self.block = block
        self.typed = list(block.typed)
        self.etag: str | None = None
        self._folder = tempfile.TemporaryDirectory(prefix="uw-docs-")
        self.folder = Path(self._folder.name)
        self._client: FlaskClient | None = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self._folder.cleanup()

    def run(self, line: str) -> str:
        """``$ line`` and its output (normalised), as the block shows them."""
        if self.etag is not None:
            line = ETAG_ASKED.sub(lambda m: f'{m[1]}"{self.etag}"', line)
        try:
            stages = split_pipeline(line)
        except ValueError as error:  # an unclosed quotation: the shell would refuse it too
            raise DocsError(f"{self.block.label}: {line!r}: {error}") from None
        output = b""
        for i, stage in enumerate(stages):
            output = self.stage(stage, output, line, last=i == len(stages) - 1)
        text = output.decode()
        if text and not text.endswith("\n"):
            text += "\n"
        return f"$ {line}\n" + self.normalise(text)

    def stage(self, words: list[str], given: bytes, line: str, last: bool) -> bytes:
        env, words = take_env(words)
        program = words[0] if words else ""
        if program == "uw-referee":
            return self.referee(words[1:], env)
        if program == "curl":
            with english():
                return self.curl(words[1:], given)
        if program == "head" and words[1:2] == ["-c"] and len(words) == 3 and words[2].isdigit():
            return given[:int(words[2])]
        if program == "python3" and words[1:2] == ["-c"] and len(words) == 3 and not last:
            return subprocess.run([sys.executable, "-c", words[2]], check=True, capture_output=True,
                                  timeout=60).stdout
        raise DocsError(f"{self.block.label}: cannot run {line!r} (uw-referee, curl, head -c N and python3 -c only)")

    def referee(self, args: list[str], env: dict[str, str]) -> bytes:
        """The referee's Click CLI on the block's database; ``(exit status N)`` after a refusal."""
        from click.testing import CliRunner

        from referee.cli import cli

        environ = {"UW_REFEREE_DB": str(self.folder / "games.sqlite3"), "UW_LANG": "en", "NO_COLOR": "1",
                   "XDG_DATA_HOME": str(self.folder / "data"), "XDG_CACHE_HOME": str(self.folder / "cache"),
                   "COLUMNS": "100", **env}
        typed = "".join(f"{answer}\n" for answer in self.typed) if args[-1:] == ["table"] else None
        result = CliRunner().invoke(cli, args, input=typed, env=environ, catch_exceptions=False)
        status = f"(exit status {result.exit_code})\n" if result.exit_code else ""
        return (result.output + status).encode()

    def curl(self, args: list[str], given: bytes) -> bytes:
        """curl's answer from the word service (Flask's test client), body only or with ``-i`` the head."""
        method: str | None = None
        headers: dict[str, str] = {}
        data: bytes | None = None
        url: str | None = None
        with_headers = False
        words = iter(args)
        for word in words:
            if word in ("-s", "-i", "-si", "-is"):
                with_headers = with_headers or "i" in word
            elif word == "-X":
                method = next(words)
            elif word == "-H":
                name, _, value = next(words).partition(":")
                headers[name.strip()] = value.strip()
            elif word == "-d":
                data = next(words).encode()
            elif word == "--data-binary" and next(words) == "@-":
                data = given
            elif word.startswith("http://") and url is None:
                url = word
            else:
                raise DocsError(f"{self.block.label}: curl option {word!r} is not one the docs generator knows")
        if url is None:
            raise DocsError(f"{self.block.label}: curl without a URL")
        parts = urlsplit(url)
        response = self.client().open(parts.path, query_string=parts.query, method=method or ("POST" if data else "GET"),
                                      headers=headers, data=data)
        body = response.get_data()
        self.etag = response.headers.get("ETag", "").strip('"') or self.etag
        if not with_headers:
            return body
        head = [f"HTTP/1.1 {response.status}"] + [f"{name}: {shown_header(name, value)}"
                                                 for name, value in response.headers.items()]
        return ("\n".join(head) + ("\n\n" if body else "\n")).encode() + body

    def client(self) -> FlaskClient:
        """The word service with its defaults (whatever ``UW_*`` variables this machine has set)."""
        if self._client is None:
            from service.app import DEFAULTS, create_app

            self._client = create_app(dict(DEFAULTS)).test_client()
        return self._client

    def normalise(self, text: str) -> str:
        """Only what varies between runs: the temporary folder and the clock."""
        return CLOCK.sub(TIME, text.replace(str(self.folder), DATA_SHOWN))


def shown_header(name: str, value: str) -> str:
    """A header's value as the docs show it: a list of methods sorted (Werkzeug builds it from a set, so
    its order changes with Python's hash seed from one run to the next)."""
    if name.lower() in METHOD_LISTS:
        return ", ".join(sorted(value.split(", ")))
    return value


def split_pipeline(line: str) -> list[list[str]]:
    """A command line's stages, split on ``|`` (a quoted ``|`` stays in its word)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars="|")
    lexer.whitespace_split = True
    stages: list[list[str]] = [[]]
    for word in lexer:
        if word == "|":
            stages.append([])
        else:
            stages[-1].append(word)
    return stages


def take_env(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """``VAR=value`` words before a command: (the variables, the command)."""
    env: dict[str, str] = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        name, _, value = words[0].partition("=")
        env[name] = value
        words = words[1:]
    return env, words


@contextmanager
def english() -> Iterator[None]:
    """English again after a request: the service sets the language of each request's thread."""
    from dictionaries.i18n import set_language

    try:
        yield
    finally:
        set_language("en")


def check_page(path: Path, root: Path = ROOT, write: bool = False) -> list[str]:
    """The labels of the page's blocks whose output differs from the code's; ``write`` rewrites them."""
    text = path.read_text(encoding="utf-8")
    fresh, changed = regenerate(text, path.relative_to(root).as_posix())
    if changed and write:
        path.write_text(fresh, encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    """Rewrite the marked blocks (or, with ``--check``, name the stale ones and exit 1)."""
    check = argv == ["--check"]
    if argv and not check:
        print("usage: python tools/docs.py [--check]", file=sys.stderr)
        return 2
    os.environ.pop("UW_DICTIONARY", None)  # the shipped dictionary, as a reader's install has
    try:
        stale = [label for path in pages() for label in check_page(path, write=not check)]
    except DocsError as error:
        print(f"docs: {error}", file=sys.stderr)
        return 2
    for label in stale:
        print(f"{'stale' if check else 'rewrote'}: {label}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
