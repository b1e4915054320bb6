"""``uw-referee board``: serve the live board and the word judge to every browser at the table."""
from __future__ import annotations

import errno
import math
import os
import socket
import sys
from collections.abc import Callable

import click

from dictionaries.i18n import _, language, message_of, ngettext, say
from referee.cli_common import CONTEXT, Obj, lang_option

# The help texts are said when this module is imported: the command chooses its language first.
HOST_HELP = _("Address to listen on. The default 127.0.0.1 lets only this machine in; 0.0.0.0 lets every "
              "device on the networks this machine is on (phones, a TV) read every game in the database "
              "(names, scores, words) and use the judge. Without --players nobody can change a game through the board.")


def lan_address() -> str | None:
    """This machine's address on its local network (the one a phone types), if it has one."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))  # UDP connect sends nothing: it only picks the route
        address: str = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address


def check_port(host: str, port: int) -> None:
    """Fail with one line when the address cannot be listened on (most often: the port is in use)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise click.BadParameter(_("{host} is not an address of this machine ({why})").format(
            host=repr(host), why=exc.strerror), param_hint="--host") from None
    family, kind, proto, _canonical, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn does
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise click.ClickException(_("port {port} on {host} is already in use: choose another with "
                                             "--port").format(port=port, host=host)) from None
            raise click.ClickException(_("cannot listen on {host} port {port}: {why}").format(
                host=host, port=port, why=exc.strerror)) from None


def print_qr(url: str) -> None:
    """The address as a QR code in the terminal (segno: pure Python, no dependencies)."""
    try:
        import segno
    except ImportError:
        return
    segno.make(url, error="m").terminal(out=sys.stdout, compact=True)


@click.command(context_settings=CONTEXT, help=_(
    "Serve the live board and the word judge to browsers: a TV, a tablet, the players' phones.\n"
    "\n"
    "The board shows the game as it happens (scores, pawns, whose turn, what the game waits for)\n"
    "and updates itself within a second of every command; /judge settles a disputed word. Without\n"
    "--players it only reads the database and play goes on with the other commands or 'uw-referee\n"
    "table'; with --players the players also play their turns from their phones. Ctrl-C stops it.\n"
    "Each browser sees the pages in its own language (English or Spanish), or the one chosen on the page.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee board --host 0.0.0.0 --port 8080"))
@click.option("--host", default="127.0.0.1", show_default=True, help=HOST_HELP)
@click.option("--port", type=click.IntRange(1, 65535), default=8080, show_default=True, help=_("Port to listen on."))
@click.option("--db", "db", metavar="PATH", default=None,
              help=_("The games database (default: the one every uw-referee command uses)."))
@click.option("--game", "game_id", type=click.IntRange(min=1, max=2**63 - 1), metavar="ID", default=None,
              help=_("Show this game on the board page (default: the most recently active game, following new "
                     "ones)."))
@click.option("--qr/--no-qr", default=True, show_default=True, help=_("Print the address as a QR code to scan."))
@click.option("--max-viewers", "viewers", type=click.IntRange(1, 100_000), default=None, metavar="N",
              help=_("The most pages that update live at once (a page over it still shows the game and tries again "
                     "every few seconds). Each costs a connection and some memory, no thread. Default: "
                     "UW_BOARD_STREAMS, else 2000."))
@click.option("--max-per-address", "per_address", type=click.IntRange(0, 100_000), default=None, metavar="N",
              help=_("The most connections one device (one address) may hold at once, so one device cannot take "
                     "them all; 0 is no limit. Default: UW_BOARD_PER_ADDRESS, else 100."))
@click.option("--embed", is_flag=True, default=False,
              help=_("Let pages of other sites show the board inside them (a stream overlay, a dashboard). Without "
                     "it, browsers refuse to show the board framed in another page."))
@click.option("--players", is_flag=True, default=False,
              help=_("Let the players play from their phones: the board shows a join link, its QR code and a short "
                     "join code; the terminal prints the host's link with its secret. Without it the board only "
                     "reads. Behind a proxy, UW_BOARD_PUBLIC_URL is the address the links name (the proxy's)."))
@click.option("--hosted", is_flag=True, default=False, envvar="UW_BOARD_HOSTED",
              help=_("Host tables for anyone (implies --players; meant for --db postgresql://...): the board's root is "
                     "a form that starts a table and gives it a join code and a host link; each table's pages, "
                     "stream and API answer only with its code or a seat's token, and no page lists the games."))
