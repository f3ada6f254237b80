#!/usr/bin/env bash
# The inspector's script is checked as JavaScript (`make inspector-check`, part of `make
# test`): its pieces in Sources/ArborDaemon/HTTP/Inspector/, in the order the page puts
# them (InspectorPage.parts), make one script that `node --check` must parse. The
# browser test (InspectorBrowserTests, headless Chromium) runs it; this catches a syntax
# error before any browser starts, with the file and line.
set -euo pipefail
cd "$(dirname "$0")/.."
folder=Sources/ArborDaemon/HTTP/Inspector
pieces=(base connection tree timeline events intents start)
if ! command -v node >/dev/null; then
  echo "inspector-check: node is not installed (Debian's nodejs, in the Makefile's APT_PACKAGES)" >&2
  exit 1
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/arbor-inspector-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT
script="$work/inspector.js"
: >"$script"
for piece in "${pieces[@]}"; do
  cat "$folder/$piece.js" >>"$script"
done
# Every piece is in the list, and nothing else is.
listed="$(printf '%s.js\n' "${pieces[@]}" | sort)"
present="$(cd "$folder" && ls -1 ./*.js | sed 's|^\./||' | sort)"
if [ "$listed" != "$present" ]; then
  echo "inspector-check: FAILED: the pieces in $folder are not the ones this check joins: $(tr '\n' ' ' <<<"$present")" >&2
  exit 1
fi
if ! node --check "$script"; then
  echo "inspector-check: FAILED: the inspector's script does not parse (the pieces joined in order: ${pieces[*]})" >&2
  exit 1
fi
echo "inspector-check: the inspector's script parses ($(wc -l <"$script") lines in ${#pieces[@]} pieces)"
