"""A PettingZoo AEC environment of the mill game under Millstone's rules.

>>> from millstone.pettingzoo import env
>>> e = env(variant="nine", flying=True)
>>> e.reset(seed=0)
>>> obs, reward, termination, truncation, info = e.last()
>>> obs["observation"].shape, obs["action_mask"].shape
((8, 24), (15000,))

Agents ``"player_0"`` (White) and ``"player_1"`` (Black). Each observation is a dict with
``"observation"`` (the planes of ``docs/python.md``, from the agent's own view, float32) and
``"action_mask"`` (int8). Actions are complete-move ids (15000, removal folded in) or, with
``two_step=True``, two-step ids (600, a removal being the same agent's next action). Rewards
are +1/-1 to the winner/loser, 0 for a draw; a game ends by our rules exactly (threefold
repetition and the 100-ply rule included), so there is never a truncation.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import millstone

_SWAP = [1, 0, 2, 4, 3, 5, 6, 7]


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's usual wrappers (illegal moves end the game with -1)."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):
    """The mill game as an AEC environment (see the module docs)."""

    metadata = {
        "render_modes": ["human", "ansi"],
        "name": "millstone_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: str = "nine",
        flying: bool = True,
        two_step: bool = False,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.variant = variant
        self.flying = flying
        self.two_step = two_step
        self.render_mode = render_mode
        self.position = millstone.Position(variant, flying=flying)
        self.agents = ["player_0", "player_1"]
        self.possible_agents = self.agents[:]
        n = millstone.NUM_TWO_STEP_ACTIONS if two_step else millstone.NUM_ACTIONS
        self.action_spaces = {a: spaces.Discrete(n) for a in self.agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        low=0.0, high=1.0, shape=tuple(millstone.OBSERVATION_SHAPE), dtype=np.float32
                    ),
                    "action_mask": spaces.Box(low=0, high=1, shape=(n,), dtype=np.int8),
                }
            )
            for a in self.agents
        }
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        idx = self.possible_agents.index(agent)
        obs = self.position.observation()
        if idx != self.position.current_player:
            obs = obs[_SWAP]
        n = self.action_spaces[agent].n
        mask = np.zeros(n, dtype=np.int8)
        if agent == self.agent_selection and not self.position.is_over():
            mask[self.position.legal_actions(two_step=self.two_step)] = 1
        return {"observation": obs, "action_mask": mask}

    def reset(self, seed=None, options=None):
        self.position = millstone.Position(self.variant, flying=self.flying)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {"legal_moves": []} for a in self.agents}
        self.agent_selection = self.agents[0]
        self.infos[self.agent_selection]["legal_moves"] = self.position.legal_moves()

    def step(self, action):
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            return self._was_dead_step(action)
        self.position.apply_action(int(action), two_step=self.two_step)
        for a in self.agents:
            self.rewards[a] = 0
        result = self.position.outcome()
        if result is not None:
            r0 = {"1-0": 1, "0-1": -1}.get(result, 0)
            self.rewards = {"player_0": r0, "player_1": -r0}
            self.terminations = {a: True for a in self.agents}
            for a in self.agents:
                self.infos[a]["result"] = result
                self.infos[a]["reason"] = self.position.reason()
        self.agent_selection = self.possible_agents[self.position.current_player]
        self.infos[self.agent_selection]["legal_moves"] = self.position.legal_moves()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        text = f"{self.position.diagram()}\n{self.position.fen()}"
        if self.render_mode == "human":
            print(text)
        return text

    def close(self):
        pass
