# pcsim build. `make run` and `make test` are the only commands a user needs:
# both install missing Debian packages first, each only the set it needs
# (tools/deps.sh; README.md "Dependencies" lists the sets and their sizes).
#
# Sources are found by folder (docs/ARCHITECTURE.md section 1), so adding a file to a layer
# needs no edit here. Outputs go to build/ (release), build/asan/ and build/tsan/.

PREFIX  ?= /usr/local
DESTDIR ?=
# The one place the version is written (CHANGELOG.md: vMAJOR.MINOR.PATCH tags,
# SONAME libpcsim.so.MAJOR, or libpcsim.so.0.MINOR before 1.0, where a MINOR
# release may break the ABI). pcs_version() is built from it (engine/version.c,
# which refuses to compile if include/pcsim/version.h's macros disagree), and
# so is the pkg-config file.
VERSION := 0.3.0
VERSION_PARTS := $(subst ., ,$(VERSION))
SOMAJOR := $(if $(filter 0,$(word 1,$(VERSION_PARTS))),0.$(word 2,$(VERSION_PARTS)),$(word 1,$(VERSION_PARTS)))
VERSION_DEFS := -DPCS_MAKE_VERSION_MAJOR=$(word 1,$(VERSION_PARTS)) \
                -DPCS_MAKE_VERSION_MINOR=$(word 2,$(VERSION_PARTS)) \
                -DPCS_MAKE_VERSION_PATCH=$(word 3,$(VERSION_PARTS))

WARN    := -Wall -Wextra -Wpedantic -Wshadow -Wconversion
ifeq ($(CI),true)
WARN    += -Werror
endif
# -ffp-contract=off: no fused multiply-add, so results do not depend on the
# compiler's contraction choices (docs/ARCHITECTURE.md section 7). Never -ffast-math.
BASEFLAGS := -std=c17 -g -fPIC -fvisibility=hidden -ffp-contract=off -fno-fast-math \
             -D_GNU_SOURCE -Iinclude -I. -I/usr/include/suitesparse $(WARN) -MMD -MP $(VERSION_DEFS)
OPT     ?= -O2
CFLAGS  ?=
LIBS    := -lck -lxxhash -lhwloc -ljansson -lklu -lm -lpthread
MIMALLOC_LIB := -lmimalloc
OMPFLAG := -fopenmp

