"""Random games side by side: millstone.VectorEnv against OpenSpiel's nine_mens_morris driven
from Python (its apply_action loop), for n = 1, 64, 1024 games at once, in two pairs that do the
same work:

- random games alone: OpenSpiel's loop (legal_actions, a random choice, apply_action) against
  VectorEnv.play_random (the same games played in Rust);
- random games with every position's observation: the same loop plus observation_tensor()
  against VectorEnv.step(random_actions()), whose observations come back as numpy arrays.

    python python/bench/speed.py [--seconds 3] [--sizes 1,64,1024] [--threads 2]

A move is one complete turn (a mill's removal included: OpenSpiel's separate removal action
is counted with its move: OpenSpiel's actions per second times its moves per action, measured
in 200 untimed random games). OpenSpiel ends a game at 200 turns; ours end by our rules (threefold
repetition, 100 plies without a mill), so their games per second differ in length too.
The four measurements of each n run interleaved in short slices (--rounds), so that the load of
a shared machine falls on all of them alike. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time

import millstone


def openspiel_moves_per_action(games: int = 200, seed: int = 1) -> float:
    """Complete moves per OpenSpiel action in random games (a removal is an action of its own),
    measured outside the timed loop so that the loop stays OpenSpiel's plain one."""
    import pyspiel

    game = pyspiel.load_game("nine_mens_morris")
    rng = random.Random(seed)
    actions = moves = 0
    for _ in range(games):
        s = game.new_initial_state()
        while not s.is_terminal():
            player = s.current_player()
            s.apply_action(rng.choice(s.legal_actions()))
            actions += 1
            moves += s.is_terminal() or s.current_player() != player
    return moves / actions


class OpenSpielRunner:
    """n games stepped in turn from Python: legal_actions, a random choice, apply_action."""

    def __init__(self, n: int, per_action: float, seed: int = 0) -> None:
        import pyspiel

        self.game = pyspiel.load_game("nine_mens_morris")
        self.rng = random.Random(seed)
        self.states = [self.game.new_initial_state() for _ in range(n)]
        self.per_action = per_action

    def run(self, seconds: float) -> tuple[float, float, float]:
        return openspiel_slice(self.game, self.states, self.rng, seconds, self.per_action)

    def run_observed(self, seconds: float) -> tuple[float, float, float]:
        return openspiel_observed_slice(self.game, self.states, self.rng, seconds, self.per_action)


def openspiel_slice(game, states, rng, seconds: float, per_action: float) -> tuple[float, float, float]:
    n = len(states)
    actions = games = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while time.perf_counter() < deadline:
        for i in range(n):
            s = states[i]
            s.apply_action(rng.choice(s.legal_actions()))
            actions += 1
            if s.is_terminal():
                games += 1
                states[i] = game.new_initial_state()
    dt = time.perf_counter() - t0
    return actions * per_action, games, dt


def openspiel_observed_slice(game, states, rng, seconds: float, per_action: float) -> tuple[float, float, float]:
    """The same loop, reading each new position's observation as a learner would. A copy of
    openspiel_slice rather than a flag of it: a test per action in the plain loop would slow
    the baseline the ratios are taken against."""
    n = len(states)
    actions = games = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while time.perf_counter() < deadline:
        for i in range(n):
            s = states[i]
            s.apply_action(rng.choice(s.legal_actions()))
            actions += 1
            if s.is_terminal():
                games += 1
                s = states[i] = game.new_initial_state()
            s.observation_tensor()
    dt = time.perf_counter() - t0
    return actions * per_action, games, dt


def vectorenv_slice(env: millstone.VectorEnv, seconds: float) -> tuple[float, float, float]:
    """Random games through the Python API: random_actions and step, observations included."""
    n = env.num_envs
    m0, g0 = env.moves_played, env.games_finished
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while time.perf_counter() < deadline:
        for _ in range(max(1, 64 // n)):
            env.step(env.random_actions())
    dt = time.perf_counter() - t0
    return env.moves_played - m0, env.games_finished - g0, dt


# play_random's calls: bulk random play, a few milliseconds a call, so that splitting the work
# among the threads costs little (at 4,096 moves a call it costs about a fifth, see docs/python.md).
MOVES_PER_CALL = 65536


def rust_only_slice(env: millstone.VectorEnv, seconds: float) -> tuple[float, float, float]:
    """The same games without Python in the loop or observations (play_random)."""
    n = env.num_envs
    moves = games = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while time.perf_counter() < deadline:
        m, g = env.play_random(max(1, MOVES_PER_CALL // n))
        moves += m
        games += g
    dt = time.perf_counter() - t0
    return moves, games, dt


def measure(slices, seconds: float, rounds: int) -> list[tuple[float, float]]:
    """Runs the slices in turn, `rounds` times, so that a change in the machine's load hits all
    of them alike; moves/s and games/s of each."""
    totals = [[0.0, 0.0, 0.0] for _ in slices]
    for _ in range(rounds):
        for t, f in zip(totals, slices):
            m, g, dt = f(seconds / rounds)
            t[0] += m
            t[1] += g
            t[2] += dt
    return [(m / dt, g / dt) for m, g, dt in totals]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    ap.add_argument("--sizes", default="1,64,1024")
    ap.add_argument("--rounds", type=int, default=6, help="slices per measurement, interleaved")
    ap.add_argument("--threads", type=int, default=1, help="VectorEnv's threads (batches above 256 games)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    per_action = openspiel_moves_per_action()
    print(f"command: python {' '.join(sys.argv)}  (millstone {millstone.__version__}, commit {commit})")
    print(f"OpenSpiel: {per_action:.3f} moves per action; VectorEnv threads: {args.threads}")
    rows = []
    for n in sizes:
        os_runner = OpenSpielRunner(n, per_action)
        env = millstone.VectorEnv(n, variant="nine", flying=True, seed=0, threads=args.threads)
        env2 = millstone.VectorEnv(n, variant="nine", flying=True, seed=0, threads=args.threads)
        rows.append((n, measure(
            [
                os_runner.run,
                lambda s: rust_only_slice(env2, s),
                os_runner.run_observed,
                lambda s: vectorenv_slice(env, s),
            ],
            args.seconds,
            args.rounds,
        )))
    print()
    print("Random games alone:")
    print()
    print("| n | OpenSpiel moves/s | OpenSpiel games/s | VectorEnv.play_random moves/s | play_random games/s | ratio (moves/s) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n, ((os_m, os_g), (ro_m, ro_g), _, _) in rows:
        print(f"| {n} | {os_m:,.0f} | {os_g:,.0f} | {ro_m:,.0f} | {ro_g:,.0f} | {ro_m / os_m:.0f}x |")
    print()
    print("Random games with every position's observation:")
    print()
    print("| n | OpenSpiel + observation_tensor moves/s | games/s | VectorEnv.step moves/s | step games/s | ratio (moves/s) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n, (_, _, (oo_m, oo_g), (ve_m, ve_g)) in rows:
        print(f"| {n} | {oo_m:,.0f} | {oo_g:,.0f} | {ve_m:,.0f} | {ve_g:,.0f} | {ve_m / oo_m:.0f}x |")

if __name__ == "__main__":
    main()
