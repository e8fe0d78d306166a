"""Serve a built site over HTTP: the same files, on loopback unless told otherwise."""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from referee.errors import SiteError
from referee.site.build import MANIFEST

__all__ = ["serve_site"]


class _Quiet(SimpleHTTPRequestHandler):
    """Serves the folder; logs nothing per request, and never the manifest of the build."""

    def log_message(self, format: str, *args: Any) -> None:
        return

    def send_head(self) -> Any:
        if self.path.split("?", 1)[0].lstrip("/") == MANIFEST:
            self.send_error(404)
            return None
        return super().send_head()


def serve_site(root: Path, host: str = "127.0.0.1", port: int = 8000) -> ThreadingHTTPServer:
    """A server over ``root`` (not yet serving: call ``serve_forever``); port 0 picks a free one.

    Raises:
        SiteError: ``root`` holds no built site, or the address cannot be bound.
    """
    if not (root / "index.html").is_file():
        raise SiteError(f"{root} holds no built site (no index.html); run `arena site build --out {root}` first")
    try:
        return ThreadingHTTPServer((host, port), functools.partial(_Quiet, directory=str(root)))
    except OSError as err:
        raise SiteError(f"cannot serve on {host}:{port}: {err.strerror or err}") from None
