"""Millstone's rules as OpenSpiel games.

``import millstone.openspiel`` registers two Python games with pyspiel:

- ``millstone_nine``: Nine Men's Morris;
- ``millstone_twelve``: Twelve Men's Morris (Morabaraba, with the diagonals);

each with a boolean parameter ``flying`` (default ``True``), e.g.
``pyspiel.load_game("millstone_nine(flying=False)")``.

Unlike OpenSpiel's own ``nine_mens_morris`` the games end by Millstone's rules exactly: threefold
repetition and the 100-ply rule are draws, and there is no 200-turn cap. Actions are the
two-step ids of ``docs/python.md`` (600 of them, as OpenSpiel's: a mill's removal is the same
player's next action), with Millstone's point numbering (``millstone.POINTS``, a1 = 0 ...
g7 = 23), not OpenSpiel's. The rules themselves run in Rust (``millstone.Position``).
"""

from __future__ import annotations

import numpy as np
import pyspiel

import millstone

_PLAYERS = 2
_SHAPE = tuple(millstone.OBSERVATION_SHAPE)


def max_game_length(pieces: int) -> int:
    """An upper bound on the number of actions of a game.

    Placements: ``2 * pieces``. Each mill removes a piece, so at most ``2 * pieces`` mills, each
    with its removal action; between two mills of the moving phase at most 100 plies pass
    (the 100-ply rule), and as many after the last.
    """
    mills = 2 * pieces
    return 2 * pieces + mills + (mills + 1) * 101


def _game_type(variant: str) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=f"millstone_{variant}",
        long_name=f"Millstone {variant} men's morris",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=_PLAYERS,
        min_num_players=_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"flying": True},
    )


def _game_info(variant: str) -> pyspiel.GameInfo:
    pieces = 9 if variant == "nine" else 12
    return pyspiel.GameInfo(
        num_distinct_actions=millstone.NUM_TWO_STEP_ACTIONS,
        max_chance_outcomes=0,
        num_players=_PLAYERS,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=max_game_length(pieces),
    )


class MillstoneState(pyspiel.State):
    """A game in progress: a ``millstone.Position`` driven by two-step action ids."""

    def __init__(self, game: "_MillstoneGame") -> None:
        super().__init__(game)
        self.position = millstone.Position(game.variant, flying=game.flying)

    def current_player(self) -> int:
        if self.position.is_over():
            return pyspiel.PlayerId.TERMINAL
        return self.position.current_player

    def _legal_actions(self, player: int) -> list[int]:
        return self.position.legal_actions(two_step=True)

    def _apply_action(self, action: int) -> None:
        self.position.apply_action(int(action), two_step=True)

    def _action_to_string(self, player: int, action: int) -> str:
        pending = self.position.pending_removal
        if action < 24 and (pending is not None or not self.position.is_moving_phase):
            if pending is not None:
                return f"x{millstone.POINTS[action]}"
            return millstone.POINTS[action]
        if action < 24:
            return f"x{millstone.POINTS[action]}"
        f, t = divmod(action - 24, 24)
        return f"{millstone.POINTS[f]}-{millstone.POINTS[t]}"

    def is_terminal(self) -> bool:
        return self.position.is_over()

    def returns(self) -> list[float]:
        o = self.position.outcome()
        if o == "1-0":
            return [1.0, -1.0]
        if o == "0-1":
            return [-1.0, 1.0]
        return [0.0, 0.0]

    def __str__(self) -> str:
        s = self.position.fen()
        if self.position.pending_removal is not None:
            s += f" (removal pending after {self.position.pending_removal})"
        return s


class _BoardObserver:
    """The observation planes of ``docs/python.md`` from ``player``'s view."""

    def __init__(self, params) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.tensor = np.zeros(int(np.prod(_SHAPE)), np.float32)
        self.dict = {"observation": np.reshape(self.tensor, _SHAPE)}

    def set_from(self, state: MillstoneState, player: int) -> None:
        obs = state.position.observation()
        if player != state.position.current_player:
            obs = obs[[1, 0, 2, 4, 3, 5, 6, 7]]
        self.dict["observation"][...] = obs

    def string_from(self, state: MillstoneState, player: int) -> str:
        return str(state)


class _MillstoneGame(pyspiel.Game):
    variant = "nine"

    def __init__(self, params=None) -> None:
        params = dict(params or {})
        super().__init__(_game_type(self.variant), _game_info(self.variant), params)
        self.flying = bool(params.get("flying", True))

    def new_initial_state(self) -> MillstoneState:
        return MillstoneState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _BoardObserver(params)


class MillstoneNineGame(_MillstoneGame):
    """Nine Men's Morris under Millstone's rules."""

    variant = "nine"


class MillstoneTwelveGame(_MillstoneGame):
    """Twelve Men's Morris under Millstone's rules."""

    variant = "twelve"


for _cls in (MillstoneNineGame, MillstoneTwelveGame):
    _short = f"millstone_{_cls.variant}"
    if _short not in pyspiel.registered_names():
        pyspiel.register_game(_game_type(_cls.variant), _cls)

#: OpenSpiel's ``nine_mens_morris`` numbers the points from the top left, row by row: its point
#: ``i`` is ``millstone.POINTS.index(OPENSPIEL_POINTS[i])`` here.
OPENSPIEL_POINTS = (
    "a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5",
    "a4", "b4", "c4", "e4", "f4", "g4",
    "c3", "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1",
)  # fmt: skip
