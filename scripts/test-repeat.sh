#!/usr/bin/env bash
# Builds the tests once, then runs the whole suite N times in a row and counts the runs
# that passed, failed and stalled (did not finish within TEST_TIMEOUT seconds). The log of
# every failed or stalled run is kept, in a temporary folder whose path is printed.
#
#   scripts/test-repeat.sh 20                    # or: make test-repeat N=20
#   SANITIZE=thread scripts/test-repeat.sh 5     # built in .build-tsan (address: .build-asan)
#
# Each run starts the test executable itself under `timeout`, not `swift test` (which can
# leave the test process running when it is stopped). Nothing is retried and nothing is
# stopped by name: `timeout` signals only the process it started.
#
# Environment: N (runs, default 20; the first argument wins), SANITIZE (thread or
# address), TEST_TIMEOUT (seconds per run, default 600), SWIFT_BUILD_FLAGS (default
# --disable-experimental-prebuilts), PYTHONPATH (default .build/python-packages),
# ASAN_OPTIONS (default detect_leaks=0 under SANITIZE=address), ARBOR_TEST_DEADLINE_SECONDS
# (default 60 under a sanitizer).
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${1:-${N:-20}}"
limit="${TEST_TIMEOUT:-600}"
read -r -a build_flags <<<"${SWIFT_BUILD_FLAGS:---disable-experimental-prebuilts}"
case "${SANITIZE:-}" in
  "") scratch=() ;;
  thread)
    scratch=(--sanitize=thread --scratch-path .build-tsan)
    # False reports from a dependency's lock ThreadSanitizer cannot see (see the file).
    export TSAN_OPTIONS="${TSAN_OPTIONS:-suppressions=$PWD/scripts/tsan-suppressions.txt}"
    ;;
  address)
    scratch=(--sanitize=address --scratch-path .build-asan)
    # Leak checking is off unless asked for: trees anchored with `withAnchor()` in the tests
    # live, with their suspended tasks, until the process exits (see Docs/Testing.md). The
    # quarantine of freed memory is kept small: the daemon's memory bounds are tested.
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:quarantine_size_mb=8}"
    ;;
  *) echo "SANITIZE is '${SANITIZE}': it must be thread, address or empty" >&2; exit 2 ;;
esac
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "the number of runs is '$runs': it must be a positive integer" >&2
  exit 2
fi
export PYTHONPATH="${PYTHONPATH:-$PWD/.build/python-packages}"
# Sanitized code runs several times slower: the tests' waits get 60 s instead of 20 s
# unless ARBOR_TEST_DEADLINE_SECONDS says otherwise (a wait still ends as soon as what it
# waits for happens).
if [ -n "${SANITIZE:-}" ]; then
  export ARBOR_TEST_DEADLINE_SECONDS="${ARBOR_TEST_DEADLINE_SECONDS:-60}"
fi

swift build "${build_flags[@]}" --build-tests "${scratch[@]}"
swift build "${build_flags[@]}" --product generate-manual "${scratch[@]}"
binary="$(swift build "${build_flags[@]}" "${scratch[@]}" --show-bin-path)/ArborPackageTests.xctest"
logs="$(mktemp -d "${TMPDIR:-/tmp}/arbor-test-repeat.XXXXXX")"

# The tests of a stalled run's log that started and never ended (test cases of
# parameterized tests are left out; their test is listed).
unfinished() {
  local lines started ended
  lines="$(grep -a ' Test ' "$1" | grep -av ' Test case ' | grep -av ' Test run ')"
  started="$(sed -n 's/^.* Test \(.*\) started\.$/\1/p' <<<"$lines" | sort -u)"
  ended="$(sed -n 's/^.* Test \(.*\) \(passed\|failed\|skipped\)\( after .*\|\.\)$/\1/p' <<<"$lines" \
    | sed 's/ with [0-9]* test cases\{0,1\}$//' | sort -u)"
  comm -23 <(printf '%s\n' "$started") <(printf '%s\n' "$ended") | sed '/^$/d'
}

passed=0 failed=0 stalled=0
for run in $(seq 1 "$runs"); do
  log="$logs/run-$run.log"
  started=$(date +%s)
  status=0
  timeout --kill-after=30 "$limit" "$binary" --testing-library swift-testing >"$log" 2>&1 || status=$?
  seconds=$(($(date +%s) - started))
  if [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
    rm -f "$log"
    echo "run $run/$runs: passed ($seconds s)"
  elif [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    stalled=$((stalled + 1))
    mv "$log" "$logs/run-$run-stalled.log"
    echo "run $run/$runs: STALLED, stopped after $limit s; still running:"
    unfinished "$logs/run-$run-stalled.log" | sed 's/^/    /'
  else
    failed=$((failed + 1))
    mv "$log" "$logs/run-$run-failed.log"
    echo "run $run/$runs: FAILED with status $status ($seconds s):"
    grep -E '^✘ ' "$logs/run-$run-failed.log" | head -20 | sed 's/^/    /' || true
  fi
done

echo "${SANITIZE:+[$SANITIZE sanitizer] }$runs runs: $passed passed, $failed failed, $stalled stalled"
if [ $((failed + stalled)) -gt 0 ]; then
  echo "logs of the failed and stalled runs: $logs"
  exit 1
fi
rmdir "$logs"
