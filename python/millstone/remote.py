"""The tables of a table server (``mill-serve``, docs/server.md) behind the calls of the local
:class:`millstone.Tablebase`: ``Tablebase(url="http://host:port")`` gives the same answers as
``Tablebase(dir)`` over the same files, for a user without them.

Pure Python (``urllib`` and ``json``): no dependency, and the calls block as the local ones do.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Optional

#: The server's category names, as the local Tablebase's ``wdl`` names them.
_WDL = {
    "win": "win",
    "draw": "draw",
    "loss": "loss",
    "cursed-win": "cursed_win",
    "blessed-loss": "blessed_loss",
}
#: ``wdl`` under the rules: the results the 100-ply rule spoils are draws.
_REAL = {
    "win": "win",
    "draw": "draw",
    "loss": "loss",
    "cursed_win": "draw",
    "blessed_loss": "draw",
}
#: The largest answer read: a position's answer is a few KB.
_MAX_BODY = 1 << 20


class TablebaseServerError(RuntimeError):
    """The table server cannot be reached, does not answer in time, refuses a request, or
    answers something that is not its API's answer."""


class RemoteTablebase:
    """The calls of :class:`millstone.Tablebase` answered by a ``mill-serve`` at ``url``."""

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"{url!r}: give an http:// or https:// URL such as http://127.0.0.1:8080")
        if parts.query or parts.fragment:
            raise ValueError(f"{url!r}: no query or fragment, just http://host:port[/path]")
        if not timeout > 0:
            raise ValueError(f"timeout must be positive, not {timeout!r}")
        self.url = f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"
        self.timeout = float(timeout)
        # Asked at once, so that a wrong or dead URL is an error here, as a wrong directory is
        # for the local tables, not at the first probe.
        info = self._get("/api/v1/info", {})
        if not isinstance(info, dict) or info.get("api") != "v1" or not isinstance(info.get("rule_sets"), list):
            raise TablebaseServerError(f"{self.url} is not a mill-serve (no v1 API in /api/v1/info)")
        self._info = info
        # The last answers, by query: probe, probe_moves and best_move of one position ask once.
        self._cache: dict[tuple[str, str, bool], Optional[dict[str, Any]]] = {}

    def __repr__(self) -> str:
        return f"Tablebase(url={self.url!r})"

    def _get(self, path: str, query: dict[str, str]) -> Any:
        """``GET path?query`` as JSON; a 404 is None (no tables of those rules there)."""
        target = self.url + path + ("?" + urllib.parse.urlencode(query) if query else "")
        req = urllib.request.Request(target, headers={"Accept": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                body = self._read(resp)
        except urllib.error.HTTPError as e:
            if e.code == 404 and path == "/api/v1/position":
                return None
            try:
                why = json.loads(e.read(_MAX_BODY).decode("utf-8"))["error"]
            except Exception:  # noqa: BLE001 - any body that is not the API's error JSON
                why = e.reason
            raise TablebaseServerError(f"{self.url}: {e.code} {why}") from None
        except (urllib.error.URLError, socket.timeout, TimeoutError, OSError) as e:
            reason = getattr(e, "reason", e)
            if isinstance(reason, (socket.timeout, TimeoutError)):
                reason = f"no answer within {self.timeout:g} s"
            raise TablebaseServerError(f"cannot reach the table server {self.url}: {reason}") from None
        except http.client.HTTPException as e:
            # Not HTTP at all, or an answer cut short.
            raise TablebaseServerError(f"{self.url}: not an HTTP answer ({type(e).__name__}: {e})") from None
        if len(body) > _MAX_BODY:
            raise TablebaseServerError(f"{self.url}: an answer over {_MAX_BODY} bytes")
        try:
            return json.loads(body.decode("utf-8"))
        except ValueError:
            raise TablebaseServerError(f"{self.url}: the answer is not JSON: {body[:60]!r}") from None

    def _read(self, resp: Any) -> bytes:
        """The body, within ``timeout`` in all: the socket's timeout bounds each read, so a
        server that trickles a byte at a time would otherwise hold the call for ever."""
        deadline = time.monotonic() + self.timeout
        chunks: list[bytes] = []
        size = 0
        while size <= _MAX_BODY:
            chunk = resp.read1(65536) if hasattr(resp, "read1") else resp.read(65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if time.monotonic() > deadline:
                raise TimeoutError()
        return b"".join(chunks)

    def _answer(self, position: Any) -> Optional[dict[str, Any]]:
        """The server's answer for the position, or None where it has no tables of its rules."""
        key = (position.fen(), position.variant, bool(position.flying))
        if key in self._cache:
            return self._cache[key]
        fen, variant, flying = key
        a = self._get(
            "/api/v1/position",
            {"fen": fen, "variant": variant, "flying": "true" if flying else "false"},
        )
        if a is not None and not (
            isinstance(a, dict) and isinstance(a.get("category"), str) and isinstance(a.get("moves"), list)
        ):
            raise TablebaseServerError(f"{self.url}: not a position's answer: {str(a)[:60]}")
        if len(self._cache) >= 4096:
            self._cache.clear()
        self._cache[key] = a
        return a

    def _probe_dict(self, category: Any, plies: Any) -> dict[str, Any]:
        wdl = _WDL.get(category) if isinstance(category, str) else None
        if wdl is None:
            raise TablebaseServerError(f"{self.url}: unknown category {category!r}")
        if plies is not None and not isinstance(plies, int):
            raise TablebaseServerError(f"{self.url}: odd plies {plies!r}")
        return {"wdl": wdl, "real": _REAL[wdl], "plies_to_mill": plies}

    def count(self, variant: str = "nine", flying: bool = True) -> tuple[int, int]:
        if variant not in ("nine", "twelve"):
            raise ValueError(f"unknown variant {variant!r} (nine or twelve)")
        info = self._get("/api/v1/info", {})
        for r in info.get("rule_sets", []) if isinstance(info, dict) else []:
            if r.get("variant") == variant and r.get("flying") == bool(flying):
                return int(r["moving_subspaces"]), int(r["placing_sectors"])
        return 0, 0

    def probe(self, position: Any) -> Optional[dict[str, Any]]:
        a = self._answer(position)
        if a is None or a["category"] == "unknown":
            return None
        return self._probe_dict(a["category"], a.get("plies"))

    def probe_moves(self, position: Any) -> Optional[list[tuple[str, dict[str, Any]]]]:
        a = self._answer(position)
        if a is None or not a["moves"]:
            return None
        out = []
        for m in a["moves"]:
            if not isinstance(m, dict) or not isinstance(m.get("move"), str):
                raise TablebaseServerError(f"{self.url}: odd move {str(m)[:60]}")
            if m.get("category") == "unknown":
                # As the local tables: no values unless every move has one.
                return None
            out.append((m["move"], self._probe_dict(m.get("category"), m.get("plies"))))
        return out

    def best_move(self, position: Any) -> Optional[str]:
        moves = self.probe_moves(position)
        return moves[0][0] if moves else None

    def sample(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "sample() reads the table files themselves: use Tablebase(dir) (the server has no sampling API)"
        )
