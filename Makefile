# Arbor: the two commands a newcomer needs.
#   make run    builds and starts counterfactd, the example daemon, on a socket it prints
#               (HTTP=127.0.0.1:9090 adds the inspector and /metrics there)
#   make test   builds everything and runs every test, then builds and tests Examples/Template
#   make test-busy  the same with two CPU-bound loops beside it (BUSY_RUNS=N runs in a row)
#   make test-fresh the same with the page cache dropped first (FRESH_RUNS=N runs in a row)
#   make tour   runs the in-process tour of the example (a model tree that prints its changes)
# Both install missing system prerequisites first (Debian/Ubuntu, with apt-get).

SWIFT_BUILD_FLAGS ?= --disable-experimental-prebuilts
# util-linux gives setpriv; python3 (Debian's, readable by every user) runs the clients
# that the role tests start as another user.
# prometheus gives promtool (the /metrics checks); chromium and chromium-driver run the
# inspector's browser test. postgresql gives the server the PostgreSQL store's tests start
# in a temporary directory of their own (scripts/postgres-server.sh), and psql.
# openssh-server gives the sshd that the arborctl --host tests start on a loopback port.
APT_PACKAGES := pkg-config binutils util-linux mount e2fsprogs python3 libsqlite3-dev libsystemd-dev systemd jq socat prometheus chromium chromium-driver postgresql iproute2 openssh-server nodejs

.PHONY: run run-socket tour test build-release template test-busy test-busy-run test-fresh test-fresh-run test-tsan test-asan test-repeat build prerequisites python-deps benchmarks bench-daemon bench-independent bench-postgres bench-arborctl bench-store bench-large-reply bench-inspector bench-allocations redis valgrind user-unit arborctl-extras fuzz clean

prerequisites:
	@missing=""; \
	for package in $(APT_PACKAGES); do \
	  dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$missing; \
	fi
	@command -v swift >/dev/null || { echo "Swift 6.1 or newer is required: https://www.swift.org/install/linux/"; exit 1; }

# Tests check patches, schemas and arborctl's YAML against Python's jsonpatch, jsonschema
# and PyYAML, installed from PyPI into .build/python-packages (nothing is installed
# system-wide).
PYTHON_PACKAGES := $(CURDIR)/.build/python-packages
export PYTHONPATH := $(PYTHON_PACKAGES)

python-deps:
	@command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1 || { \
	  echo "Installing: python3 python3-pip"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq python3 python3-pip; }
	@python3 -c "import jsonpatch, jsonschema, yaml, selenium" 2>/dev/null || \
	  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target $(PYTHON_PACKAGES) jsonpatch jsonschema pyyaml selenium

# The daemon's socket: the one rule the daemon and arborctl follow too (see
# Docs/Operations.md, "Paths"): $XDG_RUNTIME_DIR/arbor when set, else /run/arbor for root
# and /tmp/arbor-UID for anyone else. `make run-socket` prints it. Its state goes where
# the daemon's rule puts it. Stop it with Ctrl-C.
RUN_UID := $(shell id -u)
RUN_SOCKET ?= $(if $(XDG_RUNTIME_DIR),$(XDG_RUNTIME_DIR)/arbor,$(if $(filter 0,$(RUN_UID)),/run/arbor,/tmp/arbor-$(RUN_UID)))/counterfactd.sock
run-socket:
	@echo "$(RUN_SOCKET)"
run: prerequisites
	swift build $(SWIFT_BUILD_FLAGS) --product counterfactd
	@echo "counterfactd listens on $(RUN_SOCKET). In another terminal, for example:"
	@echo "  echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"daemon.status\"}' | socat - UNIX-CONNECT:$(RUN_SOCKET)"
	@echo "  (socat is Debian's socat package)"
	"$$(swift build $(SWIFT_BUILD_FLAGS) --show-bin-path)/counterfactd" --socket "$(RUN_SOCKET)" $(if $(HTTP),--http $(HTTP))

tour: prerequisites
	swift run $(SWIFT_BUILD_FLAGS) counterfact-tour

# The tests also run swift-argument-parser's generate-manual (arborctl's man page).
build: prerequisites
	swift build $(SWIFT_BUILD_FLAGS) --build-tests
	swift build $(SWIFT_BUILD_FLAGS) --product generate-manual

# The release build the benchmarks and the service use: CI builds it too, since the
# optimizer meets code the debug build never shows it (a crash of its coroutine splitting
# once went unnoticed this way).
build-release: prerequisites
	swift build $(SWIFT_BUILD_FLAGS) -c release

