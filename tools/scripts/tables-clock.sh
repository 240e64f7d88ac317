#!/usr/bin/env bash
# Perfect on the clock (issue 36): the engine with the complete tables against the bare engine,
# two games at a time, with mill-match's margin at 20 ms, at each time control given; cold (page
# cache dropped before the match: needs root) or warm. Prints each match's result, its losses on
# time, and the longest move of each side against the limit.
#
# Usage: tools/scripts/tables-clock.sh TABLES cold|warm|slow GAMES LIMIT...
#   LIMIT: movetime=MS or tc=SECS+INC, e.g.
#   tools/scripts/tables-clock.sh ~/.local/share/millstone/tables cold 200 movetime=10 movetime=100 tc=1+0.1
# slow: cold, and the perfect engine runs as on a small machine with a slow disk: in a cgroup (v1,
# root) with SLOW_MEM_MB of memory, page cache included (default 2048: the tables do not fit), and
# SLOW_IOPS reads a second from the tables' disk (default 1000) at 100 MB/s at most.
# Environment: MILLSTONE (default target/release/millstone) is the engine; PERFECT and BARE may
# name other builds for either side; OUT (default target/tables-clock) keeps the games.
set -euo pipefail
TABLES=$(realpath "$1")
MODE=$2
GAMES=$3
shift 3
MILLSTONE=$(realpath "${MILLSTONE:-target/release/millstone}")
PERFECT=$(realpath "${PERFECT:-$MILLSTONE}")
BARE=$(realpath "${BARE:-$MILLSTONE}")
MATCH=$(realpath "${MILL_MATCH:-target/release/mill-match}")
OUT=${OUT:-target/tables-clock}
mkdir -p "$OUT"
# The bare engine must not find tables in a data directory either.
EMPTY=$(mktemp -d)
trap 'rm -rf "$EMPTY"' EXIT
if [ "$MODE" = slow ]; then
  dev=$(stat -c %d "$TABLES")
  devno="$((dev >> 8)):$((dev & 255))"
  # A partition's throttle is set on its disk.
  if [ -e "/sys/dev/block/$devno/partition" ]; then
    devno=$(cat "/sys/dev/block/$devno/../dev")
  fi
  blk=/sys/fs/cgroup/blkio/millslow mem=/sys/fs/cgroup/memory/millslow
  mkdir -p "$blk" "$mem"
  echo "$devno ${SLOW_IOPS:-1000}" > "$blk/blkio.throttle.read_iops_device"
  echo "$devno $((100 << 20))" > "$blk/blkio.throttle.read_bps_device"
  echo $(( ${SLOW_MEM_MB:-2048} << 20 )) > "$mem/memory.limit_in_bytes"
  cat > "$EMPTY/slow-engine" <<WRAP
#!/bin/sh
echo \$\$ > $blk/tasks
echo \$\$ > $mem/tasks
exec "$PERFECT" "\$@"
WRAP
  chmod +x "$EMPTY/slow-engine"
  PERFECT="$EMPTY/slow-engine"
fi
for limit in "$@"; do
  case $limit in
    movetime=*) args=(--movetime "${limit#movetime=}") ;;
    tc=*) args=(--tc "${limit#tc=}") ;;
    *) echo "unknown limit $limit (movetime=MS or tc=SECS+INC)" >&2; exit 2 ;;
  esac
  if [ "$MODE" != warm ]; then
    sync
    echo 3 > /proc/sys/vm/drop_caches
  fi
  jsonl="$OUT/$MODE-${limit//[=+]/-}.jsonl"
  rm -f "$jsonl"
  echo "== $MODE, $limit, $GAMES games"
  MILLSTONE_DATA="$EMPTY" "$MATCH" \
    --engine cmd="$PERFECT" name=perfect option.TablePath="$TABLES" \
    --engine cmd="$BARE" name=bare option.TablePath= \
    "${args[@]}" --games "$GAMES" --concurrency 2 --timemargin 20 \
    --random-opening 2 --seed 36 --jsonl "$jsonl" -q
  python3 - "$jsonl" "$limit" <<'PY'
import json, sys
games = [json.loads(l) for l in open(sys.argv[1])]
limit = sys.argv[2]
ms = int(limit.split("=")[1]) if limit.startswith("movetime=") else None
score = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (0.5, 0.5)}
points = sum(score[g["result"]][0 if g["white"] == "perfect" else 1] for g in games if g["result"] in score)
print(f"perfect scored {points} of {len(games)} games")
for side in ("perfect", "bare"):
    times, on_time = [], 0
    for g in games:
        first = 0 if g["white"] == side else 1
        times += g["times_ms"][first::2]
        if g["reason"] == "timeout":
            loser = g["black"] if g["result"] == "1-0" else g["white"]
            on_time += loser == side
    times.sort()
    p = lambda f: times[round((len(times) - 1) * f)] if times else 0
    over = f", {sum(t > ms for t in times)} over {ms} ms" if ms else ""
    print(f"{side:8} {len(times)} moves: p50 {p(.5)} ms, p99 {p(.99)} ms, longest {p(1)} ms{over}; lost on time: {on_time}")
PY
done
