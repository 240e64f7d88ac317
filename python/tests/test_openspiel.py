"""OpenSpiel: the peer check against its nine_mens_morris, and its own simulation tests on our
registered games."""

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import millstone  # noqa: E402
import millstone.openspiel as mos  # noqa: E402

PEER_GAMES = 500


def _point(i):
    return mos.OPENSPIEL_POINTS[i]


def _their_moves(state):
    """OpenSpiel's legal moves at the start of a turn as our tokens (removals folded in)."""
    out = {}
    for a in state.legal_actions():
        base = _point(a) if a < 24 else f"{_point((a - 24) // 24)}-{_point((a - 24) % 24)}"
        child = state.child(a)
        if not child.is_terminal() and child.current_player() == state.current_player():
            for r in child.legal_actions():
                out[f"{base}x{_point(r)}"] = (a, r)
        else:
            out[base] = (a, None)
    return out


def test_peer_check_with_nine_mens_morris():
    """Random OpenSpiel games replayed through Position: every position's legal moves agree
    (removals folded) and every game end agrees, apart from OpenSpiel's 200-turn cap and our
    draw rules (threefold repetition, 100 plies without a mill)."""
    game = pyspiel.load_game("nine_mens_morris")
    rng = random.Random(2024)
    counts = {"positions": 0, "same_end": 0, "their_cap": 0, "our_draw": 0}
    for _ in range(PEER_GAMES):
        state = game.new_initial_state()
        pos = millstone.Position("nine", flying=True)
        while True:
            if state.is_terminal():
                if pos.outcome() is None:
                    # Only their cap may end a game that goes on under our rules.
                    assert state.returns() == [0.0, 0.0]
                    assert state.move_number() >= 200
                    counts["their_cap"] += 1
                else:
                    expected = {"1-0": [1.0, -1.0], "0-1": [-1.0, 1.0]}[pos.outcome()]
                    assert state.returns() == expected, pos.fen()
                    counts["same_end"] += 1
                break
            if pos.outcome() is not None:
                assert pos.outcome() == "1/2-1/2" and pos.reason() in ("threefold", "hundredply")
                counts["our_draw"] += 1
                break
            theirs = _their_moves(state)
            assert sorted(theirs) == sorted(pos.legal_moves()), pos.fen()
            counts["positions"] += 1
            token = rng.choice(sorted(theirs))
            a, r = theirs[token]
            state.apply_action(a)
            if r is not None:
                state.apply_action(r)
            pos.play(token)
    print("peer check:", counts)
    assert counts["same_end"] > PEER_GAMES // 3
    assert sum(counts[k] for k in ("same_end", "their_cap", "our_draw")) == PEER_GAMES


@pytest.mark.parametrize(
    "name",
    [
        "millstone_nine",
        "millstone_nine(flying=False)",
        "millstone_twelve",
        "millstone_twelve(flying=False)",
    ],
)
def test_random_sim_test(name):
    game = pyspiel.load_game(name)
    assert game.num_distinct_actions() == 600
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)


def test_registered_games_follow_position():
    game = pyspiel.load_game("millstone_twelve", {"flying": False})
    assert game.get_parameters()["flying"] is False
    state = game.new_initial_state()
    rng = random.Random(1)
    pos = millstone.Position("twelve", flying=False)
    while not state.is_terminal():
        assert state.legal_actions() == pos.legal_actions(two_step=True)
        obs = np.array(state.observation_tensor(state.current_player())).reshape(8, 24)
        assert np.array_equal(obs, pos.observation())
        a = rng.choice(state.legal_actions())
        state.apply_action(a)
        pos.apply_action(a, two_step=True)
    assert state.returns() == {"1-0": [1.0, -1.0], "0-1": [-1.0, 1.0], "1/2-1/2": [0.0, 0.0]}[pos.outcome()]
    assert state.move_number() <= game.max_game_length()


def test_mcts_runs_on_our_game():
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("millstone_nine")
    bot = mcts.MCTSBot(game, uct_c=2, max_simulations=20, evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), random_state=np.random.RandomState(0))
    state = game.new_initial_state()
    for _ in range(4):
        state.apply_action(bot.step(state))
    assert len(state.history()) == 4
