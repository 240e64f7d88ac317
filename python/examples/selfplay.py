"""Self-play data for training: n games at once through VectorEnv, written as numpy arrays.

    python python/examples/selfplay.py --games 1000 --envs 256 --out selfplay.npz

Both sides play the built-in greedy policy with a share of random moves (--epsilon). For every
position the file holds the observation (N, 8, 24), the action played (complete-move id), the
side to move (0 White, 1 Black) and the game's final result from that side's view (+1 win,
0 draw, -1 loss): the usual (state, policy target, value target) of AlphaZero-style training.
"""

import argparse
import time

import numpy as np

import millstone


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--variant", default="nine")
    ap.add_argument("--no-flying", action="store_true")
    ap.add_argument("--epsilon", type=float, default=0.3, help="share of random moves")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="selfplay.npz")
    args = ap.parse_args()

    env = millstone.VectorEnv(args.envs, variant=args.variant, flying=not args.no_flying, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    obs = env.reset()
    # Per game: the rows of its current episode (observation, action, side to move).
    episodes = [[] for _ in range(args.envs)]
    out_obs, out_act, out_side, out_value = [], [], [], []
    finished = 0
    t0 = time.perf_counter()
    while finished < args.games:
        sides = env.to_play()
        greedy = env.greedy_actions()
        random = env.random_actions()
        actions = np.where(rng.random(args.envs) < args.epsilon, random, greedy)
        next_obs, rewards, dones = env.step(actions)
        for i in range(args.envs):
            episodes[i].append((obs[i], actions[i], sides[i]))
            if dones[i]:
                # The reward is for the side that just moved.
                last_side = sides[i]
                for o, a, s in episodes[i]:
                    out_obs.append(o)
                    out_act.append(a)
                    out_side.append(s)
                    out_value.append(rewards[i] if s == last_side else -rewards[i])
                episodes[i] = []
                finished += 1
        obs = next_obs
    dt = time.perf_counter() - t0
    np.savez_compressed(
        args.out,
        observations=np.asarray(out_obs, dtype=np.float32),
        actions=np.asarray(out_act, dtype=np.int64),
        to_play=np.asarray(out_side, dtype=np.int8),
        values=np.asarray(out_value, dtype=np.float32),
        encoding_version=millstone.ENCODING_VERSION,
    )
    print(f"{finished} games, {len(out_act)} positions in {dt:.2f}s -> {args.out}")


if __name__ == "__main__":
    main()
