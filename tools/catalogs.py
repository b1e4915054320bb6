"""The translation catalogs: extract the messages of the code, update each language's ``.po``, compile
the ``.mo`` files that ship in the package, and check that every catalog is complete.

    python tools/catalogs.py update            # extract, then merge new messages into every .po
    python tools/catalogs.py init LANG         # start a new language's .po files
    python tools/catalogs.py compile           # .po -> .mo (committed: a pip install needs no Babel)
    python tools/catalogs.py check             # missing, empty, fuzzy or stale entries: exit 1

Babel does the work (a development tool: the installed package reads ``.mo`` files with the
standard library's gettext). One domain per package, as each package registers it
(``dictionaries.i18n.register_catalog``, called in the package's ``__init__``); the ``click`` domain holds
Click's own messages (``unspeakable_words.click_i18n``). Run it from the development install
(``make .venv/bin/.installed``: an editable install, so the packages import from here).
"""
from __future__ import annotations

import importlib
import io
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from dictionaries.i18n import DEFAULT_LANGUAGE, LANGUAGES, catalogs

ROOT = Path(__file__).resolve().parent.parent
#: The packages that speak: importing one registers its catalog.
SPEAKING = ("dictionaries", "referee", "referee.board", "referee.history", "service", "unspeakable_words.click_i18n")


def registered_domains() -> tuple[tuple[str, str], ...]:
    """(domain, the directory of its package relative to the repository) for every package's catalog."""
    for name in SPEAKING:
        importlib.import_module(name)
    return tuple((domain, Path(os.path.dirname(locale_dir)).relative_to(ROOT).as_posix())
                 for domain, locale_dir in catalogs())


#: Every domain and its package directory, as the packages register them.
DOMAINS = registered_domains()

#: The functions whose string arguments are messages (Babel's keyword specs).
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "msg": None, "nmsg": (1, 2),
            "note": None, "nnote": (1, 2)}  # note, nnote: the sentences of referee/notes.py
#: Files of a package that speak to developers only (build output, benchmarks): not extracted.
NOT_EXTRACTED = {"service/openapi.py"}
PROJECT = "unspeakable-words"


def _package_files(package_dir: str, exclude_dirs: Iterable[str] = ()) -> Iterator[tuple[Path, str]]:
    base = ROOT / package_dir
    for path in sorted(base.rglob("*")):
        rel = path.relative_to(ROOT).as_posix()
        if any(rel.startswith(d + "/") for d in exclude_dirs) or rel in NOT_EXTRACTED or "/locale/" in rel:
            continue
        if path.suffix == ".py":
            yield path, "python"
        elif path.suffix == ".html" and "/templates/" in rel:
            yield path, "jinja2"


def _sources(domain: str) -> Iterator[tuple[Path, str]]:
    if domain == "click":
        import click

        click_dir = Path(click.__file__).parent
        for path in sorted(click_dir.glob("*.py")):
            if path.name != "_winconsole.py":
                yield path, "python"
        return
    package_dir = dict(DOMAINS)[domain]
    exclude = [d for _, d in DOMAINS if d != package_dir and d.startswith(package_dir + "/")]
    yield from _package_files(package_dir, exclude)


def template(domain: str) -> Catalog:
    """Every message the code of ``domain`` can say, with where it is said."""
    catalog = Catalog(project=PROJECT, domain=domain, fuzzy=False)
    options = {"extensions": "jinja2.ext.i18n", "trimmed": "true"}
    for path, method in _sources(domain):
        extractor = "jinja2.ext:babel_extract" if method == "jinja2" else "python"
        for lineno, message, comments, context in extract_from_file(
                extractor, str(path), keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
                options=options if method == "jinja2" else {}):
            where = path.name if domain == "click" else path.relative_to(ROOT).as_posix()
            catalog.add(message, None, [(where, lineno)], auto_comments=comments, context=context)
    return catalog


def po_path(domain: str, language: str) -> Path:
    return ROOT / dict(DOMAINS)[domain] / "locale" / language / "LC_MESSAGES" / f"{domain}.po"


def read(path: Path, language: str) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=language)


def write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, omit_header=False, sort_output=False, include_previous=False)
    path.write_bytes(buffer.getvalue())


def translated_languages() -> list[str]:
    return [lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE]


