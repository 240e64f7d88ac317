"""A game of OpenSpiel's MCTS bot against millstone.Engine, on our registered game.

    python python/examples/mcts_vs_engine.py --simulations 200 --depth 3

The MCTS bot (random rollouts) plays White on ``millstone_nine``; the engine answers with a
depth-limited search. The engine's move token becomes one or two two-step actions
(``millstone.encode_two_step``), a mill's removal being the same player's second action.
"""

import argparse

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import millstone
import millstone.openspiel  # noqa: F401  (registers millstone_nine / millstone_twelve)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulations", type=int, default=200)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--variant", default="nine")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    game = pyspiel.load_game(f"millstone_{args.variant}")
    rs = np.random.RandomState(args.seed)
    bot = mcts.MCTSBot(
        game, uct_c=2.0, max_simulations=args.simulations, evaluator=mcts.RandomRolloutEvaluator(1, rs), random_state=rs
    )
    engine = millstone.Engine(args.variant)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == 0:
            action = bot.step(state)
            print("MCTS  ", state.action_to_string(state.current_player(), action))
            state.apply_action(action)
        else:
            r = engine.search(state.position, depth=args.depth)
            score = f"mate {r['mate']}" if r["mate"] is not None else f"cp {r['score']}"
            print("engine", r["move"], f"({score}, pv {' '.join(r['pv'][:4])})")
            for a in millstone.encode_two_step(r["move"]):
                state.apply_action(a)
    p = state.position
    print(f"result {p.outcome()} ({p.reason()}) after {p.ply} moves; returns {state.returns()}")


if __name__ == "__main__":
    main()
