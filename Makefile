# The README's two commands: `make demo` and `make test`. Both install what is
# missing first (scripts/install-deps.sh, Debian 12 packages).
BUILD ?= build
TEST_BUILD ?= build-test
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Most tests wait on real traffic, ptys and timers rather than compute (the whole suite uses
# about 4 CPU minutes), and none asserts a rate or a duration, so a busy machine slows them but
# does not fail them: four per core keep the cores busy.
CTEST_JOBS ?= $(shell echo $$(( $(JOBS) * 4 )))
# The developers' builds treat warnings as errors; a plain `cmake` does not (ESPBENCH_WERROR).
WERROR ?= -DESPBENCH_WERROR=ON

.PHONY: all deps deps-test build demo test bench fuzz install deb clean

all: build

deps:
	bash scripts/install-deps.sh

deps-test:
	bash scripts/install-deps.sh --test

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DESPBENCH_TESTS=OFF $(WERROR)
	cmake --build $(BUILD) -j$(JOBS)

# The main job: a simulated benchmark run against espbench-vboard (esp32s3, iperf tier,
# TCP/UDP x TX/RX), then the docs' table of what was measured.
DEMO_OUT ?= results/demo-esp32s3-$(shell date +%Y%m%d-%H%M%S)
demo: build
	$(BUILD)/espbench run --chip esp32s3 --tier iperf --sim --out $(DEMO_OUT)
	$(BUILD)/espbench report $(DEMO_OUT)/results.json --format md --vs-docs

# (The espbench firmware's run on the emulated ESP32-C3, label qemu-image, is registered only where
# its ESP-IDF image is, and runs with `ctest -L qemu-image`: docs/emulator.md.)
# All tests, built with AddressSanitizer and UndefinedBehaviorSanitizer, run CTEST_JOBS at a
# time (most end-to-end tests wait on timed traffic, not on the CPU).
# The timeout is a deadline, not a target: the longest end-to-end tests take about a minute alone
# but several times that on a machine kept busy by other work (tests/CMakeLists.txt, TIMEOUT).
test: deps-test
	cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=Debug -DESPBENCH_SANITIZE=ON -DESPBENCH_TESTS=ON $(WERROR)
	cmake --build $(TEST_BUILD) -j$(JOBS)
	cd $(TEST_BUILD) && ctest --output-on-failure --timeout 600 -j$(CTEST_JOBS) -LE qemu-image

# Benchmarks (bench/README.md): writes bench/results.json and bench/SUMMARY.md; exit 1 if a
# figure falls short of its target.
bench: deps-test build
	BUILD=$(BUILD) bash bench/run.sh

# libFuzzer targets (fuzz/README.md), built with clang, ASan and UBSan into build-fuzz/.
FUZZ_BUILD ?= build-fuzz
fuzz: deps-test
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DESPBENCH_FUZZ=ON -DESPBENCH_TESTS=OFF $(WERROR)
	cmake --build $(FUZZ_BUILD) -j$(JOBS) --target fuzz

install: build
	cmake --install $(BUILD)

# A Debian package (CPack, cmake/package.cmake) in build-deb/; tests/pkg/install_deb.sh installs
# and tries it (CI runs that).
DEB_BUILD ?= build-deb
deb: deps
	cmake -S . -B $(DEB_BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DESPBENCH_TESTS=OFF $(WERROR)
	cmake --build $(DEB_BUILD) -j$(JOBS)
	cd $(DEB_BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD) $(TEST_BUILD)
