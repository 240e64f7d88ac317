#!/usr/bin/env bash
# The perfect engine with one TableChoice against an engine without tables, then the audit of
# every placing move of the perfect side (docs/merciless.md).
#
#   tools/scripts/choice-match.sh TABLES NAME CHOICE GAMES SEED [opponent options...]
#
# PERFECT_OPTS adds options of the perfect engine (e.g. option.UltraStrongOpponent=1);
# OPENINGS=FILE plays the book's openings instead of seeded random 2-ply ones; OPPONENT replaces
# the opponent's --engine settings (e.g. "cmd=target/release/mill-sanmill arg=SANMILL
# name=sanmill option.SkillLevel=30 movetime=1000"), MARGIN the time margin (ms, default 1000),
# BIN the folder of the binaries (default: target/release). Writes NAME.jsonl, NAME.out (the
# summary), NAME.err (progress) and NAME.audit in the current directory.
set -euo pipefail
if [ $# -lt 5 ]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
tables=$1 name=$2 choice=$3 games=$4 seed=$5
shift 5
bin=${BIN:-$(cd "$(dirname "$0")/../.." && pwd)/target/release}
openings=(--random-opening 2)
if [ -n "${OPENINGS:-}" ]; then openings=(--openings "$OPENINGS"); fi
opponent=("cmd=$bin/millstone" name=opp "option.TablePath=<empty>" "option.BookPath=<empty>")
# shellcheck disable=SC2206
if [ -n "${OPPONENT:-}" ]; then opponent=($OPPONENT); fi
# shellcheck disable=SC2086
"$bin/mill-match" \
  --engine "cmd=$bin/millstone" name=perfect "option.TablePath=$tables" "option.TableChoice=$choice" ${PERFECT_OPTS:-} \
  --engine "${opponent[@]}" "$@" \
  --movetime 100 --games "$games" "${openings[@]}" --seed "$seed" --concurrency 1 --timemargin "${MARGIN:-1000}" \
  --jsonl "$name.jsonl" >"$name.out" 2>"$name.err"
"$bin/mill-tb" audit --placing --dir "$tables" --player perfect --jsonl "$name.jsonl" >"$name.audit" 2>&1 || true
cat "$name.out" "$name.audit"