# One run of the whole suite: the test executable itself, under `timeout`. A normal run
# takes under a minute; a run still going after TEST_TIMEOUT seconds is a failure, said
# loudly, never retried. (`timeout` signals only the process it started.)
TEST_TIMEOUT ?= 600
define run-tests
	@status=0; $(2) timeout --kill-after=30 $(TEST_TIMEOUT) $(1)/debug/ArborPackageTests.xctest --testing-library swift-testing || status=$$?; \
	if [ $$status -eq 124 ] || [ $$status -eq 137 ]; then \
	  echo "make: FAILED: the test run did not finish within $(TEST_TIMEOUT) s and was stopped." >&2; \
	  echo "make: every wait in a test has a deadline, so a run that hangs is a bug: see Docs/Testing.md." >&2; \
	fi; exit $$status
endef

test: build python-deps inspector-check
	$(call run-tests,.build)
	@$(MAKE) --no-print-directory template
	@$(MAKE) --no-print-directory template-must-fail
	@$(MAKE) --no-print-directory python-client

# The inspector's script, its pieces joined in page order, parsed by node --check
# (scripts/inspector-check.sh; Docs/Testing.md).
.PHONY: inspector-check
inspector-check: prerequisites
	scripts/inspector-check.sh

# Examples/Template, the package a user starts from (Docs/HostingYourOwnTree.md): a package
# of its own that depends on this checkout by path, built in the main package's .build
# (--scratch-path), so that the dependencies and Arbor's modules built there are reused
# rather than built again (Docs/Testing.md, "The template package"). Its Package.resolved
# is the main package's (copied when missing or when a version differs, then resolved in
# a folder of its own), so that it builds the same versions in the same checkouts and
# leaves the main package's checkouts in place. Each build plans afresh
# (--disable-build-manifest-caching): the cached plan of one package can pass for the
# other's. Its tests run under the same time limit as the main suite's.
TEMPLATE := Examples/Template
SAME_PINS := ($$main[0].pins | map({(.identity): .state.revision}) | add) as $$m | all($$template[0].pins[]; $$m[.identity] == .state.revision)
template: prerequisites
	@test -f Package.resolved || swift package resolve
	@if [ ! -f $(TEMPLATE)/Package.resolved ] || [ "$$(jq -n --slurpfile main Package.resolved --slurpfile template $(TEMPLATE)/Package.resolved '$(SAME_PINS)')" != true ]; then \
	  set -x; cp Package.resolved $(TEMPLATE)/Package.resolved && \
	  swift package --package-path $(TEMPLATE) --scratch-path $(CURDIR)/.build/template-resolve resolve && \
	  rm -rf $(CURDIR)/.build/template-resolve; \
	fi
	swift build $(SWIFT_BUILD_FLAGS) --package-path $(TEMPLATE) --scratch-path $(CURDIR)/.build --disable-build-manifest-caching --build-tests
	scripts/template-lean-check.sh .build/debug/thermostatd
	swift build $(SWIFT_BUILD_FLAGS) --disable-build-manifest-caching --target ArborJSON
	@status=0; timeout --kill-after=30 $(TEST_TIMEOUT) .build/debug/ThermostatPackageTests.xctest --testing-library swift-testing || status=$$?; \
	if [ $$status -eq 124 ] || [ $$status -eq 137 ]; then \
	  echo "make: FAILED: the template's tests did not finish within $(TEST_TIMEOUT) s and were stopped." >&2; \
	fi; exit $$status

# A failing tester.assert must fail a package made from the template, with Swift Testing
# and with XCTest: a renamed copy of the template with tests broken on purpose, outside
# the repository, built in .build like the template (after `make template`, whose
# Package.resolved it uses) and run beside only the libraries its link line names
# (scripts/template-must-fail.sh; Docs/Testing.md, "The template package").
.PHONY: template-must-fail
template-must-fail: prerequisites
	TEST_TIMEOUT=$(TEST_TIMEOUT) SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" scripts/template-must-fail.sh

