"""The live proof page of `pnp watch --serve`: a read-only HTTP server on the standard library.

Four routes and nothing else: `/` (the page), `/model.json` (cards, their problems, image
names), `/img/<digest>.png` (one face, drawn on demand, cached in memory) and `/events`
(server-sent events, one per round). The request path is matched exactly against those
routes, before any decoding, so no request can name a file: `/../pnp.toml`, `%2e%2e%2f`,
`//etc/passwd` and absolute URLs are 404. Requests whose Host header names another site are
403 (a page elsewhere cannot read the preview through DNS rebinding). Nothing is written to
the project: images live in memory.
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson

from pnp.live.preview import Card, Preview, Snapshot, problem_line

PAGE = Path(__file__).resolve().parents[1] / "templates" / "preview.html"
IMAGE_ROUTE = re.compile(r"/img/([0-9a-f]{64})\.png")
KEEPALIVE_SECONDS = 15.0
EVENT_CARDS = 64  # changed cards sent with a round's event; the page fetches the rest with the model
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'none'; img-src 'self' data:; connect-src 'self'; script-src 'unsafe-inline'; "
        "style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
}


class PreviewServer(ThreadingHTTPServer):
    daemon_threads = True  # an open /events stream does not keep the process alive
    allow_reuse_address = True

    def __init__(self, preview: Preview, host: str, port: int) -> None:
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        super().__init__((host, port), PreviewHandler)
        self.preview = preview
        self.stopping = False
        self.page = PAGE.read_bytes()
        bound = self.server_address[1]
        names = {host, "127.0.0.1", "localhost", "[::1]"} if host in ("127.0.0.1", "::1", "localhost") else {host}
        # bound to every interface on request: reached under any name, so no name is checked
        wildcard = host in ("0.0.0.0", "::", "")
        self.allowed_hosts: set[str] | None = None if wildcard else {f"{n}:{bound}" for n in names} | names
        self.views = CardViews()
        self._model: tuple[int, bytes] = (-1, b"")
        self._model_lock = threading.Lock()

    def model(self) -> bytes:
        """The page's model of the current snapshot, serialised once per round."""
        snapshot = self.preview.snapshot
        with self._model_lock:
            if self._model[0] != snapshot.generation:
                self._model = (snapshot.generation, orjson.dumps(model_of(snapshot, self.views)))
            return self._model[1]

    def stop(self) -> None:
        self.stopping = True
        with self.preview.changed_event:
            self.preview.changed_event.notify_all()
        self.shutdown()
        self.server_close()


def card_view(card: Card) -> dict[str, Any]:
    """What the page knows of a card."""
    return {
        "key": card.key,
        "kind": card.kind,
        "game": card.game,
        "name": card.name,
        "id": str(card.record.get("id", "")),
        "where": f"{card.ref.display}:{card.line}",
        "images": [
            {"side": side, "url": f"/img/{digest}.png"} for side, digest in zip(card.sides, card.digests, strict=True)
        ],
        "problems": [{"severity": p.severity, "line": problem_line(p)} for p in card.problems],
        "stale": card.stale,
    }


class CardViews:
    """Card views, made once per card object (rounds reuse the cards of unchanged files)."""

    def __init__(self) -> None:
        self._views: dict[int, tuple[Card, dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def of(self, cards: Iterable[Card], keep: bool = False) -> list[dict[str, Any]]:
        with self._lock:
            fresh: dict[int, tuple[Card, dict[str, Any]]] = {}
            views = []
            for card in cards:
                known = self._views.get(id(card))
                if known is None or known[0] is not card:
                    known = (card, card_view(card))
                fresh[id(card)] = known
                views.append(known[1])
            if keep:
                self._views = fresh
            return views


def model_of(snapshot: Snapshot, views: CardViews) -> dict[str, Any]:
    return {
        "generation": snapshot.generation,
        "changed": list(snapshot.changed),
        "problems": [{"severity": p.severity, "line": problem_line(p)} for p in snapshot.problems],
        "cards": views.of(snapshot.cards, keep=True),
    }


def event_of(snapshot: Snapshot, views: CardViews) -> dict[str, Any]:
    """A round as announced: the changed cards themselves (so their images can be swapped at once)."""
    keys = set(snapshot.changed[:EVENT_CARDS])
    return {
        "generation": snapshot.generation,
        "changed": list(snapshot.changed),
        "cards": views.of(card for card in snapshot.cards if card.key in keys),
    }


class PreviewHandler(BaseHTTPRequestHandler):
    server: PreviewServer
    server_version = "pnp-preview"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    timeout = 60  # seconds a connection may sit idle (or half-sent) before it is dropped

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Quiet: the terminal shows the rounds' problems, not every request."""

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        host = self.headers.get("Host")
        allowed = self.server.allowed_hosts
        if host is not None and allowed is not None and host.lower() not in allowed:
            self._send(HTTPStatus.FORBIDDEN, b"forbidden: this preview serves only its own address\n", "text/plain")
            return
        path = self.path.split("?", 1)[0]
        if path == "/":
            self._send(HTTPStatus.OK, self.server.page, "text/html; charset=utf-8")
        elif path == "/model.json":
            self._send(HTTPStatus.OK, self.server.model(), "application/json")
        elif path == "/events":
            self._events()
        elif (match := IMAGE_ROUTE.fullmatch(path)) is not None:
            data = self.server.preview.image(match.group(1))
            if data is None:
                self._send(HTTPStatus.NOT_FOUND, b"no such image (the card changed since)\n", "text/plain")
            else:
                self._send(HTTPStatus.OK, data, "image/png", cache="max-age=3600, immutable")
        else:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")

    def _send(self, status: HTTPStatus, body: bytes, content_type: str, cache: str = "no-store") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _events(self) -> None:
        """One `round` event per published snapshot (and the current one at once), until the end."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if self.command == "HEAD":
            return
        preview, server = self.server.preview, self.server
        seen = -1
        try:
            while not server.stopping:
                with preview.changed_event:
                    preview.changed_event.wait_for(
                        lambda seen=seen: server.stopping or preview.snapshot.generation != seen,  # type: ignore[misc]
                        KEEPALIVE_SECONDS,
                    )
                    snapshot = preview.snapshot
                if server.stopping:
                    return
                if snapshot.generation == seen:
                    self.wfile.write(b": keepalive\n\n")
                else:
                    seen = snapshot.generation
                    data = orjson.dumps(event_of(snapshot, server.views))
                    self.wfile.write(b"event: round\ndata: " + data + b"\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            return


def start_server(preview: Preview, host: str, port: int) -> PreviewServer:
    """Bind (127.0.0.1 unless asked otherwise) and serve in a background thread."""
    from pnp.project.config import ConfigError

    try:
        server = PreviewServer(preview, host, port)
    except OSError as err:
        raise ConfigError(f"cannot serve on {host}:{port}: {err.strerror or err}") from None
    thread = threading.Thread(target=server.serve_forever, name="pnp-preview", daemon=True)
    thread.start()
    return server