LIB_DIRS  := engine physics snapshot exec profile station sync
LIB_SRC   := $(sort $(shell find $(LIB_DIRS) -name '*.c'))
# Assembly in the library: station/default_scenario.S carries the built-in
# scenario (.incbin), so every host of the library has it without a file.
LIB_ASM   := $(sort $(shell find $(LIB_DIRS) -name '*.S'))
# cli/serve_web_files.S embeds the control room's files (web/) in the host program.
CLI_SRC   := $(sort $(wildcard cli/*.c) $(wildcard cli/*.S))
WEB_FILES := $(sort $(wildcard web/*.html web/*.js web/*.css web/vendor/*))
TEST_SRC  := $(sort $(wildcard tests/*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))
STRESS_SRC:= $(sort $(wildcard stress/*.c))
EXAMPLES  := $(sort $(wildcard examples/*.c))

B := build
# Generated at build from the public headers (see "ABI table" below) and the
# HEM saturation table (see "Generated tables" below).
GEN := $(B)/gen
BASEFLAGS += -I$(GEN)
# Library sources written at build time, into $(GEN), before the library.
LIB_SRC += $(GEN)/thnet_hem_sat_data.c
define objs
$(patsubst %.S,$(1)/obj/%.o,$(patsubst %.c,$(1)/obj/%.o,$(2)))
endef

LIB_OBJ  := $(call objs,$(B),$(LIB_SRC) $(LIB_ASM))
CLI_OBJ  := $(call objs,$(B),$(CLI_SRC))
TEST_OBJ := $(call objs,$(B),$(TEST_SRC))
# The unit tests also link the host program's objects, all but its main(), so
# the host's helpers are tested as they ship (the scenario reader and the
# station bridge are in the library).
CLI_NOMAIN = $(filter-out %/cli/main.o %/cli/serve.o %/cli/serve_net.o %/cli/serve_world.o \
    %/cli/serve_pace.o %/cli/serve_proto.o %/cli/serve_http.o %/cli/serve_web.o \
    %/cli/serve_feed.o %/cli/serve_assets.o %/cli/serve_web_files.o,$(1))
# libuv is the event loop of `pcsim serve` (cli/serve*.c) and libwebsockets
# (on that loop, through Debian's libuv event-lib plugin) its HTTP and
# WebSocket side (`--http`); both are linked into the host program only:
# never into libpcsim, nor into the unit tests.
SERVE_LIBS := -luv -lwebsockets
BENCH_OBJ:= $(call objs,$(B),$(BENCH_SRC))
STRESS_OBJ:=$(call objs,$(B),$(STRESS_SRC))

# float-cast-overflow is not in gcc's -fsanitize=undefined: a double out of an
# integer's range (or NaN) converted to it is undefined behaviour, and command
# arguments, scenario and save values are doubles that reach such casts. It
# must also be named in -fno-sanitize-recover, or a finding only prints.
ASAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=undefined,float-cast-overflow -DPCS_MEM_SYSTEM -DPCS_DEBUG
TSAN_FLAGS := -fsanitize=thread -DPCS_MEM_SYSTEM
ASAN_LIB_OBJ  := $(call objs,$(B)/asan,$(LIB_SRC) $(LIB_ASM))
ASAN_TEST_OBJ := $(call objs,$(B)/asan,$(TEST_SRC))
ASAN_CLI_OBJ  := $(call objs,$(B)/asan,$(CLI_SRC))
TSAN_LIB_OBJ  := $(call objs,$(B)/tsan,$(LIB_SRC) $(LIB_ASM))
TSAN_STRESS_OBJ := $(call objs,$(B)/tsan,$(STRESS_SRC))

.PHONY: all deps deps-bench deps-test lib test unit unit-asan archcheck examples cli-test serve-test python python-test consumers readme-test readme-images run install clean \
        bench bench-quick stress stress-tsan stress-quick stress-tsan-quick format lint print-version \
        determinism fuzz-build fuzz fuzz-smoke fuzz-seeds verify verify-quick sync-budget sync-js-test \
        web-test browser-test browser-deps readme-images readme-images-control-room \
        cli-test-release cli-test-asan serve-test-release serve-test-asan serve-test-tsan \
        web-test-release web-test-asan web-test-tsan

all: deps lib $(B)/pcsim python

# Debian packages by purpose (tools/deps.sh): deps builds the library and
# the host (make, make run, make install); deps-bench adds the libraries the
# benchmarks compare with (liburcu, SUNDIALS, GSL), which nothing else links;
# deps-test adds the test tools (Criterion, clang, g++, cmake, pkg-config)
# on top of deps-bench, since make test builds and runs the benchmarks too.
# Each set runs after the one below it: never two apt-get at once.
deps:
	@./tools/deps.sh run

deps-bench: deps
	@./tools/deps.sh bench

deps-test: deps-bench
	@./tools/deps.sh test

lib: $(B)/libpcsim.a $(B)/libpcsim.so

$(B)/obj/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(OPT) $(OMPFLAG) $(CFLAGS) -DPCS_BUILD_FLAGS="\"$(OPT) $(WARN) -ffp-contract=off\"" -c $< -o $@

# The default scenario and the (p, h) water table's image (station/water_ph_image.S;
# "Generated tables" below) are assembled into the library (.incbin). Every .S
# rule passes ASM_DEFS: the image's path, in this build tree's $(GEN).
$(B)/obj/%.o: %.S scenarios/pwr-station.json | deps
	@mkdir -p $(dir $@)
	$(CC) $(ASM_DEFS) -c $< -o $@

$(B)/asan/obj/%.o: %.S scenarios/pwr-station.json | deps
	@mkdir -p $(dir $@)
	$(CC) $(ASM_DEFS) -c $< -o $@

# The page's files are assembled into the host program (.incbin).
$(B)/obj/cli/serve_web_files.o $(B)/asan/obj/cli/serve_web_files.o $(B)/tsan/obj/cli/serve_web_files.o: $(WEB_FILES)

$(B)/tsan/obj/%.o: %.S scenarios/pwr-station.json | deps
	@mkdir -p $(dir $@)
	$(CC) $(ASM_DEFS) -c $< -o $@

$(B)/asan/obj/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -O1 $(OMPFLAG) $(ASAN_FLAGS) $(CFLAGS) -c $< -o $@

$(B)/tsan/obj/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -O1 $(TSAN_FLAGS) $(CFLAGS) -c $< -o $@

# Only the unit tests include Criterion; only the benchmarks the comparison
# libraries.
$(TEST_OBJ) $(ASAN_TEST_OBJ): | deps-test
$(BENCH_OBJ): | deps-bench

$(B)/libpcsim.a: $(LIB_OBJ)
	@mkdir -p $(B)
	rm -f $@ && ar rcs $@ $^

$(B)/libpcsim.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libpcsim.so.$(SOMAJOR) -o $(B)/libpcsim.so.$(VERSION) $^ $(OMPFLAG) $(MIMALLOC_LIB) $(LIBS)
	ln -sf libpcsim.so.$(VERSION) $(B)/libpcsim.so.$(SOMAJOR)
	ln -sf libpcsim.so.$(VERSION) $@

# ABI table: every include/pcsim/ header preprocessed without the C library
# (tools/cdef-sys/ stands in for <stdint.h> and the rest; __attribute__
# expands to nothing), so only pcsim's own declarations remain. From that
# one text tools/abi_table.awk lists every public struct and member, which
# station/abi.c measures with sizeof/offsetof into pcs_abi_layout(), and
# tools/cdef.awk writes the Python package's cffi declarations, which the
# package checks against that table at import (python/README.md).
PUBLIC_H := $(sort $(wildcard include/pcsim/*.h))

$(GEN)/public.i: $(PUBLIC_H) $(wildcard tools/cdef-sys/*.h) | deps
	@mkdir -p $(GEN)
	printf '#include "%s"\n' $(patsubst include/%,%,$(PUBLIC_H)) | \
	    $(CC) -E -P -nostdinc -Itools/cdef-sys -Iinclude '-D__attribute__(x)=' -x c - -o $@

$(GEN)/abi_table.inc: $(GEN)/public.i tools/abi_table.awk
	awk -f tools/abi_table.awk $< > $@.tmp && mv $@.tmp $@

$(B)/obj/station/abi.o $(B)/asan/obj/station/abi.o $(B)/tsan/obj/station/abi.o \
$(B)/fuzz/obj/station/abi.o: $(GEN)/abi_table.inc

# Generated tables. The HEM critical-flow search's saturation table
# (physics/thermohydraulics/kernels/thnet_hem_sat.h: IF97 at 1024 nodes, as
# hexadecimal floats, so every compiler reads the same bits) is written by
# tools/gen_hem_sat.c, linked with the release objects it needs: IF97 and
# R12-08 (the water kernels), thnet_hem.c, math and status. Kernels include
# nothing beyond status and math (archcheck's kernel-pure rule), so that list
# stays closed, and a sanitizer-only build compiles no more of the release
# library than these. tests/test_thnet_hem_table.c checks every node
# against IF97.
HEM_SAT_GEN_OBJ := $(filter $(B)/obj/physics/water/kernels/% \
    $(B)/obj/physics/thermohydraulics/kernels/thnet_hem.o $(B)/obj/engine/math.o \
    $(B)/obj/engine/status.o,$(LIB_OBJ))

$(GEN)/gen_hem_sat: tools/gen_hem_sat.c $(HEM_SAT_GEN_OBJ)
	@mkdir -p $(GEN)
	$(CC) $(BASEFLAGS) $(OPT) $(CFLAGS) -o $@ $< $(HEM_SAT_GEN_OBJ) $(LIBS)

$(GEN)/thnet_hem_sat_data.c: $(GEN)/gen_hem_sat
	$< > $@.tmp && mv $@.tmp $@

# The station's (p, h) water table (pcsim/water_ph.h, default def: IF97 over
# the whole grid, 14.1 MB, ~0.2 s) is made here once, by tools/gen_water_ph.c
# linked with the same release water-kernel objects, and written as an image
# that station/water_ph_image.S embeds (.incbin), so no process makes it.
# Each build tree makes its own image in its $(GEN), with its own compiler
# (the determinism builds embed a table clang or -O0 computed); the ASan,
# TSan and fuzz objects share $(B)/gen, as they share the HEM table.
# tests/test_water_ph_image.c checks the embedded table against a freshly
# made one bit for bit, in the release and the ASan unit suites.
WATER_PH_IMAGE := $(GEN)/water_ph.img
ASM_DEFS := -DPCS_WATER_PH_IMAGE='"$(WATER_PH_IMAGE)"'
WATER_PH_GEN_OBJ := $(filter $(B)/obj/physics/water/kernels/% $(B)/obj/engine/math.o \
    $(B)/obj/engine/status.o,$(LIB_OBJ))

$(GEN)/gen_water_ph: tools/gen_water_ph.c $(WATER_PH_GEN_OBJ)
	@mkdir -p $(GEN)
	$(CC) $(BASEFLAGS) $(OPT) $(CFLAGS) -o $@ $< $(WATER_PH_GEN_OBJ) $(LIBS)

$(WATER_PH_IMAGE): $(GEN)/gen_water_ph
	$< $@.tmp && mv $@.tmp $@

$(B)/obj/station/water_ph_image.o $(B)/asan/obj/station/water_ph_image.o \
$(B)/tsan/obj/station/water_ph_image.o $(B)/fuzz/obj/station/water_ph_image.o: $(WATER_PH_IMAGE)

# The Python package (python/): its cdef, generated (not committed), and the
# library it loads. `import pcsim` works with python/ on sys.path after this.
PY_CDEF := python/pcsim/_cdef.h

$(PY_CDEF): $(GEN)/public.i tools/cdef.awk Makefile
	awk -v version=$(VERSION) -f tools/cdef.awk $< > $@.tmp && mv $@.tmp $@

python: $(PY_CDEF) $(B)/libpcsim.so

# README's install ("From Python") into a scratch venv, then pytest there.
python-test: python | deps-test
	B=$(B) ./python/tests/run_suite.sh

$(B)/pcsim: $(CLI_OBJ) $(B)/libpcsim.a
	$(CC) -o $@ $(CLI_OBJ) $(B)/libpcsim.a $(OMPFLAG) $(MIMALLOC_LIB) $(LIBS) $(SERVE_LIBS)

$(B)/pcsim-tests: $(TEST_OBJ) $(call CLI_NOMAIN,$(CLI_OBJ)) $(B)/libpcsim.a
	$(CC) -o $@ $(TEST_OBJ) $(call CLI_NOMAIN,$(CLI_OBJ)) $(B)/libpcsim.a -lcriterion -ldl $(OMPFLAG) $(MIMALLOC_LIB) $(LIBS)

# The ASan programs are linked as fixed-address executables: position
# independence would leave ASan's global descriptors to ~380,000 dynamic
# relocations that the loader redoes at every start, and the unit suite starts
# one process per test, the CLI suite one per command (about 0.05 s of CPU
# each; bench/README.md "Test suite time"). The objects stay -fPIC.
ASAN_EXE := -no-pie

$(B)/asan/pcsim-tests: $(ASAN_TEST_OBJ) $(call CLI_NOMAIN,$(ASAN_CLI_OBJ)) $(ASAN_LIB_OBJ)
	$(CC) $(ASAN_FLAGS) $(ASAN_EXE) -o $@ $^ -lcriterion -ldl $(OMPFLAG) $(LIBS)

$(B)/asan/pcsim: $(ASAN_CLI_OBJ) $(ASAN_LIB_OBJ)
	$(CC) $(ASAN_FLAGS) $(ASAN_EXE) -o $@ $^ $(OMPFLAG) $(LIBS) $(SERVE_LIBS)

# Linked by the benchmarks only: liburcu (the RCU comparison in bench/snapshot_read_bench.c),
# SUNDIALS CVODE and GSL (the ODE-solver comparison in bench/kinetics_bench.c).
BENCH_LIBS := -lurcu-memb -lurcu-common -lsundials_cvode -lsundials_nvecserial -lgsl -lgslcblas

$(B)/pcsim-bench: $(BENCH_OBJ) $(B)/libpcsim.a
	$(CC) -o $@ $(BENCH_OBJ) $(B)/libpcsim.a $(OMPFLAG) $(MIMALLOC_LIB) $(LIBS) $(BENCH_LIBS)

# The delta-sync budget report (bench/sync_budget_bench.c built with its own
# main; bench/README.md "Delta sync budget"): SYNC_BUDGET_ARGS = simulated
# seconds, 1 s blocks of the paced-clients comparison, its paced world speed.
SYNC_BUDGET_ARGS ?= 600 10 10
$(B)/sync-budget: bench/sync_budget_bench.c tests/sync_room.h $(B)/libpcsim.a | deps
	$(CC) $(BASEFLAGS) $(OPT) $(CFLAGS) -DSYNC_BUDGET_MAIN -o $@ $< $(B)/libpcsim.a $(OMPFLAG) $(MIMALLOC_LIB) $(LIBS)

sync-budget: $(B)/sync-budget
	./$(B)/sync-budget $(SYNC_BUDGET_ARGS)

# web/sync.js (the browser's decoder) under node against the C decoder on
# recorded station streams (tests/sync_js_test.sh).
$(B)/sync-record: tests/sync_js/record.c tests/sync_room.h $(B)/libpcsim.a | deps
	$(CC) $(BASEFLAGS) $(OPT) $(CFLAGS) -o $@ $< $(B)/libpcsim.a $(OMPFLAG) $(MIMALLOC_LIB) $(LIBS)

sync-js-test: $(B)/sync-record
	./tests/sync_js_test.sh $(B)/sync-record

$(B)/pcsim-stress: $(STRESS_OBJ) $(B)/libpcsim.a
	$(CC) -o $@ $(STRESS_OBJ) $(B)/libpcsim.a $(OMPFLAG) $(MIMALLOC_LIB) $(LIBS)

$(B)/tsan/pcsim-stress: $(TSAN_STRESS_OBJ) $(TSAN_LIB_OBJ)
	$(CC) -fsanitize=thread -o $@ $^ $(LIBS)

# The host program under ThreadSanitizer: `pcsim serve` runs the world on its
# own thread beside the libuv loop (serve-test runs its tests on this too).
TSAN_CLI_OBJ := $(call objs,$(B)/tsan,$(CLI_SRC))
$(B)/tsan/pcsim: $(TSAN_CLI_OBJ) $(TSAN_LIB_OBJ)
	$(CC) -fsanitize=thread -o $@ $^ $(LIBS) $(SERVE_LIBS)

# Examples link against the shared library through the installed-style
# include path, as an embedding host would.
$(B)/examples/%: examples/%.c $(B)/libpcsim.so
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -Iinclude $(WARN) -O2 -o $@ $< -L$(B) -lpcsim -Wl,-rpath,'$$ORIGIN/..' -lm

examples: $(patsubst examples/%.c,$(B)/examples/%,$(EXAMPLES))
	@for e in $^; do echo "== $$e"; ./$$e > /dev/null || exit 1; done

archcheck:
	@./tools/archcheck.sh
	@./tools/archcheck_selftest.sh

# Hangs are bounded by coreutils timeout, not Criterion's .timeout: with several
# .timeout tests in flight, Criterion 2.4.1's runner leaks 48 bytes and the
# ASan run fails on it.
unit: $(B)/pcsim-tests
	timeout 900 ./$(B)/pcsim-tests --jobs 2

unit-asan: $(B)/asan/pcsim-tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    timeout 1500 ./$(B)/asan/pcsim-tests --jobs 2

cli-test: cli-test-release cli-test-asan
cli-test-release: $(B)/pcsim
	./tests/cli_test.sh $(B)/pcsim
cli-test-asan: $(B)/asan/pcsim
	ASAN_OPTIONS=detect_leaks=1 ./tests/cli_test.sh $(B)/asan/pcsim

# `pcsim serve` over real TCP connections (tests/serve_test.py, Python standard
# library only): concurrent clients and the state hash against `pcsim run`, bad
# input, slow consumers, 1,000 connect/disconnect cycles (RSS and fds), release
# ASan and TSan builds (a leak or a data race fails the server's exit status;
# RSS is compared in release only).
serve-test: serve-test-release serve-test-asan serve-test-tsan
serve-test-release: $(B)/pcsim
	/usr/bin/python3 tests/serve_test.py $(B)/pcsim
serve-test-asan: $(B)/asan/pcsim
	ASAN_OPTIONS=detect_leaks=1 /usr/bin/python3 tests/serve_test.py $(B)/asan/pcsim
serve-test-tsan: $(B)/tsan/pcsim
	TSAN_OPTIONS=halt_on_error=1 /usr/bin/python3 tests/serve_test.py $(B)/tsan/pcsim

# `pcsim serve --http` over real HTTP and WebSocket connections
# (tests/web_test.py, Python standard library only): the page and its
# headers, refused upgrades (Origin, token, Host), page acts through the
# shared rate limit, --read-only, malformed frames, oversized messages and a
# page that never reads, on the release, ASan and TSan builds (a leak or a
# data race fails the server's exit status; libwebsockets itself is not
# instrumented, and runs on the loop thread only).
web-test: web-test-release web-test-asan web-test-tsan
web-test-release: $(B)/pcsim
	/usr/bin/python3 tests/web_test.py $(B)/pcsim
web-test-asan: $(B)/asan/pcsim
	ASAN_OPTIONS=detect_leaks=1 /usr/bin/python3 tests/web_test.py $(B)/asan/pcsim
web-test-tsan: $(B)/tsan/pcsim
	TSAN_OPTIONS=halt_on_error=1 /usr/bin/python3 tests/web_test.py $(B)/tsan/pcsim

# The control room in headless Debian chromium, driven by playwright-core
# (tests/browser/control_room.mjs), which npm ci installs from the committed
# package-lock.json (deps-test brings chromium, node and npm). `make run` and
# `pcsim serve --http` never need npm: the page's files, uPlot included
# (web/vendor/), are in the host program.
BROWSER_DIR := tests/browser
BROWSER_DEPS := $(BROWSER_DIR)/node_modules/.package-lock.json
$(BROWSER_DEPS): $(BROWSER_DIR)/package-lock.json | deps-test
	cd $(BROWSER_DIR) && npm ci --no-audit --no-fund --loglevel=error

browser-deps: $(BROWSER_DEPS)

browser-test: $(B)/pcsim $(BROWSER_DEPS)
	node $(BROWSER_DIR)/control_room.mjs $(B)/pcsim $(B)/control-room.png

# README's picture of the control room: the browser test's screenshot, taken
# after a pump trip (docs/images/control-room.png).
readme-images: readme-images-control-room
readme-images-control-room: $(B)/pcsim $(BROWSER_DEPS)
	@mkdir -p docs/images
	node $(BROWSER_DIR)/control_room.mjs $(B)/pcsim docs/images/control-room.png

# Hosts of an installed pcsim (tests/hosts/consumers.sh): a C and a C++17
# program through pkg-config (shared and --static) and a CMake project through
# find_package (pcsim::pcsim and pcsim::pcsim_static), all built against a
# `make install` into a scratch DESTDIR, never the system prefix.
consumers: all | deps-test
	B=$(B) ./tests/hosts/consumers.sh

# README's shell blocks for C++/CMake and `pcsim serve`, verbatim, in a scratch
# copy of the tree whose build/ is this one (tools/readme_blocks.sh), after the
# tool's self-test on tests/readme_fixture.md. README's "From Python" blocks
# run in the python suite, through the same tool, in the venv pytest then uses.
readme-test: all | deps-test
	./tools/readme_blocks_selftest.sh
	B=$(B) ./tools/readme_blocks.sh "From C++ and CMake=2" "Serving the station over TCP=1"

# Each suite runs through tools/suite_time.sh, which records its wall time;
# the table at the end shows where make test's minutes go. The build comes
# first and in parallel, so the suites' times are their run times.
#
# Suites that keep both cores busy by themselves (the build, the Criterion
# runs with --jobs 2, the stress runs, the benchmarks, fuzzing, the
# determinism builds) run one at a time. The rest run one process at a time
# (a host program and the script that drives it), so they run two at a time
# (make -j2 over PAIRED_SUITES, longest first, each suite's output in
# $(B)/test-logs/NAME.log, printed whole when it fails). Everything a paired
# suite needs is built by the build step, so two never build the same file.
TEST_TIMES := $(B)/test-times.txt
SUITE = ./tools/suite_time.sh $(TEST_TIMES)
SUBMAKE = $(MAKE) --no-print-directory
PAIRED_SUITES := serve-test-tsan cli-test-asan serve-test-asan web-test-tsan python-test \
    web-test-asan cli-test-release serve-test-release web-test-release browser-test \
    consumers readme-test sync-js-test verify-quick examples

test: deps-test
	@mkdir -p $(B) && rm -f $(TEST_TIMES) && date +%s > $(TEST_TIMES).start
	@$(SUITE) build $(SUBMAKE) -j2 all $(B)/pcsim-tests $(B)/asan/pcsim-tests $(B)/asan/pcsim $(B)/tsan/pcsim \
	    $(B)/pcsim-stress $(B)/tsan/pcsim-stress $(B)/pcsim-bench $(B)/sync-record $(FUZZ_BINS) \
	    $(PY_CDEF) $(B)/libpcsim.so $(patsubst examples/%.c,$(B)/examples/%,$(EXAMPLES)) $(BROWSER_DEPS)
	@$(SUITE) archcheck $(SUBMAKE) archcheck
	@$(SUITE) unit $(SUBMAKE) unit
	@$(SUITE) unit-asan $(SUBMAKE) unit-asan
	@SUITE_LOG_DIR=$(B)/test-logs $(SUBMAKE) -j2 $(addprefix paired-,$(PAIRED_SUITES))
	@$(SUITE) stress-quick $(SUBMAKE) stress-quick
	@$(SUITE) stress-tsan-quick $(SUBMAKE) stress-tsan-quick
	@$(SUITE) bench-quick $(SUBMAKE) bench-quick
	@$(SUITE) fuzz-smoke $(SUBMAKE) fuzz-smoke
	@$(SUITE) determinism $(SUBMAKE) determinism
	@./tools/suite_table.sh $(TEST_TIMES)
	@echo "make test: all suites passed"

# One suite of PAIRED_SUITES, timed (not a file: always runs).
paired-%:
	+@$(SUITE) $* $(SUBMAKE) $*

# Benchmarks (bench/README.md): JMH-format JSON plus a .machine.json next to it.
BENCH_FLAGS := --cflags "$(CC) $(BASEFLAGS) $(OPT) $(OMPFLAG) $(CFLAGS)"

bench: $(B)/pcsim-bench
	@mkdir -p bench/results
	./$(B)/pcsim-bench --json bench/results/latest.json $(BENCH_FLAGS) $(BENCH_ARGS)

# bench-quick shows that every benchmark still runs (each in a fork of its own,
# each mode it declares), not how fast: so each size-like param takes its one
# smallest value (a reader or producer thread: one), while params that pick a
# code path (ring, rods, props, noise, case, set, start, workers) keep all
# their values (pin: only 1, pinned, the path with more code; sg: only default,
# the built-in station, as before station.tick had sg). Each fork pays
# its setup (a station or plant build, the (p, h) table), which is most of
# the time: 4-unit plants and the readers x channels x bytes grids made 183
# runs (28 s CPU, 60 s wall at load 7); these params make 111 (19 s, 38 s).
BENCH_QUICK_PARAMS := --param size=64 --param agents=1000 --param bytes=1024 --param channels=8 \
    --param units=1 --param readers=1 --param producers=1 --param pin=1 --param sg=default

bench-quick: $(B)/pcsim-bench
	./$(B)/pcsim-bench --selftest
	./$(B)/pcsim-bench -q -f 1 -wi 1 -i 2 -w 20ms -r 20ms $(BENCH_QUICK_PARAMS) \
	    --json $(B)/bench-quick.json $(BENCH_FLAGS)

# Stress tests (stress/README.md). STRESS_SECONDS sets the total budget.
STRESS_SECONDS ?= 60
TSAN_RUN := TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

stress: $(B)/pcsim-stress
	./$(B)/pcsim-stress --seconds $(STRESS_SECONDS)

stress-quick: $(B)/pcsim-stress
	./$(B)/pcsim-stress --seconds 12

stress-tsan: $(B)/tsan/pcsim-stress
	$(TSAN_RUN) ./$(B)/tsan/pcsim-stress --seconds $(STRESS_SECONDS)

stress-tsan-quick: $(B)/tsan/pcsim-stress
	$(TSAN_RUN) ./$(B)/tsan/pcsim-stress --seconds 16

# Model checking (verify/README.md): spin models of the snapshot pool's
# publish/read protocol and the command rings' capacity logic. Each model must
# pass and each deliberately broken variant must be rejected. verify is
# exhaustive (minutes); verify-quick bounds the search depth (seconds).
verify: deps-test
	./verify/check.sh full $(B)

verify-quick: deps-test
	./verify/check.sh quick $(B)

# Fuzz targets (tests/fuzz/README.md): clang, libFuzzer with ASan and UBSan.
# The library (which carries the scenario reader, the station bridge and the
# journal reader) is built again into build/fuzz/ with coverage
# instrumentation (fuzzer-no-link). Each run fuzzes the committed corpus plus a scratch directory
# (build/fuzz/corpus/<target>, outside git) that receives the new inputs;
# crashes go to build/fuzz/crashes/<target>/.
FUZZ_CC      ?= clang
FZ           := $(B)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := scenario save journal script serve sync_decode web water_ph_image
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# No OpenMP runtime here: the models that use it are not in the station world.
FUZZ_CFLAGS  := $(BASEFLAGS) -O2 -Wno-unknown-pragmas -DPCS_MEM_SYSTEM $(FUZZ_SAN) $(CFLAGS)
FUZZ_LIB_OBJ := $(call objs,$(FZ),$(LIB_SRC) $(LIB_ASM))
FUZZ_BINS    := $(patsubst %,$(FZ)/fuzz_%,$(FUZZ_TARGETS))
FUZZ_OBJ     := $(patsubst %,$(FZ)/obj/tests/fuzz/fuzz_%.o,$(FUZZ_TARGETS) common)
.SECONDARY: $(FUZZ_OBJ)
# -timeout: an input that takes seconds is a finding (a hang), not a wait.
FUZZ_RUN_FLAGS := -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
# A dictionary per target (tests/fuzz/<target>.dict): keys, command names, line heads.

$(FZ)/obj/tests/fuzz/%.o: tests/fuzz/%.c | deps-test
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -c $< -o $@

$(FZ)/obj/%.o: %.c | deps-test
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FZ)/obj/%.o: %.S scenarios/pwr-station.json | deps-test
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ASM_DEFS) -c $< -o $@

$(FZ)/libpcsim.a: $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FZ)/fuzz_%: $(FZ)/obj/tests/fuzz/fuzz_%.o $(FZ)/obj/tests/fuzz/fuzz_common.o $(FZ)/libpcsim.a
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LIBS)

# fuzz_serve decodes with the host program's protocol code, cli/serve_proto.c
# (pure: jansson only), compiled into build/fuzz/ like the library.
$(FZ)/fuzz_serve: $(FZ)/obj/cli/serve_proto.o
# fuzz_web: the control room page's message decoder, cli/serve_webmsg.c (pure: jansson only).
$(FZ)/fuzz_web: $(FZ)/obj/cli/serve_webmsg.o

fuzz-build: $(FUZZ_BINS)

# Seed corpora from the real program and files (tests/fuzz/make_seeds.sh);
# rerun after a save or journal format change. The (p, h) table image seeds
# are images of small defs written by tests/fuzz/make_water_ph_seeds.c
# through the release library; rerun after an image format or table change.
fuzz-seeds: $(B)/pcsim $(B)/make_water_ph_seeds
	./tests/fuzz/make_seeds.sh $(B)/pcsim
	@mkdir -p tests/fuzz/corpus/water_ph_image
	./$(B)/make_water_ph_seeds tests/fuzz/corpus/water_ph_image

$(B)/make_water_ph_seeds: tests/fuzz/make_water_ph_seeds.c $(B)/libpcsim.a
	$(CC) $(BASEFLAGS) $(OPT) $(CFLAGS) -o $@ $< $(B)/libpcsim.a $(LIBS)

# FUZZ_SECONDS per target, one target after another.
fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(FZ)/corpus/$$t $(FZ)/crashes/$$t && \
	    echo "== fuzz_$$t: $(FUZZ_SECONDS) s" && \
	    ./$(FZ)/fuzz_$$t $(FUZZ_RUN_FLAGS) -max_total_time=$(FUZZ_SECONDS) -dict=tests/fuzz/$$t.dict \
	        -artifact_prefix=$(FZ)/crashes/$$t/ $(FZ)/corpus/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

# For make test: every committed corpus input once, then FUZZ_SMOKE_SECONDS of
# fuzzing, in one libFuzzer run per target; two targets at a time (2 cores),
# each with its own log. Before it mutates anything libFuzzer runs every input
# of its corpus directories once (its seed pass; an empty file is its
# empty-input call), with the same -timeout, sanitizer and leak checks as a
# replay, so the seed pass is the replay: a separate replay process ran every
# input a second time and paid each target's setup (its station build) twice.
# The recipe checks that the seed pass ran at least as many inputs as the
# committed corpus holds. PCSIM_FUZZ_BUILD_ALL=1: fuzz_scenario builds every
# accepted input, not one in 8 (the other targets ignore it); those builds are
# most of the smoke's time, and scenario is first in FUZZ_TARGETS, so it
# starts first. The long runs are `make fuzz` (FUZZ_SECONDS per target).
FUZZ_SMOKE_SECONDS ?= 3

fuzz-smoke: fuzz-build
	@$(SUBMAKE) -j2 $(patsubst %,fuzz-smoke-%,$(FUZZ_TARGETS))

fuzz-smoke-%: $(FZ)/fuzz_%
	@mkdir -p $(FZ)/corpus/$* $(FZ)/crashes/$*
	@PCSIM_FUZZ_BUILD_ALL=1 ./$(FZ)/fuzz_$* $(FUZZ_RUN_FLAGS) -max_total_time=$(FUZZ_SMOKE_SECONDS) \
	    -dict=tests/fuzz/$*.dict -artifact_prefix=$(FZ)/crashes/$*/ \
	    $(FZ)/corpus/$* tests/fuzz/corpus/$* > $(FZ)/smoke-$*.log 2>&1 \
	    || { tail -40 $(FZ)/smoke-$*.log; exit 1; }
	@n=$$(find tests/fuzz/corpus/$* -type f | wc -l); \
	ran=$$(sed -n 's/^#\([0-9]*\)[[:space:]]*INITED.*/\1/p' $(FZ)/smoke-$*.log | head -n 1); \
	if [ -z "$$ran" ] || [ "$$ran" -lt "$$n" ]; then \
	    echo "fuzz_$*: the seed pass ran $${ran:-no} inputs, fewer than the $$n committed ones" \
	        "(tests/fuzz/corpus/$*; log $(FZ)/smoke-$*.log)"; exit 1; fi; \
	echo "fuzz_$*: replayed $$n committed corpus inputs ($$ran runs in the seed pass); $(FUZZ_SMOKE_SECONDS) s:" \
	    "$$(grep -h '^stat::number_of_executed_units' $(FZ)/smoke-$*.log | tail -1)"

# Determinism across builds (docs/ARCHITECTURE.md section 7): the library and
# host program built three ways, each in its own tree (only lib + host objects,
# -j2), must give the same final state hash with 0 and 2 workers. CI is
# cleared for these builds: a clang-only warning is not a determinism failure
# (the release build carries -Werror).
# gcc -O2 is the release build itself ($(B)/pcsim), so only two more are built.
DET_BUILDS  := gcc-O0:gcc:-O0 clang-O2:clang:-O2
# The scenario: the default one (scenarios/pwr-station.json) with its script's
# times divided by 60, so its five commands (rod move, pump trip, alarm
# acknowledge, two SG pressure set points) come at 1, 2, 2.5, 3 and 7 s.
# DET_SECONDS = 10: 200 ticks, every command applied and its transient run,
# 10 merges of each unit's xenon job (the slowest job period: 20 ticks, `pcsim
# info --schedule`). The 60 s of the unchanged default scenario that this
# replaces applied no command (the first is at 60 s), ran only the steady
# state, and cost more: most of a run is the station build, the rest is ticks.
DET_SECONDS ?= 10
DET_SCENARIO := $(B)/det-scenario.json

$(DET_SCENARIO): scenarios/pwr-station.json | deps-test
	@mkdir -p $(B)
	jq '.script |= map(.t_s /= 60)' $< > $@.tmp && mv $@.tmp $@

# Issue 19: structural change under the same contract. The living world's
# script (a pump removed and installed, a unit added, a unit frozen and
# thawed, the added unit removed) moved 4x earlier, run for 40 s: every
# change applied, the thaw 15 s after the freeze, the removal at 38.75 s.
DET_LIVING := $(B)/det-living.json

$(DET_LIVING): scenarios/living-world.json | deps-test
	@mkdir -p $(B)
	jq '.script |= map(.t_s /= 4) | .readers.count = 0' $< > $@.tmp && mv $@.tmp $@

determinism: $(B)/pcsim $(DET_SCENARIO) $(DET_LIVING) | deps-test
	@for d in $(DET_BUILDS); do \
	    name=$${d%%:*}; rest=$${d#*:}; \
	    echo "determinism: building $(B)/det-$$name ($${rest%%:*} $${rest#*:})"; \
	    $(MAKE) -s --no-print-directory -j2 B=$(B)/det-$$name CC=$${rest%%:*} OPT=$${rest#*:} CI= \
	        $(B)/det-$$name/pcsim || exit 1; \
	done
	@./tools/determinism.sh --scenario $(DET_SCENARIO) $(DET_SECONDS) gcc-O2=$(B)/pcsim \
	    $(foreach d,$(DET_BUILDS),$(word 1,$(subst :, ,$(d)))=$(B)/det-$(word 1,$(subst :, ,$(d)))/pcsim)
	@./tools/determinism.sh --scenario $(DET_LIVING) 40 gcc-O2=$(B)/pcsim \
	    $(foreach d,$(DET_BUILDS),$(word 1,$(subst :, ,$(d)))=$(B)/det-$(word 1,$(subst :, ,$(d)))/pcsim)

run: all
	./$(B)/pcsim run

# The pictures README.md shows, each made by the project's own commands (and
# committed): a list of steps, one picture after another, so a new picture is
# a few more lines. Not part of make test. The default scenario with a CSV row
# a second, plotted with its events: docs/images/default-transient.png.
README_IMAGES := docs/images
README_RUN := $(B)/readme-images
readme-images: $(B)/pcsim
	@mkdir -p $(README_IMAGES) $(README_RUN)
	./$(B)/pcsim run scenarios/pwr-station.json --csv-every 1 --csv $(README_RUN)/default.csv \
	    > $(README_RUN)/default.log
	./$(B)/pcsim plot $(README_RUN)/default.csv --events $(README_RUN)/default.log \
	    -o $(README_IMAGES)/default-transient.png \
	    --title "pcsim: the default station (scenarios/pwr-station.json), 900 s"

# What libpcsim.a needs after it on a link line, in one list for both
# packages: pcsim.pc's Libs.private (less the -lNAME of what Requires.private
# names: jansson gives -ljansson, libxxhash -lxxhash) and the
# CMake target pcsim::pcsim_static (-lNAME as NAME, -fopenmp as a link flag).
# libpcsim.so records the same libraries itself (DT_NEEDED).
PC_REQUIRES_PRIVATE := jansson libxxhash
STATIC_LINK := $(OMPFLAG) $(MIMALLOC_LIB) $(LIBS)
PC_LIBS_PRIVATE := $(filter-out $(addprefix -l,$(patsubst lib%,%,$(PC_REQUIRES_PRIVATE))),$(STATIC_LINK))
EMPTY :=
CMAKE_STATIC_LINK := $(subst $(EMPTY) $(EMPTY),;,$(strip $(patsubst -l%,%,$(STATIC_LINK))))
SIZEOF_VOID_P = $(shell echo __SIZEOF_POINTER__ | $(CC) -E -P - 2>/dev/null | tail -n 1)
LIBDIR_D := $(DESTDIR)$(PREFIX)/lib
CMAKEDIR_D := $(LIBDIR_D)/cmake/pcsim
INSTALL_SED = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
    -e 's|@SOMAJOR@|$(SOMAJOR)|g' -e 's|@REQUIRES_PRIVATE@|$(PC_REQUIRES_PRIVATE)|g' \
    -e 's|@LIBS_PRIVATE@|$(PC_LIBS_PRIVATE)|g' -e 's|@STATIC_LINK@|$(CMAKE_STATIC_LINK)|g' \
    -e 's|@SIZEOF_VOID_P@|$(SIZEOF_VOID_P)|g'

# PREFIX is where the files will live, DESTDIR where they are written now
# (a staging or scratch tree: tests/hosts/consumers.sh installs into one).
# pcsim.pc names PREFIX; the CMake package finds its prefix from its own place.
install: all
	install -d $(DESTDIR)$(PREFIX)/include/pcsim $(LIBDIR_D)/pkgconfig $(CMAKEDIR_D) $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/pcsim/*.h $(DESTDIR)$(PREFIX)/include/pcsim/
	install -m 644 $(B)/libpcsim.a $(LIBDIR_D)/
	install -m 755 $(B)/libpcsim.so.$(VERSION) $(LIBDIR_D)/
	ln -sf libpcsim.so.$(VERSION) $(LIBDIR_D)/libpcsim.so.$(SOMAJOR)
	ln -sf libpcsim.so.$(VERSION) $(LIBDIR_D)/libpcsim.so
	install -m 755 $(B)/pcsim $(DESTDIR)$(PREFIX)/bin/
	# pcsim plot's module (cli/plot.c looks in PREFIX/share/pcsim/python): the
	# package's __init__ and plot.py only, which need no libpcsim bindings.
	install -d $(DESTDIR)$(PREFIX)/share/pcsim/python/pcsim
	install -m 644 python/pcsim/__init__.py python/pcsim/plot.py \
	    $(DESTDIR)$(PREFIX)/share/pcsim/python/pcsim/
	$(INSTALL_SED) tools/pcsim.pc.in > $(LIBDIR_D)/pkgconfig/pcsim.pc
	$(INSTALL_SED) cmake/pcsimConfig.cmake.in > $(CMAKEDIR_D)/pcsimConfig.cmake
	$(INSTALL_SED) cmake/pcsimConfigVersion.cmake.in > $(CMAKEDIR_D)/pcsimConfigVersion.cmake

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

lint:
	cppcheck --quiet --enable=warning,performance,portability --inline-suppr -Iinclude -I. \
	    --error-exitcode=1 engine physics snapshot exec profile station sync cli

clean:
	rm -rf $(B) $(PY_CDEF)

# The version, for scripts and tests (tests/cli_test.sh compares pcsim info and
# the SONAME with it). A VERSION edit rebuilds version.o.
print-version:
	@echo $(VERSION)

$(B)/obj/engine/version.o $(B)/asan/obj/engine/version.o $(B)/tsan/obj/engine/version.o: Makefile

-include $(shell find $(B) -name '*.d' 2>/dev/null)
