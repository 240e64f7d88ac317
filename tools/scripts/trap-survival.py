#!/usr/bin/env python3
"""How often an opponent goes wrong after each of our value-keeping moves (docs/merciless.md).

Positions are drawn at random from the games of a mill-match JSONL file (a placing or a moving
ply). At each position that the tables value as a draw, every drawing move of the side to move is
played, and the engine without tables answers as the opponent: at `go movetime MS` (the real
opponent) and at each fixed depth given (shallow models of it). The tables say whether each answer
keeps the opponent's draw. The counts show how many traps there are to set against that opponent
and whether a shallow model's traps survive its real search. `--opponent` replaces the engine
without tables by another command speaking our protocol (such as mill-sanmill), with
`--opponent-option NAME=VALUE`; the depth models stay ours (the engine without tables), so
the counts say whether our shallow search foresees that opponent's mistakes.

    trap-survival.py GAMES.jsonl --tables T [--engine millstone] [--positions 100]
                     [--phase placing|moving] [--depths 4,8] [--movetime 100] [--seed 1]
                     [--opponent "mill-sanmill SANMILL" --opponent-option SkillLevel=30]
"""
import argparse
import json
import random
import shlex
import subprocess


class Engine:
    def __init__(self, command, options):
        self.p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        for name, value in options:
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.read_until("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def read_until(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the engine ended")
            line = line.strip()
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def position(self, fen, moves):
        self.send(f"position fen {fen}" + (f" moves {' '.join(moves)}" if moves else ""))

    def quit(self):
        self.send("quit")
        self.p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games")
    ap.add_argument("--tables", required=True)
    ap.add_argument("--engine", default="target/release/millstone")
    ap.add_argument("--positions", type=int, default=100)
    ap.add_argument("--phase", choices=["placing", "moving"], default="placing")
    ap.add_argument("--depths", default="4,8")
    ap.add_argument("--movetime", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--opponent")
    ap.add_argument("--opponent-option", action="append", default=[])
    a = ap.parse_args()
    depths = [int(d) for d in a.depths.split(",") if d]
    games = [json.loads(line) for line in open(a.games)]
    rng = random.Random(a.seed)
    tables = Engine([a.engine], [("TablePath", a.tables)])
    bare = Engine([a.engine], [("TablePath", "<empty>"), ("BookPath", "<empty>")])
    opponent = bare
    if a.opponent:
        opponent = Engine(shlex.split(a.opponent), [o.split("=", 1) for o in a.opponent_option])

    def values(fen, moves):
        tables.position(fen, moves)
        tables.send("values")
        return {l.split()[1]: l.split()[2] for l in tables.read_until("values ")
                if l.startswith("value ")}

    def answer(engine, fen, moves, go):
        engine.send("ucinewgame")
        engine.position(fen, moves)
        engine.send(go)
        return engine.read_until("bestmove")[-1].split()[1]

    real = [0, 0]
    model = {d: [0, 0, 0] for d in depths}  # errs at depth d, of which also at movetime, tried
    positions = 0
    while positions < a.positions:
        g = rng.choice(games)
        plies = [i for i, m in enumerate(g["moves"])
                 if ("-" in m) == (a.phase == "moving") and i >= 1]
        if len(plies) < 2:
            continue
        before = g["moves"][:rng.choice(plies)]
        ours = values(g["fen"], before)
        draws = [m for m, v in ours.items() if v == "draw"]
        if not draws:
            continue
        positions += 1
        for m in draws:
            line = before + [m]
            theirs = values(g["fen"], line)
            if "draw" not in theirs.values():
                continue
            errs = theirs.get(answer(opponent, g["fen"], line, f"go movetime {a.movetime}")) == "loss"
            real[0] += errs
            real[1] += 1
            for d in depths:
                shallow = theirs.get(answer(bare, g["fen"], line, f"go depth {d}")) == "loss"
                model[d][0] += shallow
                model[d][1] += shallow and errs
                model[d][2] += 1
    for e in {id(x): x for x in (tables, bare, opponent)}.values():
        e.quit()
    print(f"{a.phase}: {positions} drawn positions, {real[1]} drawing moves of ours; "
          f"the opponent at {a.movetime} ms gave its draw away after {real[0]}")
    for d in depths:
        e, both, n = model[d]
        print(f"  model at depth {d}: a losing answer after {e} of {n}; "
              f"the {a.movetime} ms opponent also lost there in {both}")


if __name__ == "__main__":
    main()
