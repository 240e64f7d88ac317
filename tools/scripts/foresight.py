#!/usr/bin/env python3
"""Which shallow players of ours foresee an opponent's placing mistakes (docs/merciless.md).

Reads the games of mill-match JSONL files and, at each placement of the named player where the
tables value some move below the best (a mistake was possible), asks each shallow player (our
engine without tables, `go depth D`, with the network or the hand-tuned evaluation, a fresh
search each time) for its move. The tables say whether the player's move and the opponent's
real move lost the value. For each player, and for votes of the first four of `TableChoice
crowd`, it prints how many placements it flagged (its move lost) and how many of those were the
opponent's own mistakes: a player whose flags are the opponent's mistakes sets traps the
opponent falls into.

    foresight.py GAMES.jsonl [...] --tables T --player NAME [--engine millstone] [--jsonl OUT]
"""
import argparse
import json
import subprocess

RANK = {"win": 2, "draw": 1, "loss": 0}
# Our players: (evaluation, depth). The first four are TableChoice crowd's first four, in its order.
PLAYERS = [("net", 1), ("hand", 2), ("net", 4), ("net", 2), ("net", 8), ("hand", 8),
           ("net", 3), ("net", 6), ("hand", 1), ("hand", 3), ("hand", 4), ("hand", 6)]


class Engine:
    def __init__(self, command, options):
        self.p = subprocess.Popen([command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        for name, value in options:
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.until("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the engine ended")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    def position(self, fen, moves):
        self.send(f"position fen {fen}" + (f" moves {' '.join(moves)}" if moves else ""))

    def values(self, fen, moves):
        """Each legal move's W/D/L for the mover, or {} where the tables do not value them."""
        self.position(fen, moves)
        self.send("values")
        out = {}
        for line in self.until("values"):
            t = line.split()
            if t[:1] == ["value"]:
                out[t[1]] = t[2]
        return out

    def best(self, fen, moves, depth):
        self.send("ucinewgame")
        self.position(fen, moves)
        self.send(f"go depth {depth}")
        return self.until("bestmove")[-1].split()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="+")
    ap.add_argument("--tables", required=True)
    ap.add_argument("--player", required=True, help="the opponent's name in the records")
    ap.add_argument("--engine", default="millstone")
    ap.add_argument("--jsonl", help="write one line per placement here")
    a = ap.parse_args()
    tb = Engine(a.engine, [("TablePath", a.tables), ("BookPath", "<empty>")])
    bare = {ev: Engine(a.engine, [("TablePath", "<empty>"), ("BookPath", "<empty>"),
                                  ("UseNNUE", "true" if ev == "net" else "false")])
            for ev in ("net", "hand")}
    out = open(a.jsonl, "w") if a.jsonl else None
    rows = []
    for path in a.games:
        for line in open(path):
            g = json.loads(line)
            if a.player not in (g["white"], g["black"]):
                continue
            side = "w" if g["white"] == a.player else "b"
            first = g["fen"].split()[1]
            for i, m in enumerate(g["moves"]):
                mover = first if i % 2 == 0 else ("b" if first == "w" else "w")
                if "-" in m.split("x")[0]:
                    break  # the moving phase
                if mover != side:
                    continue
                vals = tb.values(g["fen"], g["moves"][:i])
                if not vals:
                    continue
                best = max(RANK[v] for v in vals.values())
                if all(RANK[v] == best for v in vals.values()):
                    continue
                flags = {f"{ev}-d{d}": RANK[vals.get(bare[ev].best(g["fen"], g["moves"][:i], d), "loss")] < best
                         for ev, d in PLAYERS}
                row = {"file": path, "game": g["game"], "ply": i, "mistake": RANK[vals[m]] < best,
                       "flags": flags}
                rows.append(row)
                if out:
                    print(json.dumps(row), file=out, flush=True)
    mistakes = sum(r["mistake"] for r in rows)
    print(f"{len(rows)} placements of {a.player} where a move loses value, {mistakes} of them lost it")

    def report(label, flagged):
        n = sum(1 for r in rows if flagged(r["flags"]))
        hit = sum(1 for r in rows if flagged(r["flags"]) and r["mistake"])
        print(f"  {label:28s} flags {n:4d}, {a.player}'s mistakes among them {hit:3d}"
              f" (precision {hit / max(n, 1):.2f}, recall {hit / max(mistakes, 1):.2f})")

    for ev, d in PLAYERS:
        report(f"{ev} {d} plies", lambda f, k=f"{ev}-d{d}": f[k])
    crowd = [f"{ev}-d{d}" for ev, d in PLAYERS[:4]]
    for k in range(1, 5):
        report(f"crowd's first four, {k}+ votes", lambda f, k=k: sum(f[c] for c in crowd) >= k)
    for e in bare.values():
        e.send("quit")
    tb.send("quit")


if __name__ == "__main__":
    main()
