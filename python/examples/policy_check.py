"""A policy checked against the exact tables: the share of its moves that keep the value.

    mill-tb generate --max-pieces 6 --dir tables          # nine with flying, 3 v 3 (seconds)
    python python/examples/policy_check.py --tables tables --positions 2000

For random positions of the moving phase inside the tables, every legal move is valued by
``Tablebase.probe_moves``; a move *keeps the value* when its result under the rules equals the
position's (a won position stays won, a drawn one drawn; in a lost position every move does).
Reported: the share of a uniformly random policy's moves that keep it, and the same for
``millstone.Engine`` at a small depth, by the position's value.
"""

import argparse
import random
from collections import defaultdict

import millstone

RANKS = [["a7", "d7", "g7"], ["b6", "d6", "f6"], ["c5", "d5", "e5"],
         ["a4", "b4", "c4", "e4", "f4", "g4"], ["c3", "d3", "e3"], ["b2", "d2", "f2"], ["a1", "d1", "g1"]]


def random_position(rng: random.Random, white: int, black: int) -> millstone.Position:
    cells = rng.sample(millstone.POINTS, white + black)
    owner = {q: ("W" if i < white else "B") for i, q in enumerate(cells)}
    board = "/".join("".join(owner.get(q, ".") for q in rank) for rank in RANKS)
    return millstone.Position.from_fen(f"{board} {rng.choice('wb')} 0 0 0 30")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", required=True)
    ap.add_argument("--positions", type=int, default=2000)
    ap.add_argument("--pieces", default="3,3", help="pieces of White and Black")
    ap.add_argument("--depth", type=int, default=4, help="the engine's search depth")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    white, black = (int(x) for x in args.pieces.split(","))

    tb = millstone.Tablebase(args.tables)
    engine = millstone.Engine(hash=32)
    rng = random.Random(args.seed)
    kept_random = defaultdict(float)
    kept_engine = defaultdict(int)
    seen = defaultdict(int)
    while sum(seen.values()) < args.positions:
        pos = random_position(rng, white, black)
        if pos.is_over():
            continue
        moves = tb.probe_moves(pos)
        if moves is None:
            raise SystemExit(f"{pos.fen()} is not in the tables of {args.tables}")
        value = moves[0][1]["real"]  # the best move's result is the position's
        keeps = {m for m, d in moves if d["real"] == value}
        seen[value] += 1
        kept_random[value] += len(keeps) / len(moves)
        kept_engine[value] += engine.search(pos, depth=args.depth)["move"] in keeps
    print(f"{sum(seen.values())} positions of {white} v {black} (nine, flying), engine depth {args.depth}")
    print("| value | positions | random policy keeps it | engine keeps it |")
    print("|---|---:|---:|---:|")
    for v in ("win", "draw", "loss"):
        if seen[v]:
            print(f"| {v} | {seen[v]} | {kept_random[v] / seen[v]:.1%} | {kept_engine[v] / seen[v]:.1%} |")


if __name__ == "__main__":
    main()
