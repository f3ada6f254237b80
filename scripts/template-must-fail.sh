#!/usr/bin/env bash
# Proves that a failing `tester.assert` fails a test run in a package made from
# Examples/Template, with the swift-testing runner and with XCTest (`make template-must-fail`,
# after `make template`; Docs/Testing.md, "The template package").
#
# 1. Copies the template to a temporary folder outside the repository, renamed
#    (Thermostat → MustFailThermostat) so that its modules and binaries do not replace the
#    template's, with its Package.swift otherwise as it is (the path to this checkout made
#    absolute), and adds two tests that break on purpose: a wrong expected value and an
#    event left unasserted, once as Swift Testing tests and once as an XCTestCase.
# 2. Builds it in this checkout's .build (--scratch-path), so that only the copy's own
#    modules are compiled and every dependency is reused.
# 3. Runs a copy of its test binary from a folder that holds only the shared libraries of
#    .build/debug that the binary's link line names (its ELF NEEDED entries, and theirs).
#    IssueReporting finds the test frameworks by loading libIssueReportingTestSupport.so
#    by name at run time; the binary looks in its own folder ($ORIGIN), and in .build/debug
#    that library is always there, built for Arbor's own tests. The private folder (and
#    LD_LIBRARY_PATH unset) hides it unless the template's dependencies link it.
# 4. Expects each broken test to fail the run (exit status not 0), with the tester's own
#    message and without IssueReporting's "without linking" warning.
#
# Environment: SWIFT_BUILD_FLAGS (default --disable-experimental-prebuilts), TEST_TIMEOUT
# (seconds per run, default 600), KEEP=1 keeps the temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
limit="${TEST_TIMEOUT:-600}"
read -r -a build_flags <<<"${SWIFT_BUILD_FLAGS:---disable-experimental-prebuilts}"

if [ ! -f Examples/Template/Package.resolved ]; then
  echo "template-must-fail: Examples/Template/Package.resolved is missing: run \`make template\` first" >&2
  exit 2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/arbor-template-must-fail.XXXXXX")"
if [ "${KEEP:-0}" = 1 ]; then
  echo "template-must-fail: the copy is kept in $work"
else
  trap 'rm -rf "$work"' EXIT
fi

# 1. The copy.
package="$work/package"
mkdir -p "$package"
cp -R Examples/Template/Package.swift Examples/Template/Package.resolved Examples/Template/Sources Examples/Template/Tests "$package/"
tests="$package/Tests/ThermostatTests"
cat >"$tests/MustFailTests.swift" <<'EOF'
import Arbor
import ArborTesting
import Testing
import Thermostat

/// Broken on purpose: each test must fail the run.
@MainActor @Suite struct MustFailTests {
  @Test func aWrongExpectedValue() async throws {
    let (thermostat, tester) = Thermostat().andTester()
    try thermostat.setSetpoint(to: 21.5)
    await tester.assert(timeout: .milliseconds(200)) {
      thermostat.setpoint == 22.5
      thermostat.didSend(.setpointChanged(from: 20, to: 21.5))
    }
  }

  @Test func anEventLeftUnasserted() async throws {
    let (thermostat, tester) = Thermostat().andTester()
    try thermostat.setSetpoint(to: 21.5)
    await tester.assert {
      thermostat.setpoint == 21.5
    }
  }
}
EOF
cat >"$tests/MustFailXCTests.swift" <<'EOF'
import Arbor
import ArborTesting
import Thermostat
import XCTest

/// Broken on purpose: each test must fail the run.
final class MustFailXCTests: XCTestCase {
  @MainActor func testAWrongExpectedValue() async throws {
    let (thermostat, tester) = Thermostat().andTester()
    try thermostat.setSetpoint(to: 21.5)
    await tester.assert(timeout: .milliseconds(200)) {
      thermostat.setpoint == 22.5
      thermostat.didSend(.setpointChanged(from: 20, to: 21.5))
    }
  }

  @MainActor func testAnEventLeftUnasserted() async throws {
    let (thermostat, tester) = Thermostat().andTester()
    try thermostat.setSetpoint(to: 21.5)
    await tester.assert {
      thermostat.setpoint == 21.5
    }
  }
}
EOF
# The names: every Thermostat becomes MustFailThermostat (the package, its modules, the
# model) and thermostatd mustfailthermostatd, in the files and in the folders' names.
grep -rlZ -e Thermostat -e thermostatd "$package" | xargs -0 sed -i 's/Thermostat/MustFailThermostat/g; s/thermostatd/mustfailthermostatd/g'
find "$package" -depth -name '*hermostat*' | while read -r path; do
  name="$(basename "$path" | sed 's/Thermostat/MustFailThermostat/g; s/thermostatd/mustfailthermostatd/g')"
  mv "$path" "$(dirname "$path")/$name"
