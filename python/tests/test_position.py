"""The Position API against RULES.md's facts."""

import copy
import random

import numpy as np
import pytest

import millstone


def test_start_and_perft():
    p = millstone.Position()
    assert p.fen() == ".../.../.../....../.../.../... w 9 9 0 1"
    assert p.variant == "nine" and p.flying is True
    assert len(p.legal_moves()) == 24
    assert [p.perft(d) for d in (1, 2, 3)] == [24, 552, 12144]
    t = millstone.Position("twelve", flying=False)
    assert t.fen().endswith("w 12 12 0 1") and t.flying is False
    assert t.hands() == (12, 12)


def test_play_undo_mill_and_removal():
    p = millstone.Position()
    for m in ["a1", "b2", "d1", "d2"]:
        p.play(m)
    moves = p.legal_moves()
    assert "g1" not in moves  # closing the mill must name a removal
    assert {"g1xb2", "g1xd2"} <= set(moves)
    with pytest.raises(ValueError):
        p.play("g1")
    p.play("g1xb2")
    assert p.mills("w") == [("a1", "d1", "g1")]
    assert p.mills("b") == []
    assert p.piece_at("b2") is None and p.piece_at("d2") == "b"
    assert p.hands() == (6, 7) and p.on_board() == (3, 1)
    assert p.moves() == ["a1", "b2", "d1", "d2", "g1xb2"]
    assert p.undo() == "g1xb2"
    assert p.fen() == ".../.../.../....../.../BB./WW. w 7 7 0 3"
    assert p.ply == 4 and p.piece_at("b2") == "b"
    start = millstone.Position()
    while p.ply:
        p.undo()
    assert p.fen() == start.fen()
    with pytest.raises(IndexError):
        p.undo()


def test_bad_input():
    with pytest.raises(ValueError):
        millstone.Position("eleven")
    with pytest.raises(ValueError):
        millstone.Position.from_fen("nonsense")
    with pytest.raises(ValueError):
        millstone.Position().play("d4")
    with pytest.raises(ValueError):
        millstone.Position().play("a1-a4")


def test_outcome_material_and_blocked():
    # White to move with two pieces: lost.
    p = millstone.Position.from_fen("W.W/.../.../B....B/.../.../..B w 0 0 0 30")
    assert p.outcome() == "0-1" and p.reason() == "material" and p.legal_moves() == []
    # White's three pieces are all shut in: lost without flying, alive with it.
    fen = "WBW/.../.../B....B/.../.../WB. w 0 0 0 30"
    blocked = millstone.Position.from_fen(fen, flying=False)
    assert blocked.outcome() == "0-1" and blocked.reason() == "blocked"
    assert blocked.legal_moves() == [] and blocked.legal_actions() == []
    flying = millstone.Position.from_fen(fen, flying=True)
    assert flying.outcome() is None and len(flying.legal_moves()) == 3 * 17


def test_hundred_ply_and_threefold():
    fen = "W.W/.../.../B....B/.../.../W.B w 0 0 99 80"
    p = millstone.Position.from_fen(fen)
    assert p.outcome() is None and p.rule50 == 99
    quiet = [m for m in p.legal_moves() if "x" not in m]
    p.play(quiet[0])
    assert p.outcome() == "1/2-1/2" and p.reason() == "hundredply"
    assert p.legal_moves() == []
    with pytest.raises(ValueError):
        p.play(p.undo())  # undo, then the same move: allowed again...
        p.play(quiet[0])  # ...but not after the game has ended
    # Sliding back and forth: the start position's third occurrence is a draw.
    q = millstone.Position.from_fen("W.W/.B./.../B....B/.../.W./... w 0 0 0 30", flying=False)
    cycle = ["d2-d1", "d6-d5", "d1-d2", "d5-d6"]
    for i in range(8):
        assert q.outcome() is None, (i, q.fen())
        q.play(cycle[i % 4])
    assert q.outcome() == "1/2-1/2" and q.reason() == "threefold"
    q.undo()
    assert q.outcome() is None


def test_copy_is_independent_and_observation():
    p = millstone.Position()
    p.play("d6")
    q = copy.deepcopy(p)
    q.play("a1")
    assert p.ply == 1 and q.ply == 2
    obs = q.observation()
    assert obs.shape == tuple(millstone.OBSERVATION_SHAPE) == (8, 24)
    assert obs.dtype == np.float32
    d6 = millstone.POINTS.index("d6")
    a1 = millstone.POINTS.index("a1")
    # White to move: d6 is its own, a1 the opponent's.
    assert obs[0, d6] == 1 and obs[1, a1] == 1 and obs[2].sum() == 22
    assert np.allclose(obs[3], 8 / 9) and np.allclose(obs[4], 8 / 9) and np.allclose(obs[5], 0)


def test_mask_and_ids_match_moves():
    p = millstone.Position()
    ids = p.legal_actions()
    assert ids == [millstone.encode_move(m) for m in p.legal_moves()]
    mask = p.legal_action_mask()
    assert mask.shape == (millstone.NUM_ACTIONS,) and mask.sum() == 24
    assert sorted(np.flatnonzero(mask)) == sorted(ids)
    assert p.legal_action_mask(two_step=True).shape == (millstone.NUM_TWO_STEP_ACTIONS,)


@pytest.mark.parametrize("variant,flying", [("nine", True), ("nine", False), ("twelve", True), ("twelve", False)])
def test_draw_rules_against_the_position_strings(variant, flying):
    """Random games end exactly where plain Python, reading only the position strings, says a
    draw rule ends them: the third occurrence of a board, side and hands since the last reset of
    the ply counter (a placement or a mill), or the ply counter reaching 100. Undo in the middle
    of a game must not change this."""
    rng = random.Random(17)
    draws = {"threefold": 0, "hundredply": 0}
    undone = 0
    for game in range(150):
        p = millstone.Position(variant, flying=flying)
        window = []
        while True:
            fields = p.fen().split()
            key, plies = tuple(fields[:4]), int(fields[4])
            if plies == 0:
                window = []
            window.append(key)
            moves = p.legal_moves()
            if p.outcome() is not None and p.reason() not in ("threefold", "hundredply"):
                break
            expected = None
            if plies >= 100:
                expected = "hundredply"
            elif window.count(key) >= 3:
                expected = "threefold"
            assert p.reason() == expected, (game, p.fen())
            if expected:
                draws[expected] += 1
                assert p.outcome() == "1/2-1/2" and moves == []
                break
            # Mostly quiet moves, so that games last and positions recur.
            quiet = [m for m in moves if "x" not in m]
            m = rng.choice(quiet if quiet and rng.random() < 0.9 else moves)
            if game % 5 == 0 and rng.random() < 0.1:
                # Undo a move (a mill among them) and play another: the window shrinks with it.
                p.play(m)
                p.undo()
                undone += 1
                m = rng.choice(moves)
            p.play(m)
    assert draws["threefold"] >= 10 and draws["hundredply"] >= 1 and undone >= 10, (draws, undone)
