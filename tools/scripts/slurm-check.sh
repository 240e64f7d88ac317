#!/usr/bin/env bash
# The cluster recipes of docs/cluster.md run on a real one-node Slurm (tools/scripts/slurm-local.sh):
#  1. a table plan with moving and placing jobs (nine up to 7 pieces), run by make through srun
#     with each job's estimated memory and time, is cancelled midway (scancel), run again, and
#     gives the same bytes as one `mill-tb generate` run; each job's measured peak memory is
#     within the plan's estimate;
#  2. a mill-match match run as an `sbatch --array` of two shards and merged equals the same
#     match run in one process.
# Usage: MILL_TB=path MILL_MATCH=path tools/scripts/slurm-check.sh [WORKDIR]
# Exit code 0 when everything held; the daemons are stopped at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
MILL_TB=$(realpath "${MILL_TB:-target/release/mill-tb}")
MILL_MATCH=$(realpath "${MILL_MATCH:-target/release/mill-match}")
W=${1:-$(mktemp -d /tmp/slurm-check.XXXXXX)}
mkdir -p "$W"
W=$(realpath "$W")
trap '"$here/slurm-local.sh" stop' EXIT
"$here/slurm-local.sh" start
me=$(id -un)

echo "== 1. a table plan through srun"
"$MILL_TB" generate --max-pieces 7 --placing --dir "$W/one" 2>/dev/null
# Each job through a wrapper that waits a second (so that a job is in flight when the run is
# cancelled) and records its peak memory.
cat > "$W/mill-tb-timed" <<WRAP
#!/bin/sh
sleep 1
job=\$(echo "\$@" | sed 's/.*--only \([^ ]*\).*/\1/')
exec /usr/bin/time -a -o "$W/peaks.txt" -f "\$job %M" "$MILL_TB" "\$@"
WRAP
chmod +x "$W/mill-tb-timed"
"$MILL_TB" plan --max-pieces 7 --placing --mill-tb "$W/mill-tb-timed" --dir "$W/plan" > "$W/plan.mk"
"$MILL_TB" plan --max-pieces 7 --placing --format json > "$W/plan.json"
jobs=$(sed -n 's/^all: //p' "$W/plan.mk" | wc -w)
( rc=0; make -s -j2 -f "$W/plan.mk" SRUN=srun MILL_TB="$W/mill-tb-timed" > "$W/make1.log" 2>&1 || rc=$?; echo $rc > "$W/make1.rc" ) &
# Cancel once two files are written and a job is running.
for _ in $(seq 1 120); do
  n=$(ls "$W/plan" 2>/dev/null | grep -cE '\.(mtb|mpt)$' || true)
  if [ "$n" -ge 2 ] && [ -n "$(squeue -h -u "$me")" ]; then break; fi
  sleep 0.25
done
squeue -h -u "$me" -o '%i %j %T'
scancel -u "$me"
wait
done_before=$(ls "$W/plan" | grep -cE '\.(mtb|mpt)$' || true)
echo "cancelled: make exited with $(cat "$W/make1.rc"), $done_before of $jobs jobs' files there"
if [ "$(cat "$W/make1.rc")" = 0 ]; then echo "the cancelled run did not fail" >&2; exit 1; fi
if ls "$W/plan" | grep -q '\.tmp$'; then echo "(a cancelled job's .tmp is left, and ignored)"; fi
make -s -j2 -f "$W/plan.mk" SRUN=srun MILL_TB="$W/mill-tb-timed" > "$W/make2.log" 2>&1
for f in $(cd "$W/one" && ls | grep -E '\.(mtb|mpt)$'); do
  cmp "$W/one/$f" "$W/plan/$f"
done
echo "identical: $(cd "$W/one" && ls | grep -cE '\.(mtb|mpt)$') files from one run and from the plan through srun"
python3 - "$W/plan.json" "$W/peaks.txt" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
est = {j["name"]: j["memory_bytes"] for j in plan["jobs"] + plan["placing_jobs"]}
worst = 0.0
for line in open(sys.argv[2]):
    parts = line.split()
    if len(parts) != 2 or parts[0] not in est:
        continue
    job, kb = parts[0], int(parts[1])
    ratio = kb * 1024 / est[job]
    worst = max(worst, ratio)
    print(f"  {job}: peak {kb // 1024} MiB, estimate {est[job] >> 20} MiB")
    if ratio > 1:
        sys.exit(f"{job} used more memory than the plan estimated")
print(f"every job within its memory estimate (at most {worst:.0%} of it)")
PY

echo "== 2. a mill-match array of shards"
args=(--engine builtin=random name=random --engine builtin=greedy name=greedy --depth 1
      --games 12 --random-opening 2 --seed 7 -q)
"$MILL_MATCH" "${args[@]}" --jsonl "$W/single.jsonl" > "$W/single.txt"
cd "$W"
sbatch --wait --array=1-2 --output="$W/shard-%a.out" --mem=200M --time=5 \
  --wrap="$MILL_MATCH ${args[*]} --shard \$SLURM_ARRAY_TASK_ID/2 --jsonl $W/shard-\$SLURM_ARRAY_TASK_ID.jsonl" > /dev/null
"$MILL_MATCH" merge -q --jsonl "$W/merged.jsonl" "$W/shard-1.jsonl" "$W/shard-2.jsonl" > "$W/merged.txt"
python3 - "$W/single.jsonl" "$W/merged.jsonl" <<'PY'
import json, sys
def games(path):
    return [(g["game"], g["white"], g["black"], g["moves"], g["result"]) for g in map(json.loads, open(path))]
a, b = games(sys.argv[1]), games(sys.argv[2])
if sorted(a) != sorted(b) or not a:
    sys.exit(f"the merged shards differ from the single run ({len(a)} and {len(b)} games)")
print(f"identical: {len(a)} games of the single run and of the merged array")
PY
if ! diff <(grep -v '^Finished\|shard' "$W/single.txt") <(grep -v '^Finished\|shard' "$W/merged.txt"); then
  echo "the summaries differ" >&2; exit 1
fi
echo "slurm-check: all held"
