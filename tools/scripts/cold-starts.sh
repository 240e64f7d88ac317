#!/usr/bin/env bash
# Cold starts (issue 36): drop the page cache (root), start fresh engines, play a few games at a
# short movetime, and report how many placing roots the engine with tables answered from the
# tables (its debug log's "placing tables at the root") in each engine's first SECONDS, and its
# slowest moves.
#
# Usage: tools/scripts/cold-starts.sh TABLES [STARTS] [GAMES] [MOVETIME] [SECONDS]
# Environment: MILLSTONE (default target/release/millstone), MILL_MATCH, OUT (default
# target/cold-starts: the games and the engine's logs).
set -euo pipefail
TABLES=$(realpath "$1")
STARTS=${2:-6}
GAMES=${3:-6}
MOVETIME=${4:-10}
SECONDS_IN=${5:-30}
MILLSTONE=$(realpath "${MILLSTONE:-target/release/millstone}")
MATCH=$(realpath "${MILL_MATCH:-target/release/mill-match}")
OUT=$(realpath -m "${OUT:-target/cold-starts}")
rm -rf "$OUT" && mkdir -p "$OUT/logs"
EMPTY=$(mktemp -d)
trap 'rm -rf "$EMPTY"' EXIT
cat > "$EMPTY/logged-engine" <<WRAP
#!/bin/sh
RUST_LOG=millstone=debug exec "$MILLSTONE" "\$@" 2>>"$OUT/logs/engine-\$\$.txt"
WRAP
chmod +x "$EMPTY/logged-engine"
for i in $(seq 1 "$STARTS"); do
  sync
  echo 3 > /proc/sys/vm/drop_caches
  MILLSTONE_DATA="$EMPTY" "$MATCH" \
    --engine cmd="$EMPTY/logged-engine" name=perfect option.TablePath="$TABLES" \
    --engine cmd="$MILLSTONE" name=bare option.TablePath= \
    --movetime "$MOVETIME" --games "$GAMES" --concurrency 2 --timemargin 20 \
    --random-opening 2 --seed $((100 + i)) --jsonl "$OUT/start-$i.jsonl" -q > /dev/null 2>&1
done
python3 - "$OUT" "$SECONDS_IN" <<'PY'
import glob, json, re, sys
from datetime import datetime
out, limit = sys.argv[1], float(sys.argv[2])
roots = answered = 0
for f in sorted(glob.glob(out + "/logs/engine-*.txt")):
    t0, placing, waiting = None, False, False
    for line in open(f):
        m = re.match(r"\[(\S+?)Z", line)
        if not m:
            continue
        t = datetime.fromisoformat(m.group(1))
        t0 = t0 or t
        if (t - t0).total_seconds() > limit:
            break
        if "<< position" in line:
            fen, _, moves = line.split("position fen ")[1].partition(" moves ")
            hands = sum(int(x) for x in fen.split()[2:4])
            placing = hands > sum("-" not in m for m in moves.split())
            waiting = False
        elif "<< go" in line:
            waiting = placing
            roots += placing
        elif "placing tables at the root" in line and waiting:
            answered += 1
            waiting = False
times, timeouts = [], 0
for f in glob.glob(out + "/start-*.jsonl"):
    for line in open(f):
        g = json.loads(line)
        first = 0 if g["white"] == "perfect" else 1
        times += g["times_ms"][first::2]
        if g["reason"] == "timeout":
            timeouts += (g["black"] if g["result"] == "1-0" else g["white"]) == "perfect"
times.sort()
print(f"placing roots in each engine's first {limit:.0f} s: {roots}, answered by the tables: "
      f"{answered} ({100 * answered / max(roots, 1):.1f} %)")
print(f"perfect engine: {len(times)} moves, slowest {times[-3:]} ms, lost on time {timeouts}")
PY
