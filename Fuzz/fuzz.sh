#!/usr/bin/env bash
# Coverage-guided fuzzing of Arbor's parsers with libFuzzer and AddressSanitizer
# (Docs/Testing.md, "Fuzzing").
#
#   Fuzz/fuzz.sh build                 builds every target into .build-fuzz (when a source changed)
#   Fuzz/fuzz.sh run [target…]         runs each target (all by default) for FUZZ_SECONDS (default 30),
#                                      FUZZ_JOBS at a time (default 2)
#   Fuzz/fuzz.sh replay TARGET FILE…   runs a target once on each file (a reproducer)
#
# json, request and patch are built with swiftc directly: ArborJSON and ArborRPC compiled
# from Sources/ as instrumented static libraries (about 50 s from clean on 2 cores; only what
# changed is rebuilt). websocket, http, snapshot, tree, upgrade and wsmessage need SwiftNIO,
# swift-websocket or the model runtime and its dependencies: they are the SwiftPM package
# Fuzz/Package.swift, built into .build-fuzz/spm.
# SwiftPM's `--sanitize=fuzzer --sanitize=address` alone leaves Swift code without coverage
# (it passes two -sanitize= options and the compiler keeps the last), so the package is also
# given `-Xswiftc -sanitize=fuzzer,address` (see Fuzz/Package.swift).
#
# A run fails (exit 1) on any crash, failed check, leak or input slower than
# FUZZ_TIMEOUT seconds (default 10), and prints the reproducer's path. Each target's corpus
# grows in .build-fuzz/corpus/TARGET, seeded from Fuzz/Corpus/TARGET.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/.build-fuzz"
TARGETS=(json request patch websocket http snapshot tree upgrade wsmessage)
# The targets swiftc builds, and those of the SwiftPM package Fuzz/Package.swift.
SWIFTC_TARGETS=(json request patch)
PACKAGE_TARGETS=(websocket http snapshot tree upgrade wsmessage)
SWIFTC="${SWIFTC:-$(command -v swiftc || true)}"
FLAGS=(-O -g -parse-as-library -swift-version 6 -sanitize=fuzzer,address -warnings-as-errors)

need_toolchain() {
  if [ -z "$SWIFTC" ]; then
    echo "fuzz: swiftc is not on PATH (Swift 6.1 or newer: https://www.swift.org/install/linux/)" >&2
    exit 1
  fi
  local resource
  resource="$(dirname "$(dirname "$(readlink -f "$SWIFTC")")")/lib/swift/clang/lib/linux"
  if ! ls "$resource"/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
    echo "fuzz: this Swift toolchain has no libFuzzer ($resource/libclang_rt.fuzzer-*.a): use a swift.org toolchain" >&2
    exit 1
  fi
}

# True when $1 is missing or older than any file under the remaining paths.
stale() {
  local output="$1"; shift
  [ ! -e "$output" ] || [ -n "$(find "$@" -newer "$output" -print -quit)" ]
}

# A module of Sources/ as an instrumented static library and its .swiftmodule.
build_module() {
  local name="$1"
  if stale "$OUT/lib$name.a" "$ROOT/Sources/$name"; then
    echo "fuzz: compiling $name"
    local sources=()
    mapfile -t sources < <(find "$ROOT/Sources/$name" -name '*.swift' | sort)
    # One package name for the modules built here, so that their `package` members serve
    # each other as in the main package.
    "$SWIFTC" "${FLAGS[@]}" -wmo -module-name "$name" -package-name arbor -I "$OUT/modules" \
      -emit-module -emit-module-path "$OUT/modules/$name.swiftmodule" \
      -emit-library -static -o "$OUT/lib$name.a" "${sources[@]}"
  fi
}

