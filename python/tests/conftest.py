"""Shared helpers of the pytest suite."""

import os
import random

import pytest

import millstone

RULE_SETS = [("nine", True), ("nine", False), ("twelve", True), ("twelve", False)]


def random_positions(count, seed, variant="nine", flying=True, max_plies=120):
    """Positions reached by random play (stopping at a random ply or the end)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        p = millstone.Position(variant, flying=flying)
        stop = rng.randrange(max_plies)
        for _ in range(stop):
            moves = p.legal_moves()
            if not moves:
                break
            p.play(rng.choice(moves))
        out.append(p)
    return out


@pytest.fixture(scope="session")
def millstone_bin():
    """The `millstone` binary (set by tools/tests/python.rs)."""
    path = os.environ.get("MILLSTONE_BIN")
    if not path:
        pytest.skip("MILLSTONE_BIN is not set (tools/tests/python.rs sets it)")
    return path


@pytest.fixture(scope="session")
def table_dir():
    """A directory with small moving-phase tables of nine with flying (set by the Rust test)."""
    path = os.environ.get("MILLSTONE_TABLES")
    if not path:
        pytest.skip("MILLSTONE_TABLES is not set (tools/tests/python.rs sets it)")
    return path
