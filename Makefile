# Arbor: the two commands a newcomer needs.
#   make run    builds and runs the example (a model tree that prints its changes)
#   make test   builds everything and runs every test
# Both install missing system prerequisites first (Debian/Ubuntu, with apt-get).

SWIFT_BUILD_FLAGS ?= --disable-experimental-prebuilts
APT_PACKAGES := pkg-config

.PHONY: run test test-tsan build prerequisites python-deps benchmarks clean

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

# Tests check patches and schemas against Python's jsonpatch and jsonschema, installed
# from PyPI into .build/python-packages (nothing is installed system-wide).
PYTHON_PACKAGES := $(CURDIR)/.build/python-packages
export PYTHONPATH := $(PYTHON_PACKAGES)

python-deps:
	@command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1 || { \
	  echo "Installing: python3 python3-pip"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq python3 python3-pip; }
	@python3 -c "import jsonpatch, jsonschema" 2>/dev/null || \
	  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target $(PYTHON_PACKAGES) jsonpatch jsonschema

run: prerequisites
	swift run $(SWIFT_BUILD_FLAGS) counterfact-tour

build: prerequisites
	swift build $(SWIFT_BUILD_FLAGS) --build-tests

# A normal run takes under a minute. A run that has not finished after TEST_TIMEOUT
# seconds has met the cooperative-pool stall described in Docs/Testing.md: it is stopped,
# reported, and run once more. Failures are not retried.
TEST_TIMEOUT ?= 600

test: build python-deps
	@status=0; timeout $(TEST_TIMEOUT) swift test $(SWIFT_BUILD_FLAGS) --skip-build || status=$$?; \
	if [ $$status -eq 124 ]; then \
	  pkill -f '[A]rborPackageTests[.]xctest' || true; \
	  echo "The test run stalled for $(TEST_TIMEOUT) s (see Docs/Testing.md); running it once more."; \
	  status=0; timeout $(TEST_TIMEOUT) swift test $(SWIFT_BUILD_FLAGS) --skip-build || status=$$?; \
	  [ $$status -ne 124 ] || pkill -f '[A]rborPackageTests[.]xctest' || true; \
	fi; exit $$status

# The whole suite under ThreadSanitizer, in its own build folder.
test-tsan: prerequisites python-deps
	swift build $(SWIFT_BUILD_FLAGS) --build-tests --sanitize=thread --scratch-path .build-tsan
	swift test $(SWIFT_BUILD_FLAGS) --skip-build --sanitize=thread --scratch-path .build-tsan

benchmarks: prerequisites
	swift run $(SWIFT_BUILD_FLAGS) -c release arbor-benchmarks all

clean:
	rm -rf .build .build-tsan
