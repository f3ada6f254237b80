#!/usr/bin/env bash
# The template's daemon is built without the optional parts (`traits: []` in
# Examples/Template/Package.swift; Docs/Architecture.md, "Optional parts"): none of
# Hummingbird, PostgresNIO or BoringSSL is linked into it, and --http and --store stop its
# start with the trait to enable. Run by `make template` after it builds the template.
#
#   scripts/template-lean-check.sh .build/debug/thermostatd
set -euo pipefail
daemon="${1:?usage: template-lean-check.sh PATH/TO/thermostatd}"
failed=0

symbols="$(nm "$daemon" 2>/dev/null || true)"
if [ -z "$symbols" ]; then
  echo "template-lean-check: $daemon has no symbols to read (nm)" >&2
  exit 1
fi
for part in Hummingbird PostgresNIO NIOSSL CNIOBoringSSL CCryptoBoringSSL; do
  count="$(grep -c "$part" <<<"$symbols" || true)"
  if [ "$count" -ne 0 ]; then
    echo "template-lean-check: FAILED: $daemon links $part ($count symbols); the template asks for no optional part" >&2
    failed=1
  fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/arbor-lean-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT
expect_refusal() {
  local trait="$1"; shift
  local status=0 output
  output="$(timeout 20 "$daemon" --socket "$work/d.sock" --state-dir "$work/state" "$@" 2>&1)" || status=$?
  if [ "$status" -eq 0 ] || ! grep -q "enable the package trait \"$trait\"" <<<"$output"; then
    echo "template-lean-check: FAILED: $daemon $* (exit $status) did not name the trait \"$trait\": $output" >&2
    failed=1
  fi
}
expect_refusal HTTP --http 127.0.0.1:0
expect_refusal PostgreSQL --store postgres://arbor@127.0.0.1:1/arbor

if [ "$failed" -eq 0 ]; then
  echo "template-lean-check: $(basename "$daemon") links no optional part, and --http and --store name the trait to enable"
fi
exit "$failed"
