#!/usr/bin/env bash
# Against todosd: adds three items, marks one done, undoes and redoes it, then undoes
# everything the list can undo, printing what is left to do after each step.
#
#   ARBOR_SOCKET=/path/to/todosd.sock bash todos-undo.sh
#
# arborctl reads $ARBOR_SOCKET itself; $ARBORCTL is the arborctl to run.
set -euo pipefail

arborctl="${ARBORCTL:-arborctl}"

# `addItem` replies with the new item's id: {"result":"…","revision":R}.
for title in Milk Eggs Bread; do
  "$arborctl" call / addItem title="$title" --json >/dev/null
done
"$arborctl" call /items/1 toggle --json >/dev/null

# `summary` reads the list's memoized values; `remaining` counts the items not done.
remaining() { "$arborctl" call / summary --json | jq '.result.remaining'; }
echo "remaining after marking Eggs done: $(remaining)"

# `undo` and `redo` print {"canRedo":…,"canUndo":…,"revision":R}.
"$arborctl" undo --json | jq -r '"undo: can redo \(.canRedo)"'
echo "remaining after the undo: $(remaining)"
"$arborctl" redo --json >/dev/null
echo "remaining after the redo: $(remaining)"

# Undo until nothing is left: `undo` exits 1 with org.arbor.NothingToUndo then.
steps=0
while "$arborctl" undo --json >/dev/null 2>&1; do steps=$((steps + 1)); done
echo "undid $steps more steps; items left: $("$arborctl" get /items --json | jq '.value | length')"
