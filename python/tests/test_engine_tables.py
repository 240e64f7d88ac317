"""Engine and Tablebase bindings against the binaries' answers (`millstone` over its protocol,
`mill-tb probe`). tools/tests/python.rs sets MILLSTONE_BIN, MILL_TB and MILLSTONE_TABLES."""

import os
import random
import re
import subprocess

import pytest

import millstone
from conftest import random_positions


def _binary_search(binary, fen, depth, variant="nine", flying=True):
    """The binary's last info line and bestmove for `go depth` (read until bestmove)."""
    proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    proc.stdin.write(
        f"setoption name UCI_Variant value {variant}\n"
        f"setoption name Flying value {'true' if flying else 'false'}\n"
        "setoption name UCI_ShowWDL value true\n"
        f"position fen {fen}\ngo depth {depth}\n"
    )
    proc.stdin.flush()
    lines = []
    for line in proc.stdout:
        lines.append(line.strip())
        if line.startswith("bestmove"):
            break
    proc.stdin.write("quit\n")
    proc.stdin.close()
    proc.wait(timeout=30)
    best = lines[-1].split()[1]
    last = [l for l in lines if l.startswith("info depth")][-1]
    score = re.search(r"score (cp|mate) (-?\d+)", last)
    wdl = tuple(int(x) for x in re.search(r"wdl (\d+) (\d+) (\d+)", last).groups())
    pv = re.search(r" pv (.*)$", last).group(1).split()
    return best, score.group(1), int(score.group(2)), wdl, pv


@pytest.mark.parametrize("variant,flying", [("nine", True), ("twelve", False)])
def test_engine_matches_binary(millstone_bin, variant, flying):
    positions = random_positions(4, seed=11, variant=variant, flying=flying, max_plies=40)
    for p in positions:
        if p.is_over():
            continue
        fen = millstone.Position.from_fen(p.fen(), variant=variant, flying=flying)
        engine = millstone.Engine(variant, flying=flying, threads=1, hash=16)
        r = engine.search(fen, depth=5)
        best, kind, value, wdl, pv = _binary_search(millstone_bin, p.fen(), 5, variant, flying)
        assert r["move"] == best, p.fen()
        if kind == "mate":
            assert r["mate"] == value
        else:
            assert r["mate"] is None and r["score"] == value
        assert tuple(r["wdl"]) == wdl
        assert r["pv"] == pv
        assert r["depth"] == 5 and r["nodes"] > 0


def test_engine_limits_and_skill():
    p = millstone.Position()
    e = millstone.Engine(threads=2, hash=8)
    r = e.search(p, nodes=2000)
    assert r["move"] in p.legal_moves() and r["pv"][0] == r["move"]
    r = e.search(p, movetime=0.05)
    assert r["move"] in p.legal_moves()
    weak = millstone.Engine(skill_level=0, seed=3)
    assert weak.search(p, depth=3)["move"] in p.legal_moves()
    with pytest.raises(ValueError):
        e.search(millstone.Position("twelve"))


def _tb_probe(mill_tb, tables, fen):
    out = subprocess.run(
        [mill_tb, "probe", "--dir", tables, "--fen", fen], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    text = out.stdout
    verdict = re.search(r"^verdict: (.*)$", text, re.M).group(1)
    best = re.search(r"^best move: (\S+)$", text, re.M)
    tail = text[best.end():] if best else ""
    moves = dict(re.findall(r"^  ([a-g][1-7](?:-[a-g][1-7])?(?:x[a-g][1-7])?)\s+(.*)$", tail, re.M))
    return verdict, best.group(1) if best else None, moves


def _describe(d):
    w, n = d["wdl"], d["plies_to_mill"]
    if w in ("win", "loss"):
        return f"{w}, next mill in {n} plies"
    return "draw" if w == "draw" else None


def test_tablebase_matches_mill_tb(table_dir):
    mill_tb = os.environ["MILL_TB"]
    tb = millstone.Tablebase(table_dir)
    assert tb.count("nine", True)[0] >= 1
    rng = random.Random(7)
    points = list(millstone.POINTS)
    checked = decisive = 0
    while checked < 40:
        cells = rng.sample(points, 6)
        board = {q: ("W" if i < 3 else "B") for i, q in enumerate(cells)}
        ranks = [["a7", "d7", "g7"], ["b6", "d6", "f6"], ["c5", "d5", "e5"],
                 ["a4", "b4", "c4", "e4", "f4", "g4"], ["c3", "d3", "e3"], ["b2", "d2", "f2"], ["a1", "d1", "g1"]]
        text = "/".join("".join(board.get(q, ".") for q in r) for r in ranks)
        fen = f"{text} {rng.choice('wb')} 0 0 {rng.randrange(100)} 100"
        p = millstone.Position.from_fen(fen)
        if p.is_over():
            continue
        probe = tb.probe(p)
        verdict, best, moves = _tb_probe(mill_tb, table_dir, fen)
        if _describe(probe) is not None:
            assert _describe(probe) == verdict, fen
        else:
            assert "100-ply" in verdict and probe["real"] == "draw"
        decisive += probe["real"] != "draw"
        ours = tb.probe_moves(p)
        assert ours is not None and tb.best_move(p) == best == ours[0][0]
        assert sorted(m for m, _ in ours) == sorted(p.legal_moves()) == sorted(moves)
        for m, d in ours:
            if _describe(d) is not None:
                assert moves[m] == _describe(d), (fen, m)
        checked += 1
    assert decisive > 5
    # Outside the tables (placing phase, no placing files here): None.
    assert tb.probe(millstone.Position()) is None
    assert tb.probe_moves(millstone.Position()) is None
    # The engine with the tables plays the table's best move in a decided position.
    for _ in range(200):
        cells = rng.sample(points, 6)
        p = millstone.Position.from_fen(
            "/".join("".join(("W" if q in cells[:3] else "B" if q in cells[3:] else ".") for q in r) for r in ranks)
            + " w 0 0 0 100"
        )
        if not p.is_over() and tb.probe(p)["wdl"] == "win":
            break
    e = millstone.Engine(tables=table_dir)
    r = e.search(p, depth=3)
    assert r["score"] >= 19000 and r["wdl"] == (1000, 0, 0)
    assert dict(tb.probe_moves(p))[r["move"]]["wdl"] == "win"


def test_tablebase_sample(table_dir):
    """Tablebase.sample: numpy arrays of one length, labels equal to probe(), reproducible
    from the seed; games without the placing tables are refused."""
    tb = millstone.Tablebase(table_dir)
    d = tb.sample(300, seed=3, distribution="uniform", distances=True, fens=True)
    assert {k: len(v) for k, v in d.items()} == {k: 300 for k in d}
    assert d["result"].dtype.name == "int8" and d["white"].dtype.name == "uint32"
    assert not d["placing"].any()
    for i, fen in enumerate(d["fen"]):
        p = millstone.Position.from_fen(fen)
        probe = tb.probe(p)
        assert {"win": 1, "draw": 0, "loss": -1}[probe["real"]] == d["result"][i], fen
        if d["plies"][i] != 255:
            assert probe["plies_to_mill"] == d["plies"][i], fen
        assert (d["white"][i] & d["black"][i]) == 0
    again = tb.sample(300, seed=3, distribution="uniform")
    assert (again["white"] == d["white"]).all() and (again["result"] == d["result"]).all()
    with pytest.raises(ValueError):
        tb.sample(10, distribution="games")
    with pytest.raises(ValueError):
        tb.sample(10, distribution="nope")