@click.option("--keep", "keep_days", type=click.FloatRange(min=0, max=1e6), metavar=_("DAYS"), default=None,
              help=_("With --hosted: keep a finished game this many days after its last action, then delete it "
                     "(default: UW_BOARD_KEEP_DAYS, else 30)."))
@lang_option
@click.pass_obj
def board(obj: Obj, host: str, port: int, db: str | None, game_id: int | None, qr: bool, viewers: int | None,
          per_address: int | None, embed: bool, players: bool = False, hosted: bool = False,
          keep_days: float | None = None) -> None:
    """Serve the live board and the word judge to browsers (the help is said above, in the language in use)."""
    from referee.board.runtime import MAX_VIEWERS
    from referee.board.server import PER_ADDRESS, BoardServer
    from referee.cli_failures import run_store
    from referee.store_format import require_postgres
    from referee.store_pg import is_database_url, shown_address

    path = db or (obj.db if obj else None)
    if path is None:
        from referee.store import default_db_path

        path = str(default_db_path())
    if is_database_url(path):  # one line naming the postgres extra when psycopg is not installed
        run_store(require_postgres)
    pinned = game_id if game_id is not None else (obj.game if obj else None)
    check_port(host, port)
    os.environ["UW_BOARD_DB"] = str(path)
    os.environ["UW_BOARD_GAME"] = str(pinned) if pinned is not None else ""
    viewers = viewers if viewers is not None else _env_count("UW_BOARD_STREAMS", MAX_VIEWERS, "--max-viewers")
    per_address = per_address if per_address is not None else _env_count("UW_BOARD_PER_ADDRESS", PER_ADDRESS,
                                                                         "--max-per-address")
    os.environ["UW_BOARD_STREAMS"] = str(viewers)
    os.environ["UW_BOARD_PER_ADDRESS"] = str(per_address)
    _proxies()
    if embed:
        os.environ["UW_BOARD_EMBED"] = "1"
    players = players or hosted
    if keep_days is not None and not math.isfinite(keep_days):  # FloatRange lets NaN through (no comparison holds)
        raise click.BadParameter(_("{value} is not a number of days").format(value=repr(str(keep_days))),
                                 param_hint="--keep")
    if hosted:
        _hosted_secret()
        os.environ["UW_BOARD_HOSTED"] = "1"
        if keep_days is None and os.environ.get("UW_BOARD_KEEP_DAYS", "").strip():
            keep_days = _env_days()
        if keep_days is not None:
            os.environ["UW_BOARD_KEEP_DAYS"] = str(keep_days)
    elif keep_days is not None:
        raise click.UsageError(_("--keep is for --hosted: only a hosted board deletes finished games"))
    _more_files(viewers + 600)
    current = None if hosted else _current_game(path, pinned)
    shown = "[::1]" if host == "::1" else host
    everywhere = host in ("0.0.0.0", "::", "")
    local = f"http://{'127.0.0.1' if everywhere else shown}:{port}/"
    click.echo(_("The board of {path} is at {url}  (the judge: {url}judge)").format(
        path=shown_address(path) if is_database_url(path) else path, url=local))  # a server's password stays unsaid
    if everywhere and hosted:
        click.echo(_("Warning: every device on this network can start a table; each table's pages answer only with "
                     "its join code or a seat's token."), err=True)
    elif everywhere and players:
        click.echo(_("Warning: every device on this network can see every game in the database; whoever has the "
                     "join code can take a free seat and play its turns."), err=True)
    elif everywhere:
        click.echo(_("Warning: the board is read-only, but every device on this network can see it: every game "
                     "in the database, its players' names and words."), err=True)
    lan = lan_address() if everywhere else None
    if everywhere and lan:
        url = f"http://{lan}:{port}/"
        click.echo(_("On a phone or a TV on the same network, open {url}").format(url=url))
        if qr and not players:  # with --players the QR code is the join link's, below
            print_qr(url)
    elif everywhere:
        click.echo(_("This machine has no local network address: only this machine can open the board."))
    this_machine = not everywhere and (shown.startswith("127.") or shown in ("localhost", "[::1]"))
    public = _public_url() if players else None
    if players:
        base = public or f"http://{(lan or '127.0.0.1') if everywhere else shown}:{port}/"
        _players_env(base, current, hosted)
        if qr and not hosted and (public or (lan if everywhere else not this_machine)):
            print_qr(f"{base}join")  # the phones scan the join link
    if this_machine and not public:  # behind a proxy (a public address given), the phones come through it
        click.echo(_("Only this machine can open it: add --host 0.0.0.0 to let phones and a TV on your network in."))
    elif qr and not everywhere and not players:
        print_qr(local)
    click.echo(_("Press Ctrl-C to stop the board."))
    sys.stdout.flush()
    master = os.getpid()
    if is_database_url(path):
        from referee.store_pg import close_pools

        close_pools()  # the worker makes its own pool after the fork (a pool does not survive one)
    try:
        BoardServer(f"[{host}]:{port}" if ":" in host else f"{host}:{port}", viewers=viewers).run()
    except SystemExit as exc:
        if os.getpid() != master:
            raise  # a worker process ending
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if code == 0:
            click.echo(_("The board stopped."))
        sys.exit(code)