build() {
  need_toolchain
  mkdir -p "$OUT/modules"
  local started=$SECONDS
  build_module ArborJSON
  build_module ArborRPC
  for target in "${SWIFTC_TARGETS[@]}"; do
    if stale "$OUT/fuzz-$target" "$ROOT/Fuzz/Sources" "$OUT/libArborJSON.a" "$OUT/libArborRPC.a" "$0"; then
      echo "fuzz: linking fuzz-$target"
      "$SWIFTC" "${FLAGS[@]}" -use-ld=lld -module-name "Fuzz_$target" -I "$OUT/modules" \
        "$ROOT"/Fuzz/Sources/Shared/*.swift "$ROOT/Fuzz/Sources/$target"/*.swift \
        "$OUT/libArborRPC.a" "$OUT/libArborJSON.a" -o "$OUT/fuzz-$target"
    fi
  done
  echo "fuzz: building the package targets (${PACKAGE_TARGETS[*]})"
  local attempt
  for attempt in 1 2; do
    # A source file of the main package changing under SwiftPM fails the build once
    # ("modified during the build"); a second attempt rebuilds it.
    if swift build -c release --package-path "$ROOT/Fuzz" --scratch-path "$OUT/spm" \
      --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library; then
      break
    fi
    [ "$attempt" -eq 1 ] || exit 1
  done
  for target in "${PACKAGE_TARGETS[@]}"; do
    ln -sf "spm/release/$target" "$OUT/fuzz-$target"
  done
  echo "fuzz: targets built in $OUT ($((SECONDS - started)) s)"
}

# Runs one target; its summary goes to logs/TARGET.summary, its status to logs/TARGET.status.
run_one() {
  local target="$1" seconds="$2" timeout="$3"
  local binary="$OUT/fuzz-$target" corpus="$OUT/corpus/$target" artifacts="$OUT/artifacts/$target/"
  local log="$OUT/logs/$target.log" summary="$OUT/logs/$target.summary" dictionary="$ROOT/Fuzz/Dictionaries/$target.dict"
  mkdir -p "$corpus" "$artifacts"
  local options=(-max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -max_len=8192
    -artifact_prefix="$artifacts" -print_final_stats=1)
  [ -f "$dictionary" ] && options+=(-dict="$dictionary")
  local status=0 started=$SECONDS TIMEFORMAT="%U %S"
  # Swift's own backtracer is off: it reads memory AddressSanitizer reports on, and
  # libFuzzer prints the stack. `time` gives the CPU time the fuzzer got (a shared
  # machine gives less than the wall time).
  { time SWIFT_BACKTRACE=enable=no nice -n "${FUZZ_NICE:-10}" "$binary" "${options[@]}" "$corpus" "$ROOT/Fuzz/Corpus/$target" >"$log" 2>&1; } \
    2>"$OUT/logs/$target.cpu" || status=$?
  local user system
  read -r user system <"$OUT/logs/$target.cpu" || true
  {
    echo "fuzz: $target: ${user:-?} s user + ${system:-?} s system CPU in $((SECONDS - started)) s"
    # The last status line: executions, coverage (cov: edges, ft: features), corpus size, speed.
    grep -E '^#[0-9]+' "$log" | tail -n 1 | sed "s/^/fuzz: $target: /" || true
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | sed "s/^/fuzz: $target: /" || true
    if [ "$status" -ne 0 ]; then
      echo "fuzz: FAILED: $target stopped with status $status:"
      grep -E 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|Fatal error|SUMMARY' "$log" | head -n 5 || true
      local reproducer
      reproducer="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)"
      if [ -n "$reproducer" ]; then
        echo "fuzz: reproducer: $reproducer (replay: Fuzz/fuzz.sh replay $target $reproducer)"
      fi
      echo "fuzz: the whole output is in $log"
    fi
  } >"$summary"
  echo "$status" >"$OUT/logs/$target.status"
}

run() {
  local seconds="${FUZZ_SECONDS:-30}" timeout="${FUZZ_TIMEOUT:-10}" jobs="${FUZZ_JOBS:-2}" failed=0
  local targets=("$@")
  [ ${#targets[@]} -gt 0 ] || targets=("${TARGETS[@]}")
  mkdir -p "$OUT/logs"
  local target
  for target in "${targets[@]}"; do
    [ -x "$OUT/fuzz-$target" ] || { echo "fuzz: $OUT/fuzz-$target is missing: run Fuzz/fuzz.sh build first" >&2; exit 1; }
    rm -f "$OUT/logs/$target.status" "$OUT/logs/$target.summary"
  done
  # FUZZ_JOBS targets at a time (each fuzzer uses one core).
  for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    echo "fuzz: $target for $seconds s (log: $OUT/logs/$target.log)"
    run_one "$target" "$seconds" "$timeout" &
  done
  wait || true
  for target in "${targets[@]}"; do
    cat "$OUT/logs/$target.summary" 2>/dev/null || true
    if [ "$(cat "$OUT/logs/$target.status" 2>/dev/null || echo 1)" -ne 0 ]; then failed=1; fi
  done
  [ "$failed" -eq 0 ] || echo "fuzz: FAILED: see the lines above" >&2
  return "$failed"
}

replay() {
  local target="$1"; shift
  SWIFT_BACKTRACE=enable=no "$OUT/fuzz-$target" -runs=1 "$@"
}

case "${1:-}" in
  build) build ;;
  run) shift; run "$@" ;;
  replay) shift; replay "$@" ;;
  *) echo "usage: Fuzz/fuzz.sh build | run [target…] | replay TARGET FILE…" >&2; exit 2 ;;
esac
