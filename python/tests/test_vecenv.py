"""VectorEnv: shapes, masks, rewards, resets and the draw rules, against Position."""

import numpy as np
import pytest

import millstone


@pytest.mark.parametrize("two_step", [False, True])
def test_random_self_play_agrees_with_position(two_step):
    n = 8
    env = millstone.VectorEnv(n, seed=5, two_step=two_step)
    obs = env.reset(seed=5)
    assert obs.shape == (n, 8, 24) and obs.dtype == np.float32
    shadows = [millstone.Position() for _ in range(n)]
    finished = 0
    for _ in range(1500):
        masks = env.action_masks()
        assert masks.shape == (n, env.num_actions)
        acts = env.random_actions()
        for i in range(n):
            assert masks[i, acts[i]]
            assert masks[i].sum() == len(shadows[i].legal_actions(two_step=two_step))
        movers = env.to_play().copy()
        obs, rew, done = env.step(acts)
        for i in range(n):
            shadows[i].apply_action(int(acts[i]), two_step=two_step)
            if done[i]:
                finished += 1
                res = shadows[i].outcome()
                assert res is not None
                code = {"1-0": 1, "0-1": 2, "1/2-1/2": 3}[res]
                assert env.results[i] == code
                mover = "1-0" if movers[i] == 0 else "0-1"
                assert rew[i] == (0.0 if code == 3 else (1.0 if res == mover else -1.0))
                shadows[i] = millstone.Position()
                assert env.fens()[i] == shadows[i].fen()
            else:
                assert shadows[i].outcome() is None
                assert rew[i] == 0.0 and env.results[i] == 0
                assert env.fens()[i] == shadows[i].fen()
                assert np.array_equal(obs[i], shadows[i].observation())
    assert finished >= 8
    assert env.games_finished == finished


def test_illegal_action_applies_nothing():
    env = millstone.VectorEnv(3, seed=1)
    before = env.fens()
    acts = env.random_actions()
    acts[1] = 7 * 25 + 7  # no move
    with pytest.raises(ValueError):
        env.step(acts)
    assert env.fens() == before
    with pytest.raises(ValueError):
        env.step(np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize("threads", [1, 3])
def test_picked_actions_are_checked_again_after_a_step(threads):
    """The random player's pick needs no check in the step right after it, and only there: the
    same placements once more land on occupied points and are refused, with nothing applied."""
    env = millstone.VectorEnv(600, seed=4, threads=threads)
    acts = env.random_actions()
    env.step(acts)
    before = env.fens()
    with pytest.raises(ValueError, match="game 0: action"):
        env.step(acts)
    assert env.fens() == before
    # A fresh pick is legal again, also after a refused step.
    env.step(env.random_actions())


@pytest.mark.parametrize("opponent", ["random", "greedy"])
@pytest.mark.parametrize("agent", ["w", "b"])
def test_opponents(opponent, agent):
    env = millstone.VectorEnv(16, variant="twelve", seed=2, opponent=opponent, agent=agent)
    me = 0 if agent == "w" else 1
    total = 0.0
    games = 0
    for _ in range(400):
        assert (env.to_play() == me).all()
        obs, rew, done = env.step(env.random_actions())
        total += rew[done].sum()
        games += done.sum()
        assert (rew[~done] == 0).all()
    assert games > 10
    if opponent == "greedy":
        # A random agent loses most games to the greedy player.
        assert total < 0


def test_greedy_beats_random():
    env = millstone.VectorEnv(32, seed=3, opponent="random", agent="w")
    score = 0.0
    games = 0
    while games < 200:
        obs, rew, done = env.step(env.greedy_actions())
        score += rew[done].sum()
        games += done.sum()
    assert score / games > 0.5


def test_play_random_counts():
    env = millstone.VectorEnv(64, seed=4)
    moves, games = env.play_random(400)
    assert moves == 64 * 400 and games > 64
    assert (env.episode_lengths > 0).any()


def test_threads_do_not_change_the_games():
    """Each game has its own generator: the same seed gives the same games on 1 or 3 threads."""
    runs = []
    for threads in (1, 3):
        env = millstone.VectorEnv(600, seed=9, threads=threads)
        for _ in range(150):
            env.step(env.random_actions())
        env.play_random(100)
        runs.append((env.fens(), env.games_finished, env.moves_played))
    assert runs[0] == runs[1]
    assert runs[0][1] > 0
