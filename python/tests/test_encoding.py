"""The action encoding: id -> token -> id on every legal move of many random positions."""

import numpy as np
import pytest

import millstone
from conftest import RULE_SETS, random_positions


def test_version_and_sizes():
    assert millstone.ENCODING_VERSION == 1
    assert millstone.NUM_ACTIONS == 15000 and millstone.NUM_TWO_STEP_ACTIONS == 600
    # Fixed ids that scripts may rely on (docs/python.md).
    assert millstone.encode_move("a1") == 0 * 25 + 24
    assert millstone.encode_move("g7") == 23 * 25 + 24
    assert millstone.encode_move("a1-d1") == (24 + 0 * 24 + 1) * 25 + 24
    assert millstone.encode_move("d6xa1") == 19 * 25 + 0
    assert millstone.encode_two_step("d6-d5xa1") == [24 + 19 * 24 + 16, 0]
    with pytest.raises(ValueError):
        millstone.decode_action(15000)
    with pytest.raises(ValueError):
        millstone.decode_action(5 * 25 + 5)  # f2 removing f2
    with pytest.raises(ValueError):
        millstone.decode_action((24 + 3 * 24 + 3) * 25 + 24)  # b2-b2


def test_every_id_decodes_to_its_own_id():
    valid = 0
    for a in range(millstone.NUM_ACTIONS):
        try:
            tok = millstone.decode_action(a)
        except ValueError:
            continue
        valid += 1
        assert millstone.encode_move(tok) == a
    # 24 placements and 552 slides, each without or with one of 22 or 23 removals.
    assert valid == 24 * (1 + 23) + 552 * (1 + 22)


@pytest.mark.parametrize("variant,flying", RULE_SETS)
def test_round_trip_on_random_positions(variant, flying):
    checked = 0
    mills = 0
    for i, p in enumerate(random_positions(300, seed=hash((variant, flying)) & 0xFFFF, variant=variant, flying=flying)):
        moves = p.legal_moves()
        ids = p.legal_actions()
        assert ids == [millstone.encode_move(m) for m in moves]
        assert [millstone.decode_action(a) for a in ids] == moves
        assert len(set(ids)) == len(ids)
        mask = p.legal_action_mask()
        assert mask.sum() == len(ids) and all(mask[ids])
        # Two-step: the bases are the moves without their removals.
        bases = sorted({millstone.encode_two_step(m)[0] for m in moves})
        assert p.legal_actions(two_step=True) == bases
        assert np.flatnonzero(p.legal_action_mask(two_step=True)).tolist() == bases
        for m, a in zip(moves, ids):
            q = p.copy()
            q.apply_action(a)
            r = p.copy()
            r.play(m)
            assert q.fen() == r.fen()
            s = p.copy()
            steps = millstone.encode_two_step(m)
            s.apply_action(steps[0], two_step=True)
            if len(steps) == 2:
                assert s.pending_removal == m.split("x")[0]
                assert s.current_player == p.current_player
                assert s.legal_moves() == []
                removals = sorted(int(millstone.encode_two_step(x)[1]) for x in moves if x.split("x")[0] == s.pending_removal)
                assert s.legal_actions(two_step=True) == removals
                s.apply_action(steps[1], two_step=True)
                mills += 1
            assert s.pending_removal is None
            assert s.fen() == r.fen()
            checked += 1
        if i % 10 == 0 and moves:
            with pytest.raises(ValueError):
                p.copy().apply_action(max(set(range(millstone.NUM_ACTIONS)) - set(ids) - {0}))
    assert checked > 1500 and mills > 50, (checked, mills)
