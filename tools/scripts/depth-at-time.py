#!/usr/bin/env python3
"""Depth reached and nodes a second at a fixed move time, the network against the hand-tuned
evaluation (issue 35's speed figure; docs/nnue.md "Speed").

Positions come from the games of a mill-match JSONL file: every STEP-th ply of every game, each
searched with `go movetime MS` on one thread, no tables, no book, `ucinewgame` before each, once
with `UseNNUE true` and once with `UseNNUE false`. The last `info depth` line of each search gives
its depth and nodes; the time is the engine's own `time` field.

  depth-at-time.py ENGINE GAMES.jsonl [--movetime 100] [--step 3] [--max 400]
"""
import argparse
import json
import statistics
import subprocess
import sys


def positions(path, step, limit):
    out = []
    with open(path) as f:
        for line in f:
            g = json.loads(line)
            if g.get("variant") != "nine":
                continue
            for ply in range(0, len(g["moves"]), step):
                out.append((g["fen"], g["moves"][:ply]))
                if len(out) >= limit:
                    return out
    return out


def phase_of(fen):
    # Pieces in hand are the third and fourth fields of a position string (RULES.md).
    f = fen.split()
    return "placing" if f[2] != "0" or f[3] != "0" else "moving"


def search(proc, fen, moves, movetime):
    w = proc.stdin.write
    w("ucinewgame\n")
    w(f"position fen {fen}" + (" moves " + " ".join(moves) if moves else "") + "\n")
    # The searched position as the engine sees it, for its phase.
    w("query fen\n")
    w(f"go movetime {movetime}\n")
    proc.stdin.flush()
    last = None
    now = None
    while True:
        line = proc.stdout.readline()
        if not line:
            sys.exit("the engine ended")
        if line.startswith("info depth"):
            last = line.split()
        elif line.startswith("response "):
            now = line.split(" ", 1)[1].strip()
        elif line.startswith("bestmove"):
            break
    if last is None:
        return None
    field = {last[i]: last[i + 1] for i in range(0, len(last) - 1)}
    return now, int(field["depth"]), int(field["nodes"]), int(field["time"])


def run(engine, poss, movetime, nnue):
    proc = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
    for opt in ("TablePath value <empty>", "BookPath value <empty>", "Threads value 1",
                f"UseNNUE value {'true' if nnue else 'false'}"):
        proc.stdin.write(f"setoption name {opt}\n")
    proc.stdin.write("isready\n")
    proc.stdin.flush()
    while proc.stdout.readline().strip() != "readyok":
        pass
    rows = []
    for fen, moves in poss:
        r = search(proc, fen, moves, movetime)
        if r is not None:
            rows.append(r)
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine")
    ap.add_argument("games")
    ap.add_argument("--movetime", type=int, default=100)
    ap.add_argument("--step", type=int, default=3)
    ap.add_argument("--max", type=int, default=400)
    a = ap.parse_args()
    poss = positions(a.games, a.step, a.max)
    print(f"{len(poss)} positions of {a.games}, every {a.step} plies, go movetime {a.movetime}")
    print(f"{'evaluation':<12} {'phase':<8} {'positions':>9} {'mean depth':>10} "
          f"{'median':>6} {'nodes/s':>10}")
    for nnue in (True, False):
        rows = run(a.engine, poss, a.movetime, nnue)
        for ph in ("placing", "moving"):
            sel = [r for r in rows if r[0] and phase_of(r[0]) == ph]
            if not sel:
                continue
            depths = [r[1] for r in sel]
            nps = sum(r[2] for r in sel) / max(1, sum(r[3] for r in sel)) * 1000
            name = "network" if nnue else "hand-tuned"
            print(f"{name:<12} {ph:<8} {len(sel):>9} {statistics.mean(depths):>10.2f} "
                  f"{statistics.median(depths):>6} {nps / 1e6:>9.2f}M")


if __name__ == "__main__":
    main()