def _current_game(path: str, pinned: int | None) -> int | None:
    """The game the board opens on (None: none yet, said on the terminal); on PostgreSQL read in a child process
    (``_in_child``)."""
    from referee.board.source import BoardError, Source
    from referee.store_pg import is_database_url

    def read() -> int | None:
        try:
            return Source(path).game(pinned).id
        except BoardError as exc:
            click.echo(_("Note: {problem}. The board says so until that changes.").format(
                problem=say(message_of(exc)).rstrip(".")), err=True)
            return None

    if not is_database_url(path):
        return read()
    said = _in_child(lambda: None if (found := read()) is None else str(found))
    return int(said) if said is not None and said.isdigit() else None


def _in_child(read: Callable[[], str | None]) -> str | None:
    """``read()`` made in a child process, its answer sent back through a pipe: the board's master never imports
    psycopg. gevent patches the worker after the fork, and psycopg chooses how it waits when it is first imported:
    imported in the master, every PostgreSQL call of the worker would block its whole event loop, so one game's
    locked row would stop every table for the lock's time-out (docs/development.md, "Concurrency")."""
    sys.stdout.flush()
    sys.stderr.flush()
    out, into = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's lines are said on the terminal; its answer goes to the pipe
        code = 1
        try:
            os.close(out)
            found = read()
            os.write(into, b"" if found is None else b"=" + found.encode())
            code = 0
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    os.close(into)
    with os.fdopen(out, "rb") as answer:
        said = answer.read()
    os.waitpid(child, 0)
    return said[1:].decode() if said.startswith(b"=") else None


def _players_env(base: str, game: int | None, hosted: bool = False) -> None:
    """Turn the players' side on: a new host secret for this run unless one is set (each game's join code comes from
    it; a hosted board's is always set, ``_hosted_secret``); the join link, the current game's code and the host's
    link said on the terminal (hosted: where tables start). ``base`` is the address the phones open (the operator's ``UW_BOARD_PUBLIC_URL`` when set), said to the
    server's pages too: the join box, its QR code and a new table's links name it."""
    from referee.board.seats import join_code, new_secret

    # Replicas of one hosted board share it (deploy/uw-board.env): a game's join code, made from it, works on each.
    secret = os.environ.get("UW_BOARD_HOST_SECRET") or new_secret()
    os.environ.update(UW_BOARD_PLAYERS="1", UW_BOARD_HOST_SECRET=secret, UW_BOARD_PUBLIC_URL=base,
                      UW_BOARD_HOST_LANG=language())  # the terminal's language, for the requests it shows
    if hosted:
        from referee.retention import KEEP_DAYS
        from referee.settings import env_float

        days = env_float("UW_BOARD_KEEP_DAYS", KEEP_DAYS, low=0.0, high=36500)
        click.echo(ngettext("Anyone who opens {url} can start a table: it gets its own join code and host link. "
                            "Finished games are kept {days} day after their last action.",
                            "Anyone who opens {url} can start a table: it gets its own join code and host link. "
                            "Finished games are kept {days} days after their last action.", int(days)).format(
            url=base, days=f"{days:g}"))
        return
    salt = _salt(game) if game is not None else None
    if game is None or salt is None:
        click.echo(_("Players join at {url} with the code the board shows for their game.").format(url=f"{base}join"))
    else:
        click.echo(_("Players join game {game} at {url} with the code {code} (each new game gets its own code, "
                     "shown on the board).").format(game=game, url=f"{base}join", code=join_code(secret, game, salt)))
    click.echo(_("Your host link (keep it to yourself: it releases seats): {url}").format(url=f"{base}host#{secret}"))


def _salt(game: int) -> str | None:
    """The game's salt (its join code is made from it), or None when the database cannot say it now; on PostgreSQL
    read in a child process (``_in_child``)."""
    from referee.store import StoreError
    from referee.store_pg import is_database_url, open_store
    from referee.store_seats import SeatBook

    def read() -> str | None:
        try:
            return SeatBook(open_store(os.environ["UW_BOARD_DB"])).salt(game)
        except StoreError:
            return None

    return _in_child(read) if is_database_url(os.environ["UW_BOARD_DB"]) else read()