# The Python client (Clients/python, Docs/Scripting.md): first installed with pip into a
# temporary folder, from a copy of its folder (so that no build files are left in the
# checkout), to prove that it installs, with the setuptools and wheel already there when
# there are (else pip fetches them); then its unittest suite, which starts the debug
# counterfactd and todosd that `make build` leaves in .build/debug, under the same kind of
# deadline as the main suite's.
PYTHON_CLIENT_TIMEOUT ?= 600
.PHONY: python-client
python-client:
	@scratch=$$(mktemp -d /tmp/arbor-python-client-XXXXXX) || exit 1; trap 'rm -rf "$$scratch"' EXIT; \
	cp -R Clients/python "$$scratch/source" && rm -rf "$$scratch/source/build" "$$scratch/source"/*.egg-info || exit 1; \
	isolation=""; python3 -c "import setuptools, wheel" 2>/dev/null && isolation=--no-build-isolation; \
	python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps $$isolation \
	  --target "$$scratch/site" "$$scratch/source" || { echo "make: FAILED: Clients/python does not install with pip." >&2; exit 1; }; \
	PYTHONPATH="$$scratch/site" python3 -c "import arbor_client, sys; assert arbor_client.__file__.startswith(sys.argv[1]), arbor_client.__file__; print('make: arbor_client ' + arbor_client.__version__ + ' installs with pip')" "$$scratch/site" || exit 1
	@status=0; PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$(CURDIR)/Clients/python:$(PYTHONPATH)" \
	  timeout --kill-after=30 $(PYTHON_CLIENT_TIMEOUT) python3 -m unittest discover -s Clients/python/tests -v || status=$$?; \
	if [ $$status -eq 124 ] || [ $$status -eq 137 ]; then \
	  echo "make: FAILED: the Python client's tests did not finish within $(PYTHON_CLIENT_TIMEOUT) s and were stopped." >&2; \
	fi; exit $$status

# The whole suite as on a loaded machine: two CPU-bound shell loops run beside it (as many
# as the 2-core test machines have cores: a build next door, a busy CI runner). BUSY_RUNS
# runs in a row (default 1), stopping at the first that fails; the loops are stopped in
# every case (a failed run; Ctrl-C, once the run under way has ended, as `make test` ends
# on Ctrl-C). See Docs/Testing.md, "A busy machine".
BUSY_RUNS ?= 1
test-busy: build python-deps
	@( while :; do :; done ) & busy1=$$!; ( while :; do :; done ) & busy2=$$!; \
	trap 'kill $$busy1 $$busy2 2>/dev/null' EXIT; trap 'exit 130' INT TERM HUP; \
	echo "make: two busy loops (pids $$busy1 and $$busy2) run beside the suite"; \
	i=1; while [ $$i -le $(BUSY_RUNS) ]; do \
	  $(MAKE) --no-print-directory test-busy-run || exit $$?; \
	  echo "busy run $$i of $(BUSY_RUNS) passed"; i=$$((i + 1)); \
	done

# One run of the suite for test-busy, which starts and stops the loops around it, under
# the process census (scripts/process-census.py: how many processes the run started, the
# most at once).
CENSUS = python3 scripts/process-census.py --label "the suite" --
test-busy-run:
	$(call run-tests,.build,$(CENSUS))

# The whole suite as on a machine that has never run it: the page cache is dropped before
# each run (as root; a run that cannot drop it says so and runs warm), so that every debug
# binary the tests start is read from the disk again, and the run goes under the process
# census. FRESH_RUNS runs in a row (default 1), stopping at the first that fails. See
# Docs/Testing.md, "A fresh machine".
FRESH_RUNS ?= 1
test-fresh: build python-deps
	@i=1; while [ $$i -le $(FRESH_RUNS) ]; do \
	  sync; \
	  if echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then echo "make: the page cache is dropped"; \
	  else echo "make: the page cache cannot be dropped here (root is needed): this run starts warm"; fi; \
	  $(MAKE) --no-print-directory test-fresh-run || exit $$?; \
	  echo "fresh run $$i of $(FRESH_RUNS) passed"; i=$$((i + 1)); \
	done

test-fresh-run:
	$(call run-tests,.build,$(CENSUS))

# The whole suite under ThreadSanitizer or AddressSanitizer, each in its own build folder.
# Sanitized code runs several times slower: waits get 60 s unless set otherwise.
test-tsan test-asan: export ARBOR_TEST_DEADLINE_SECONDS ?= 60
test-tsan: export TSAN_OPTIONS ?= suppressions=$(CURDIR)/scripts/tsan-suppressions.txt
test-tsan: prerequisites python-deps
	swift build $(SWIFT_BUILD_FLAGS) --build-tests --sanitize=thread --scratch-path .build-tsan
	swift build $(SWIFT_BUILD_FLAGS) --product generate-manual --sanitize=thread --scratch-path .build-tsan
	$(call run-tests,.build-tsan)

# Leak checking is off unless ASAN_OPTIONS asks for it: trees anchored with `withAnchor()`
# in the tests live, with their suspended tasks, until the process exits. The quarantine
# of freed memory is kept small: the daemon's memory bounds are tested.
test-asan: export ASAN_OPTIONS ?= detect_leaks=0:quarantine_size_mb=8
test-asan: prerequisites python-deps
	swift build $(SWIFT_BUILD_FLAGS) --build-tests --sanitize=address --scratch-path .build-asan
	swift build $(SWIFT_BUILD_FLAGS) --product generate-manual --sanitize=address --scratch-path .build-asan
	$(call run-tests,.build-asan)

# Builds once, runs the whole suite N times and counts passed, failed and stalled runs;
# SANITIZE=thread or SANITIZE=address runs the sanitizer build. See scripts/test-repeat.sh.
N ?= 20
SANITIZE ?=
test-repeat: prerequisites python-deps
	N=$(N) SANITIZE=$(SANITIZE) TEST_TIMEOUT=$(TEST_TIMEOUT) SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" scripts/test-repeat.sh

# Coverage-guided fuzzing (libFuzzer with AddressSanitizer) of the JSON reader, request
# lines, JSON Patch, WebSocket frames and messages, HTTP heads and the upgrade decision,
# snapshot records, and a model tree with the watch hub following it: each of the nine
# targets for FUZZ_SECONDS, FUZZ_JOBS at a time. Fails on any crash, failed check, leak or
# timeout, printing the reproducer's path. The targets build into .build-fuzz, with nothing
# but the toolchain. See Docs/Testing.md, "Fuzzing".
FUZZ_SECONDS ?= 30
FUZZ_JOBS ?= 2
fuzz:
	Fuzz/fuzz.sh build
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) Fuzz/fuzz.sh run

benchmarks: prerequisites
	swift run $(SWIFT_BUILD_FLAGS) -c release arbor-benchmarks all

# Debian's redis-server and redis-tools, the benchmarks' baseline, when missing.
redis:
	@command -v redis-benchmark >/dev/null || { SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq redis-server redis-tools; }

# Debian's valgrind, for the instruction counts of bench-daemon (callgrind), when missing.
valgrind:
	@command -v callgrind_control >/dev/null || { SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq valgrind; }

# The daemon under load next to Redis on a Unix socket (Debian's redis-server,
# redis-tools and valgrind are installed when missing): release builds, 3 runs each of
# both load shapes, then the instructions per request of both under callgrind.
bench-daemon: prerequisites redis valgrind
	swift build $(SWIFT_BUILD_FLAGS) -c release --product counterfactd
	swift build $(SWIFT_BUILD_FLAGS) -c release --product arbor-benchmarks
	"$$(swift build $(SWIFT_BUILD_FLAGS) -c release --show-bin-path)/arbor-benchmarks" daemon --runs $${RUNS:-3}

# The same servers through an independent client (rpcbench, not part of this repository:
# RPCBENCH=PATH to its binary): Redis, the NIO floor and counterfactd side by side, 1 and 50
# clients, then one change reaching 1,000 watchers of the floor and of the daemon; RUNS runs
# (default 3). See scripts/bench-independent.sh.
bench-independent: prerequisites redis
	@[ -n "$(RPCBENCH)" ] || { echo "RPCBENCH=PATH names the independent client's binary"; exit 1; }
	swift build $(SWIFT_BUILD_FLAGS) -c release --product counterfactd
	swift build $(SWIFT_BUILD_FLAGS) -c release --product arbor-benchmarks
	RUNS=$${RUNS:-3} scripts/bench-independent.sh "$(RPCBENCH)" "$$(swift build $(SWIFT_BUILD_FLAGS) -c release --show-bin-path)/counterfactd" "$$(swift build $(SWIFT_BUILD_FLAGS) -c release --show-bin-path)/arbor-benchmarks"

# Durable intents with the journal in PostgreSQL next to the SQLite store and to pgbench
# inserts of the same size on the same server (a server of its own in a temporary
# directory, scripts/postgres-server.sh), 1 and 50 clients, RUNS runs (default 3); then a
# standby's lag behind the leader under load.
bench-postgres: prerequisites
	swift build $(SWIFT_BUILD_FLAGS) -c release --product counterfactd
	swift build $(SWIFT_BUILD_FLAGS) -c release --product arbor-benchmarks
	"$$(swift build $(SWIFT_BUILD_FLAGS) -c release --show-bin-path)/arbor-benchmarks" postgres --runs $${RUNS:-3}

# `arborctl bench` next to `redis-benchmark -s` on a Unix socket, 1 and 50 clients, RUNS runs
# (default 3): release builds of counterfactd and arborctl, see scripts/bench-arborctl.sh.
bench-arborctl: prerequisites redis
	RUNS=$${RUNS:-3} SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" scripts/bench-arborctl.sh

# The store under load: durable intents next to Redis with appendfsync always, start-up
# of a 100,000-model tree, intent latency while snapshots are written. 3 runs each.
bench-store: prerequisites redis
	swift build $(SWIFT_BUILD_FLAGS) -c release --product counterfactd
	swift build $(SWIFT_BUILD_FLAGS) -c release --product arbor-benchmarks
	"$$(swift build $(SWIFT_BUILD_FLAGS) -c release --show-bin-path)/arbor-benchmarks" store --runs $${RUNS:-3}

# Other clients' latency while one reads the whole 100,000-model tree again and again,
# next to the same probes with no reader (Docs/Performance.md, "Large replies"). 3 runs.
bench-large-reply: prerequisites
	swift build $(SWIFT_BUILD_FLAGS) -c release --product arbor-benchmarks
	"$$(swift build $(SWIFT_BUILD_FLAGS) -c release --show-bin-path)/arbor-benchmarks" large-reply --runs $${RUNS:-3}

# Allocations per intent of counterfactd, under an LD_PRELOAD malloc counter (gcc builds it).
bench-allocations: prerequisites
	swift build $(SWIFT_BUILD_FLAGS) -c release --product counterfactd
	swift build $(SWIFT_BUILD_FLAGS) -c release --product arbor-benchmarks
	RUNS=$${RUNS:-3} scripts/allocations-per-intent.sh .build/release/counterfactd .build/release/arbor-benchmarks

# The inspector page on a 100,000-model tree in headless Chromium: a release build, 3 runs.
bench-inspector: prerequisites python-deps
	swift build $(SWIFT_BUILD_FLAGS) -c release --product counterfactd
	python3 Tests/Browser/inspector_first_paint.py --daemon .build/release/counterfactd --runs $${RUNS:-3}

# For those who have systemd: counterfactd as a user service, socket-activated
# ($XDG_RUNTIME_DIR/arbor/counterfactd.sock), its state in ~/.local/state/counterfactd.
user-unit: prerequisites
	swift build $(SWIFT_BUILD_FLAGS) -c release --product counterfactd
	install -D -m 755 "$$(swift build $(SWIFT_BUILD_FLAGS) -c release --show-bin-path)/counterfactd" "$$HOME/.local/bin/counterfactd"
	install -D -m 644 systemd/user/counterfactd.socket "$$HOME/.config/systemd/user/counterfactd.socket"
	install -D -m 644 systemd/user/counterfactd.service "$$HOME/.config/systemd/user/counterfactd.service"
	systemctl --user daemon-reload
	systemctl --user enable --now counterfactd.socket
	@echo "counterfactd listens on $${XDG_RUNTIME_DIR:-/run/user/$$(id -u)}/arbor/counterfactd.sock (systemctl --user status counterfactd)"

# arborctl's man page and its bash, zsh and fish completions, generated by
# swift-argument-parser's tools into .build/arborctl-extras (Docs/Operations.md, "arborctl").
EXTRAS := $(CURDIR)/.build/arborctl-extras
arborctl-extras: prerequisites
	swift build $(SWIFT_BUILD_FLAGS) --product arborctl
	swift build $(SWIFT_BUILD_FLAGS) --product generate-manual
	@bin="$$(swift build $(SWIFT_BUILD_FLAGS) --show-bin-path)"; mkdir -p "$(EXTRAS)"; \
	"$$bin/generate-manual" "$$bin/arborctl" --output-directory "$(EXTRAS)"; \
	for shell in bash zsh fish; do "$$bin/arborctl" --generate-completion-script $$shell > "$(EXTRAS)/arborctl.$$shell"; done; \
	echo "Written: $$(cd "$(EXTRAS)" && ls | tr '\n' ' ')in $(EXTRAS)"

clean:
	rm -rf .build .build-tsan .build-asan .build-fuzz
