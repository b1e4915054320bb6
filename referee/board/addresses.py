"""Who sent a request: the proxies trusted by address (``UW_BOARD_PROXIES``), and the per-address limit on open
connections behind them (deploy/).

``UW_BOARD_PROXIES`` names the proxies' addresses or networks (``127.0.0.1``, ``10.0.0.0/8``, ``::1``, comma or
space separated), as gunicorn's ``forwarded_allow_ips`` does: ``X-Forwarded-For`` and ``-Proto`` are believed only
on a connection whose peer is one of them (``Forwarded``); any other peer is itself the client, whatever it says.
A bare number (``1``, the count of proxies that earlier versions took) is refused at start: a count trusts whoever
connects, and on a replica reachable directly anyone's ``X-Forwarded-For`` removed the wrong-code lockout.

Without a proxy the gunicorn worker counts each socket's peer before reading a request (``server.worker_class``).
Behind nginx every socket's peer is nginx's 127.0.0.1: counted so, one replica would serve ``--max-per-address``
connections (100) in all. So behind a proxy the worker counts nothing and this WSGI middleware counts the open
requests (a live page's stream included, until it ends) of each forwarded address instead: the address
``ProxyFix`` gives ``REMOTE_ADDR``, the one the write limits count (``seats.client_address``).
"""
from __future__ import annotations

import ipaddress
import json
import threading
from collections.abc import Callable, Iterable
from typing import Any

from referee.board.deadlines import AfterClose

#: Connections one client address may hold at once, by default (``--max-per-address``; 0: no limit).
#: A browser opens at most 6 per host; 100 leaves room for a few browsers behind one address (a
#: household's router) and for ``wrk -c64`` on this machine (the benchmark).
PER_ADDRESS = 100

Start = Callable[..., Any]
Wsgi = Callable[[dict[str, Any], Start], Iterable[bytes]]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class ProxiesError(ValueError):
    """``UW_BOARD_PROXIES`` names something that is not an address or a network (the text says what)."""


def trusted_networks(text: str) -> tuple[Network, ...]:
    """The proxies' networks ``UW_BOARD_PROXIES`` names (empty: none, every peer is a client). A bare count
    (``1``) or anything that is not an address or a network is a ``ProxiesError``; ``0``, no proxy as before, is
    none."""
    found: list[Network] = []
    if text.strip() == "0":
        return ()
    for part in text.replace(",", " ").split():
        if part.isascii() and part.isdigit():
            raise ProxiesError(part)
        try:
            found.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ProxiesError(part) from None
    return tuple(found)


def is_trusted(address: str, networks: tuple[Network, ...]) -> bool:
    """True when ``address`` (a peer's) is in one of the proxies' ``networks``."""
    if not networks:
        return False
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in net for net in networks)


class Forwarded:
    """``REMOTE_ADDR`` and the scheme as the trusted proxies forwarded them: on a connection from one of
    ``networks`` the client is the right-most ``X-Forwarded-For`` address that is not itself a trusted proxy (a
    client's own entries, to its left, are never read), and ``X-Forwarded-Proto`` the last proxy's; on any other
    connection both headers are ignored."""

    def __init__(self, app: Wsgi, networks: tuple[Network, ...]) -> None:
        self.app, self.networks = app, networks

    def __call__(self, environ: dict[str, Any], start_response: Start) -> Iterable[bytes]:
        peer = str(environ.get("REMOTE_ADDR") or "")
        if is_trusted(peer, self.networks):
            hops = [h.strip() for h in str(environ.get("HTTP_X_FORWARDED_FOR", "")).split(",") if h.strip()]
            client = peer
            for hop in reversed(hops):
                client = hop
                if not is_trusted(hop, self.networks):
                    break
            environ["REMOTE_ADDR"] = client
            proto = str(environ.get("HTTP_X_FORWARDED_PROTO", "")).split(",")[-1].strip().lower()
            if proto in ("http", "https"):
                environ["wsgi.url_scheme"] = proto
        return self.app(environ, start_response)


def refusal_text(limit: int) -> str:
    """What a request over the limit is told (before the app, so in English, as the worker's own refusal)."""
    return (f"This address already has {limit} connections open to the board, the most one address may "
            f"have (--max-per-address). Close some pages and try again.")


class AddressLimit:
    """At most ``limit`` requests open at once per ``REMOTE_ADDR`` (as the proxy fix set it); the ones over it are a
    503 (problem+json under /api/, else text) with ``Retry-After``, the app never called."""

    def __init__(self, app: Wsgi, limit: int) -> None:
        self.app, self.limit = app, limit
        self.open: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Start) -> Iterable[bytes]:
        address = str(environ.get("REMOTE_ADDR") or "?")
        with self.lock:
            count = self.open.get(address, 0)
            if count >= self.limit:
                return self._refuse(environ, start_response)
            self.open[address] = count + 1
        try:
            body = self.app(environ, start_response)
        except BaseException:
            self._done(address)
            raise
        return AfterClose(body, lambda: self._done(address))  # a stream's place: given back when it ends

    def _done(self, address: str) -> None:
        with self.lock:
            left = self.open.get(address, 1) - 1
            if left > 0:
                self.open[address] = left
            else:
                self.open.pop(address, None)

    def _refuse(self, environ: dict[str, Any], start_response: Start) -> list[bytes]:
        text = refusal_text(self.limit)
        if str(environ.get("PATH_INFO", "")).startswith("/api/"):
            body = json.dumps({"type": "urn:uw-referee:too-many-connections", "title": "Try again", "status": 503,
                               "detail": text}).encode()
            kind = "application/problem+json"
        else:
            body, kind = (text + "\n").encode(), "text/plain; charset=utf-8"
        start_response("503 Service Unavailable", [("Content-Type", kind), ("Content-Length", str(len(body))),
                                                   ("Retry-After", "5"), ("Content-Language", "en"),
                                                   ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")])
        return [body]


__all__ = ["PER_ADDRESS", "AddressLimit", "Forwarded", "ProxiesError", "is_trusted", "refusal_text",
           "trusted_networks"]