#: The placeholder of deploy/uw-board.env, and the shortest host secret a hosted board takes.
PLACEHOLDER_SECRET, MIN_SECRET = "change-me-to-a-long-random-secret", 32


def _hosted_secret() -> None:
    """A hosted board's ``UW_BOARD_HOST_SECRET``, set by the operator: every table's join code and host link are
    made from it, so a secret made anew at each start would orphan every table at a restart. A usage error when it
    is unset, the example's placeholder, or shorter than ``MIN_SECRET`` characters."""
    secret = os.environ.get("UW_BOARD_HOST_SECRET", "").strip()
    make = "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
    if not secret:
        raise click.UsageError(_("--hosted needs UW_BOARD_HOST_SECRET, the same at every start and on every replica "
                                 "(each table's join code and host link are made from it); make one with: "
                                 "{command}").format(command=make))
    if secret == PLACEHOLDER_SECRET:
        raise click.UsageError(_("UW_BOARD_HOST_SECRET is still the example's placeholder: set a random secret of "
                                 "your own, e.g. from: {command}").format(command=make))
    if len(secret) < MIN_SECRET:
        raise click.UsageError(_("UW_BOARD_HOST_SECRET is too short: a hosted board needs at least {n} random "
                                 "characters, e.g. from: {command}").format(n=MIN_SECRET, command=make))


def _public_url() -> str | None:
    """``UW_BOARD_PUBLIC_URL``, the address the phones open when the board sits behind a proxy (deploy/uw-board.env:
    nginx's), ending in ``/``; None when unset (the board's own address is said). A usage error when it is not an
    http(s) address."""
    text = os.environ.get("UW_BOARD_PUBLIC_URL", "").strip()
    if not text:
        return None
    scheme, _sep, rest = text.partition("://")
    if scheme.lower() not in ("http", "https") or not rest.split("/", 1)[0] or any(c.isspace() for c in text):
        raise click.BadParameter(_("UW_BOARD_PUBLIC_URL={value} is not an http:// or https:// address").format(
            value=repr(text)), param_hint="--players")
    return text.rstrip("/") + "/"


def _proxies() -> None:
    """``UW_BOARD_PROXIES`` names the proxies by address or network (``referee.board.addresses``); a usage error when
    it does not: a count such as ``1`` would believe anyone's ``X-Forwarded-For`` on a board reachable directly."""
    from referee.board.addresses import ProxiesError, trusted_networks

    text = os.environ.get("UW_BOARD_PROXIES", "")
    try:
        trusted_networks(text)
    except ProxiesError as exc:
        if str(exc).isdigit():
            raise click.UsageError(" ".join((
                _("UW_BOARD_PROXIES={value} is a count of proxies: name their addresses or networks instead (behind "
                  "one nginx on this machine: UW_BOARD_PROXIES=127.0.0.1).").format(value=repr(text.strip())),
                _("A count would believe the X-Forwarded-For of anyone who reaches the board directly.")))) from None
        raise click.UsageError(_("UW_BOARD_PROXIES names {value}, which is not an address or a network (such as "
                                 "127.0.0.1 or 10.0.0.0/8).").format(value=repr(str(exc)))) from None


def _env_count(name: str, default: int, option: str) -> int:
    """A count from the environment (a usage error, naming it, when it is not one)."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not (text.isascii() and text.isdigit()):  # '²' is a digit to isdigit, not to int
        raise click.BadParameter(_("{name}={value} is not a whole number").format(name=name, value=repr(text)),
                                 param_hint=option)
    return int(text)


def _env_days() -> float:
    """``UW_BOARD_KEEP_DAYS`` as days (a usage error, naming it, when it is not a number of days)."""
    text = os.environ.get("UW_BOARD_KEEP_DAYS", "").strip()
    try:
        days = float(text)
    except ValueError:
        days = -1.0
    if not 0 <= days < 1e6:
        raise click.BadParameter(_("UW_BOARD_KEEP_DAYS={value} is not a number of days").format(value=repr(text)),
                                 param_hint="--keep")
    return days


def _more_files(wanted: int) -> None:
    """Every connection is an open file: raise this process's limit toward ``wanted`` (as far as allowed)."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ImportError, ValueError, OSError):
        pass  # not Unix, or not allowed: the system's limit stands


__all__ = ["board"]