def init(language: str) -> None:
    for domain, _ in DOMAINS:
        path = po_path(domain, language)
        if path.exists():
            print(f"{path.relative_to(ROOT)} exists: left as it is")
            continue
        catalog = template(domain)
        new = Catalog(locale=language, project=PROJECT, domain=domain, fuzzy=False)
        new.update(catalog, no_fuzzy_matching=True)
        write(new, path)
        print(f"wrote {path.relative_to(ROOT)}: {len(new)} messages to translate")


def update() -> None:
    for language in translated_languages():
        for domain, _ in DOMAINS:
            path = po_path(domain, language)
            if not path.exists():
                init(language)
            catalog = read(path, language)
            created = catalog.creation_date
            before = path.read_bytes()
            catalog.update(template(domain), no_fuzzy_matching=True)
            catalog.creation_date = created  # the header changes only when the messages do
            write(catalog, path)
            if path.read_bytes() != before and _only_header_changed(before, path.read_bytes()):
                path.write_bytes(before)
            todo = sum(1 for m in catalog if m.id and (not m.string or (isinstance(m.string, tuple) and not all(m.string))))
            print(f"{path.relative_to(ROOT)}: {len(catalog)} messages, {todo} to translate")


def _only_header_changed(before: bytes, after: bytes) -> bool:
    """True when two .po files differ only in their dated header lines."""
    def body(data: bytes) -> list[bytes]:
        return [line for line in data.splitlines() if not line.startswith((b'"POT-Creation-Date', b'"PO-Revision-Date'))]
    return body(before) == body(after)


def mo_bytes(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def compile_all() -> None:
    for language in translated_languages():
        for domain, _ in DOMAINS:
            path = po_path(domain, language)
            if path.exists():
                path.with_suffix(".mo").write_bytes(mo_bytes(read(path, language)))
                print(f"compiled {path.with_suffix('.mo').relative_to(ROOT)}")


def catalog_problems(template: Catalog, catalog: Catalog) -> list[str]:
    """What ``catalog`` lacks for the messages of ``template``: missing, fuzzy, empty or with other
    ``{fields}`` than the message; and its entries the code no longer says."""
    import string

    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}

    found: list[str] = []
    for message in template:
        if not message.id:
            continue
        entry = catalog.get(message.id, message.context)
        key = message.id if isinstance(message.id, str) else message.id[0]
        if entry is None:
            found.append(f"not in the catalog: {key!r} ({message.locations[0][0]})")
        elif entry.fuzzy:
            found.append(f"fuzzy: {key!r}")
        elif not entry.string or (isinstance(entry.string, tuple) and not all(entry.string)):
            found.append(f"not translated: {key!r}")
        else:
            ids = [entry.id] if isinstance(entry.id, str) else [entry.id[0]] + [entry.id[1]] * (len(entry.string) - 1)
            strings = [entry.string] if isinstance(entry.string, str) else list(entry.string)
            for source, text in zip(ids, strings):
                try:
                    same = fields(source) == fields(text)
                except ValueError:
                    same = False
                if not same and "{" in source + text:
                    found.append(f"other fields than the message: {key!r} -> {text!r}")
    for message in catalog.obsolete.values():
        found.append(f"obsolete entry (run update): {message.id!r}")
    found.extend(f"in the catalog but not in the code (run update): {m.id!r}" for m in catalog
                 if m.id and template.get(m.id, m.context) is None)
    return found


def problems() -> list[str]:
    """What is wrong with the catalogs: a message missing, empty, fuzzy or obsolete; a stale .mo."""
    found: list[str] = []
    for language in translated_languages():
        for domain, _ in DOMAINS:
            path = po_path(domain, language)
            rel = path.relative_to(ROOT)
            if not path.exists():
                found.append(f"{rel}: missing (python tools/catalogs.py init {language})")
                continue
            catalog = read(path, language)
            found.extend(f"{rel}: {problem}" for problem in catalog_problems(template(domain), catalog))
            mo = path.with_suffix(".mo")
            if not mo.exists() or mo.read_bytes() != mo_bytes(catalog):
                found.append(f"{mo.relative_to(ROOT)}: not compiled from the .po (python tools/catalogs.py compile)")
    return found


def main(argv: list[str]) -> int:
    if argv[:1] == ["update"]:
        update()
    elif argv[:1] == ["init"] and len(argv) == 2:
        init(argv[1])
    elif argv[:1] == ["compile"]:
        compile_all()
    elif argv[:1] == ["check"]:
        found = problems()
        print("\n".join(found) if found else "every catalog is complete and compiled")
        return 1 if found else 0
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
