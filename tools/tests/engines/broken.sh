#!/usr/bin/env bash
# A deliberately broken protocol engine for the match runner's tests.
# Usage: broken.sh MODE, where MODE is one of
#   crash    exits with status 3 when asked to move
#   stall    never answers go (and ignores stop)
#   illegal  answers a well-formed but illegal move (a slide while pieces are in hand)
#   garbage  answers noise lines and an unparsable move
#   nouci    never finishes the handshake
#   exit     exits at once
#   ok       answers go with the placement on the first empty point it tracks (legal only
#            from the start position without removals; just enough for a handshake test)
mode="${1:-ok}"
[ "$mode" = exit ] && exit 1
while IFS= read -r line; do
  case "$line" in
    uci)
      [ "$mode" = nouci ] && continue
      echo "id name broken-$mode"
      echo "option name Hash type spin default 16 min 1 max 1024"
      echo "uciok" ;;
    isready) echo "readyok" ;;
    go*)
      case "$mode" in
        crash) exit 3 ;;
        stall) ;;
        illegal) echo "info depth 1 score cp 0 pv a1-d1"; echo "bestmove a1-d1" ;;
        garbage) echo "info ??? depth x score cp zz"; echo "\$%&/ noise"; echo "bestmove #garbage#" ;;
        *) echo "bestmove d6" ;;
      esac ;;
    quit) exit 0 ;;
  esac
done
