"""PettingZoo's api_test on the AEC environment, and a game played through it."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test  # noqa: E402

import millstone  # noqa: E402
from millstone.pettingzoo import env, raw_env  # noqa: E402


@pytest.mark.parametrize("variant,flying,two_step", [("nine", True, False), ("twelve", False, True)])
def test_api_test(variant, flying, two_step):
    api_test(env(variant=variant, flying=flying, two_step=two_step), num_cycles=400, verbose_progress=False)


def test_game_through_env_matches_position():
    e = raw_env()
    e.reset(seed=0)
    pos = millstone.Position()
    rng = np.random.default_rng(0)
    final = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            assert not trunc and info["result"] == pos.outcome()
            final[agent] = reward
            e.step(None)
            continue
        assert agent == f"player_{pos.current_player}"
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.tolist() == sorted(pos.legal_actions())
        a = int(rng.choice(legal))
        e.step(a)
        pos.apply_action(a)
    r0 = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}[pos.outcome()]
    assert final == {"player_0": r0, "player_1": -r0}
