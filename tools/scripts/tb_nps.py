# nps of the engine on moving-phase positions one capture away from the nine-fly tables up to
# 10 pieces (6v5, 5v6, 4v7, 7v4), with and without tables, through the protocol.
# Usage: python3 tb_nps.py ENGINE TABLE_DIR DEPTH POSITIONS MIN_COUNTER MAX_COUNTER
import random, subprocess, sys, time
eng, tables, depth, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
RANKS = [(21,3),(18,3),(15,3),(9,6),(6,3),(3,3),(0,3)]
rng = random.Random(11)
fens = []
while len(fens) < n:
    w, b = rng.choice([(6,5),(5,6),(4,7),(7,4)])
    pts = rng.sample(range(24), w + b)
    cells = ['.'] * 24
    for p in pts[:w]: cells[p] = 'W'
    for p in pts[w:]: cells[p] = 'B'
    board = '/'.join(''.join(cells[s:s+l]) for s, l in RANKS)
    fens.append(f"{board} w 0 0 {rng.randrange(int(sys.argv[5]), int(sys.argv[6]))} 40")
def run(tb):
    p = subprocess.Popen([eng], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    if tb:
        p.stdin.write(f"setoption name TablePath value {tb}\n")
    nodes = tbhits = 0; secs = 0.0
    for f in fens:
        p.stdin.write(f"position fen {f}\ngo depth {depth}\n")
        last = None
        t0 = time.time()
        while True:
            line = p.stdout.readline()
            if not line: raise SystemExit("engine ended")
            if line.startswith("info depth"): last = line.split()
            if line.startswith("bestmove"): break
        secs += time.time() - t0
        if last:
            nodes += int(last[last.index("nodes") + 1]); tbhits += int(last[last.index("tbhits") + 1])
    p.stdin.write("quit\n"); p.wait()
    return nodes, secs, tbhits
for tb in [None, tables, None, tables]:
    nodes, secs, hits = run(tb)
    print(f"{'tables' if tb else 'none  '}: {nodes} nodes in {secs:.2f}s = {nodes/secs:.0f} nps, tbhits {hits}", flush=True)