done
# The dependency on this checkout, by an absolute path (the copy is elsewhere).
sed -i "s|path: \"\\.\\./\\.\\.\"|path: \"$root\"|" "$package/Package.swift"
grep -q "path: \"$root\"" "$package/Package.swift" || {
  echo "template-must-fail: the template's Package.swift no longer depends on this checkout with path: \"../..\"" >&2
  exit 2
}
# The template's pins, for the edited manifest: SwiftPM resolves again when the SHA-256 of
# the root manifest differs from Package.resolved's originHash, and a resolution in .build
# would drop the checkouts only the main package uses (its next build clones them again).
hash="$(sha256sum "$package/Package.swift" | cut -d ' ' -f 1)"
sed -i "s/\"originHash\" : \"[0-9a-f]*\"/\"originHash\" : \"$hash\"/" "$package/Package.resolved"
checkouts_before="$(ls .build/checkouts)"

# 2. The build, in the shared .build; then the main package is planned again, as after
# `make template`.
swift build "${build_flags[@]}" --package-path "$package" --scratch-path "$root/.build" --disable-build-manifest-caching --build-tests
if [ "$(ls .build/checkouts)" != "$checkouts_before" ]; then
  echo "template-must-fail: warning: the copy's build changed .build/checkouts (SwiftPM resolved its dependencies again)" >&2
fi
swift build "${build_flags[@]}" --disable-build-manifest-caching --target ArborJSON

# 3. The test binary, alone with the libraries of .build/debug that it links.
run="$work/run"
mkdir -p "$run"
binary="MustFailThermostatPackageTests.xctest"
cp "$root/.build/debug/$binary" "$run/"
pending=("$run/$binary")
while [ ${#pending[@]} -gt 0 ]; do
  file="${pending[0]}"
  pending=("${pending[@]:1}")
  for library in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p'); do
    if [ -f "$root/.build/debug/$library" ] && [ ! -f "$run/$library" ]; then
      cp "$root/.build/debug/$library" "$run/"
      pending+=("$run/$library")
    fi
  done
done
echo "template-must-fail: the test binary links from .build/debug: $(cd "$run" && ls | grep -v "^$binary\$" | tr '\n' ' ')"

# 4. Each broken test, with each runner.
failures=0
expect_failure() {
  local runner="$1" test="$2" marker="$3"
  shift 3
  local status=0
  # A wait of the tester gives up after 2 s: the wrong value is reported then.
  env -u LD_LIBRARY_PATH ARBOR_TEST_DEADLINE_SECONDS=2 timeout --kill-after=30 "$limit" "$run/$binary" "$@" >"$work/out" 2>&1 || status=$?
  if [ $status -eq 0 ]; then
    echo "template-must-fail: FAILED: $test passed with $runner, though it is broken on purpose" >&2
    failures=$((failures + 1))
  elif [ $status -eq 124 ] || [ $status -eq 137 ]; then
    echo "template-must-fail: FAILED: $test did not finish within $limit s with $runner" >&2
    failures=$((failures + 1))
  elif grep -q "without linking" "$work/out"; then
    echo "template-must-fail: FAILED: $test: IssueReporting did not find the test framework with $runner" >&2
    failures=$((failures + 1))
  elif ! grep -q -- "$marker" "$work/out"; then
    echo "template-must-fail: FAILED: $test failed with $runner, but not with the tester's message ($marker)" >&2
    failures=$((failures + 1))
  else
    echo "template-must-fail: $test fails with $runner (exit status $status), as it must"
    return 0
  fi
  sed 's/^/    /' "$work/out" >&2
}
expect_failure "swift-testing" "aWrongExpectedValue()" "22.5" --testing-library swift-testing --filter "MustFailTests/aWrongExpectedValue"
expect_failure "swift-testing" "anEventLeftUnasserted()" "setpointChanged" --testing-library swift-testing --filter "MustFailTests/anEventLeftUnasserted"
expect_failure "XCTest" "testAWrongExpectedValue" "22.5" "MustFailThermostatTests.MustFailXCTests/testAWrongExpectedValue"
expect_failure "XCTest" "testAnEventLeftUnasserted" "setpointChanged" "MustFailThermostatTests.MustFailXCTests/testAnEventLeftUnasserted"
if [ $failures -gt 0 ]; then
  echo "template-must-fail: FAILED: $failures of 4 broken tests did not fail as they must." >&2
  exit 1
fi
echo "template-must-fail: a failing tester.assert fails the run with both runners"
