"""Millstone for Python: the mill game (Nine and Twelve Men's Morris) under Millstone's rules.

- :class:`Position`: a game with history; legal moves as tokens (``"d6"``, ``"d6-d5"``,
  ``"d6xa1"``) and as action ids; play, undo, outcome and reason, mills, hands, perft.
- The action encoding (version :data:`ENCODING_VERSION`): :func:`encode_move`,
  :func:`decode_action`, :func:`encode_two_step`; see ``docs/python.md``.
- :class:`VectorEnv`: n games stepped in Rust with the GIL released, numpy observations.
- :class:`Engine`: the search in-process; :class:`Tablebase`: exact values from the tables.
- ``millstone.openspiel`` registers ``millstone_nine`` and ``millstone_twelve`` with pyspiel;
  ``millstone.pettingzoo`` has an AEC environment.
"""

from millstone._millstone import (
    ENCODING_VERSION,
    NUM_ACTIONS,
    NUM_TWO_STEP_ACTIONS,
    OBSERVATION_SHAPE,
    POINTS,
    Engine,
    Position,
    Tablebase,
    VectorEnv,
    __version__,
    decode_action,
    encode_move,
    encode_two_step,
)

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
    "VectorEnv",
    "__version__",
    "decode_action",
    "encode_move",
    "encode_two_step",
]
