"""Millstone for Python: the mill game (Nine and Twelve Men's Morris) under Millstone's rules.

- :class:`Position`: a game with history; legal moves as tokens (``"d6"``, ``"d6-d5"``,
  ``"d6xa1"``) and as action ids; play, undo, outcome and reason, mills, hands, perft.
- The action encoding (version :data:`ENCODING_VERSION`): :func:`encode_move`,
  :func:`decode_action`, :func:`encode_two_step`; see ``docs/python.md``.
- :class:`VectorEnv`: n games stepped in Rust with the GIL released, numpy observations.
- :class:`Engine`: the search in-process; :class:`Tablebase`: exact values from the tables,
  local files or a table server (``Tablebase(url=...)``, :class:`TablebaseServerError`).
- ``millstone.openspiel`` registers ``millstone_nine`` and ``millstone_twelve`` with pyspiel;
  ``millstone.pettingzoo`` has an AEC environment.
"""

from typing import Any, Optional

from millstone import _millstone
from millstone._millstone import (
    ENCODING_VERSION,
    NUM_ACTIONS,
    NUM_TWO_STEP_ACTIONS,
    OBSERVATION_SHAPE,
    POINTS,
    Engine,
    Position,
    VectorEnv,
    __version__,
    decode_action,
    encode_move,
    encode_two_step,
)
from millstone.remote import RemoteTablebase, TablebaseServerError


class Tablebase:
    """Exact values from the tables: ``Tablebase(dir)`` reads the files of ``mill-tb generate``
    in a directory, ``Tablebase(url="http://host:port", timeout=10.0)`` asks a table server
    (``mill-serve``) with the same calls and return types. A server that cannot be reached,
    does not answer within ``timeout`` seconds or answers garbage raises
    :class:`TablebaseServerError`; ``sample`` needs the files (NotImplementedError)."""

    def __init__(self, dir: Optional[str] = None, *, url: Optional[str] = None, timeout: float = 10.0) -> None:
        if (dir is None) == (url is None):
            raise TypeError("Tablebase(dir) or Tablebase(url=...): give exactly one of them")
        # One object of either kind behind the same calls: the native one for files, the
        # client for a server.
        self._impl: Any = _millstone.Tablebase(dir) if dir is not None else RemoteTablebase(url, timeout)

    @property
    def url(self) -> Optional[str]:
        """The server's URL, or None for local tables."""
        return getattr(self._impl, "url", None)

    def __repr__(self) -> str:
        return repr(self._impl) if self.url else "Tablebase(<directory>)"

    def count(self, variant: str = "nine", flying: bool = True) -> tuple[int, int]:
        """How many moving-phase sub-spaces and placing sectors of the rules are present."""
        return self._impl.count(variant, flying)

    def probe(self, position: Position) -> Optional[dict[str, Any]]:
        """The position's value for the side to move (``wdl``, ``real``, ``plies_to_mill``), or
        None outside the tables."""
        return self._impl.probe(position)

    def probe_moves(self, position: Position) -> Optional[list[tuple[str, dict[str, Any]]]]:
        """Every legal move's value for its maker, best first; None when some move leads
        outside the tables or the game is over."""
        return self._impl.probe_moves(position)

    def best_move(self, position: Position) -> Optional[str]:
        """The tables' best move (fastest win, else a draw, else the slowest loss), or None."""
        return self._impl.best_move(position)

    def sample(
        self,
        n: int,
        seed: int = 1,
        distribution: str = "games",
        variant: str = "nine",
        flying: bool = True,
        distances: bool = False,
        fens: bool = False,
    ) -> dict[str, Any]:
        """``n`` labelled positions as numpy arrays (local tables only; see docs/python.md)."""
        return self._impl.sample(n, seed, distribution, variant, flying, distances, fens)


#: The planes of an observation, in order (each 24 values, one per point in ``POINTS`` order).
OBSERVATION_PLANES = (
    "own pieces",
    "opponent pieces",
    "empty points",
    "own pieces in hand / pieces per side",
    "opponent pieces in hand / pieces per side",
    "100-ply counter / 100",
    "destination of a move waiting for its removal (two-step form)",
    "origin of a move waiting for its removal (two-step form)",
)

__all__ = [
    "ENCODING_VERSION",
    "NUM_ACTIONS",
    "NUM_TWO_STEP_ACTIONS",
    "OBSERVATION_PLANES",
    "OBSERVATION_SHAPE",
    "POINTS",
    "Engine",
    "Position",
    "Tablebase",
    "TablebaseServerError",
    "VectorEnv",
    "__version__",
    "decode_action",
    "encode_move",
    "encode_two_step",
]
