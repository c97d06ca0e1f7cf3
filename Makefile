# rodd: `make run` sets up, builds and runs the shipped example; `make test` runs every test.
# Build outputs go to $(BUILD) (build/ by default, build-asan/ and build-tsan/ for the sanitizer builds).

BUILD ?= build
CC ?= cc
SAN ?=
# The ASan build's daemon, command line and tests at -O1 (the engine stays at CORE_OPT): they
# compute little beside the engine (ASan's unit, allocation and daemon runs took the same CPU),
# and the build took 102 CPU s instead of 115 here.
ifeq ($(SAN),1)
OPT ?= -O1 -g
endif
OPT ?= -O2 -g
# The engine at -O3: its kinematics and mass-matrix loops vectorize and unroll (11 % fewer
# instructions on the reaching bench than -O2, the same results bit for bit: no reassociation,
# no contraction in C11). An OPT given on the command line still applies to everything.
CORE_OPT ?= -O3 -g

CPPFLAGS += -Icore -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
CFLAGS += -std=c11 $(OPT) -Wall -Wextra -Werror -pthread $(SANFLAGS)
LDLIBS += -lcjson -lsundials_kinsol -lsundials_cvode -lsundials_nvecserial \
          -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lmuparser -lnlopt \
          -lm -pthread
# HDF5's serial flavour by name: plain `pkg-config hdf5` may resolve to the OpenMPI one.
# Expanded when a recipe runs, after setup has installed it.
HDF5_CFLAGS = $(shell pkg-config --cflags hdf5-serial 2>/dev/null)
HDF5_LIBS = $(shell pkg-config --libs hdf5-serial 2>/dev/null || echo -lhdf5_serial)
# Zstandard compresses MCAP's chunks (server/io/mcap_writer.c), in rodd and rodd-full
ZSTD_LIBS = -lzstd
SERVER_LIBS = -lmicrohttpd -lwebsockets -lcap $(HDF5_LIBS) $(ZSTD_LIBS)
ifeq ($(SAN),1)
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += $(SANFLAGS)
endif
ifeq ($(SAN),thread)
SANFLAGS = -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS += $(SANFLAGS)
endif

CRITERION_CFLAGS = $(shell pkg-config --cflags criterion 2>/dev/null)
CRITERION_LIBS = $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)

# The engine in layers, each calling only the ones before it (README's map; tests/arch checks it):
# util, spec, model (the compiled model and the state's data), stages, solve, json (the
# writers of the optional rod_json.h). Only core/ sees the layers' headers: the daemon includes
# core/rod.h and the optional rod_json.h and rod_text.h.
CORE_LAYERS = util spec model stages solve json
CORE_DIRS = $(CORE_LAYERS:%=core/%)
CORE_INC = $(CORE_DIRS:%=-I%)
CORE_SRC = $(wildcard $(CORE_DIRS:%=%/*.c))
CORE_OBJ = $(CORE_SRC:%.c=$(BUILD)/%.o)
# The daemon and the command line in rooms by job (README's map; tests/arch checks that no two
# rooms, and no two files, need each other). Files still at server/'s root build too.
SERVER_ROOMS = util io cli session daemon stream service http process
SERVER_DIRS = $(SERVER_ROOMS:%=server/%)
SERVER_INC = -Iserver $(SERVER_DIRS:%=-I%)
SERVER_SRC = $(wildcard server/*.c $(SERVER_DIRS:%=%/*.c))
SERVER_OBJ = $(SERVER_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC = $(wildcard tests/unit/*.c)
UNIT_OBJ = $(UNIT_SRC:%.c=$(BUILD)/%.o)
VALID_SRC = $(wildcard tests/validation/*.c)
VALID_OBJ = $(VALID_SRC:%.c=$(BUILD)/%.o)
TEST_SUPPORT_SRC = $(wildcard tests/support/*.c)
TEST_SUPPORT_OBJ = $(TEST_SUPPORT_SRC:%.c=$(BUILD)/%.o)

SETUP_STAMP = $(BUILD)/.setup-done
RUN_EXAMPLE ?= octopus-reaching
# where `make run` keeps its sessions across runs (tests/cli/run_target.sh points it at a fresh one)
RUN_STATE_DIR ?= $(BUILD)/state
CRITERION_JOBS ?= 2

.PHONY: all setup run install coverage test bench-clones test-lane-native test-lane-checked test-arch test-unit test-validation test-cli test-run test-schema test-api test-reaching test-converge test-integration test-python test-matlab test-proxy \
        test-long test-deploy test-container test-browser test-docs docs-pictures web \
        asan asan-engine asan-daemon asan-cli asan-integration tsan tsan-build valgrind valgrind-unit valgrind-validation valgrind-daemon soak \
        fuzz fuzz-run fuzz-run-spec fuzz-long bench bench-ensemble bench-load bench-isolation bench-lockstep bench-oneport bench-viewer clean

all: $(BUILD)/rodd

# The setup script is idempotent and cheap when everything is installed. The image's build
# stage passes SETUP_MODE=--build: it needs the compilers, not the test tools.
SETUP_MODE ?=
$(SETUP_STAMP): deploy/setup.sh
	@mkdir -p $(BUILD)
	bash deploy/setup.sh $(SETUP_MODE)
	@touch $@
setup: $(SETUP_STAMP)

$(CORE_OBJ): OPT = $(CORE_OPT)
$(CORE_OBJ): CPPFLAGS += $(CORE_INC)
$(BUILD)/%.o: %.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(SERVER_OBJ): CPPFLAGS += $(SERVER_INC)
$(BUILD)/server/io/export_hdf5.o: server/io/export_hdf5.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(HDF5_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CORE_INC) -Itests/support $(SERVER_INC) $(CFLAGS) $(CRITERION_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/librodcore.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Two binaries, so that a command loads only the libraries it uses (issue 30, item 3): rodd, the
# command users call, links the engine's libraries and the offline commands; it exec's rodd-full
# (all of server/, with the daemon's and HDF5's libraries) for serve, probe and run --format
# hdf5, found beside it or in PREFIX/lib/rodd (server/front/delegate.h). server/process/main.c
# is compiled for each. rodd loads muparser at its first expression, NLopt and zstd at their first
# call (server/front/*_lazy.c).
FRONT_OBJ = $(patsubst %.c,$(BUILD)/%.o,$(wildcard server/front/*.c) $(wildcard server/cli/*.c) \
              server/io/export.c server/io/export_text.c server/io/export_mcap.c server/io/mcap_writer.c \
              server/io/foxglove_channels.c $(wildcard server/io/frame*.c) \
              server/util/numtext.c server/util/clock.c server/util/textfile.c) $(BUILD)/front/main.o
$(BUILD)/front/main.o: server/process/main.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SERVER_INC) -DRODD_FRONT $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/server/front/%.o: server/front/%.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SERVER_INC) $(CFLAGS) -MMD -MP -c $< -o $@
# rodd-full comes with rodd: the tests that start build/rodd serve reach it through rodd
# SUNDIALS goes into rodd from Debian's static archives (its shared objects' symbol relocations
# were most of the dynamic loader's work at start-up), and muparser, NLopt and zstd load at
# their first use (server/front/*_lazy.c): `rodd version` 5.7 -> 4.0 ms CPU here (issue 30).
RODD_STATIC = -lsundials_kinsol -lsundials_cvode -lsundials_nvecserial -lsundials_sunmatrixdense -lsundials_sunlinsoldense
$(BUILD)/rodd: $(FRONT_OBJ) $(BUILD)/librodcore.a | $(BUILD)/rodd-full
	$(CC) $(LDFLAGS) -o $@ $(FRONT_OBJ) $(BUILD)/librodcore.a -Wl,-Bstatic $(RODD_STATIC) -Wl,-Bdynamic \
	  $(filter-out -lmuparser -lnlopt $(RODD_STATIC),$(LDLIBS))
$(BUILD)/rodd-full: $(SERVER_OBJ) $(BUILD)/librodcore.a
	$(CC) $(LDFLAGS) -o $@ $(SERVER_OBJ) $(BUILD)/librodcore.a $(SERVER_LIBS) $(LDLIBS)

# the daemon's modules that stand alone (no libmicrohttpd, no libwebsockets), unit-tested too
UNIT_SERVER_OBJ = $(addprefix $(BUILD)/server/,stream/splice.o stream/ws_frame_guard.o stream/stream_handshake.o \
                  util/clock.o daemon/config.o util/textfile.o io/disk_budget.o http/accept.o \
                  io/export.o io/export_text.o io/frame_codec.o io/frame_fields.o io/frame_mech.o io/recording.o util/log.o front/export_hdf5_absent.o \
                  io/mcap_writer.o stream/stream_foxglove.o io/foxglove_channels.o io/export_mcap.o \
                  cli/optim_cmaes.o cli/optim_nlopt.o cli/optim_http.o)
$(BUILD)/tests/unit_tests: $(UNIT_OBJ) $(TEST_SUPPORT_OBJ) $(UNIT_SERVER_OBJ) $(BUILD)/librodcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CRITERION_LIBS) $(ZSTD_LIBS) $(LDLIBS)

$(BUILD)/tests/validation_tests: $(VALID_OBJ) $(TEST_SUPPORT_OBJ) $(BUILD)/librodcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CRITERION_LIBS) $(LDLIBS)

# The engine's allocation-failure paths: malloc, calloc and realloc of rodd's own code fail on
# demand (the linker wraps them for this binary only); so do CVodeInit, dyn_accel, dyn_accel_same_q and dyn_residual
# (tests/alloc/test_solver_faults.c: CVODE's setup, the Jacobians' evaluations and generalized-alpha's residual failing).
ALLOC_SRC = $(wildcard tests/alloc/*.c)
ALLOC_OBJ = $(ALLOC_SRC:%.c=$(BUILD)/%.o)
$(BUILD)/tests/alloc_tests: $(ALLOC_OBJ) $(TEST_SUPPORT_OBJ) $(BUILD)/librodcore.a
	$(CC) $(LDFLAGS) -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=CVodeInit,--wrap=dyn_accel,--wrap=dyn_accel_same_q,--wrap=dyn_residual -o $@ $^ $(CRITERION_LIBS) $(LDLIBS)

# The daemon with the octopus reaching example running (unless the state directory already
# holds sessions); open the URL it prints. The viewer is built first when npm can.
# The browser viewer (web/dist), rebuilt when its sources change.
WEB_SRC = $(wildcard web/src/*.js) web/index.html web/styles.css web/favicon.svg web/package-lock.json web/build.sh
web: web/dist/index.html
web/dist/index.html: $(WEB_SRC)
	bash web/build.sh

run: $(BUILD)/rodd
	@$(MAKE) --no-print-directory web || echo "viewer not built; the API still works"
	$(BUILD)/rodd serve --example $(RUN_EXAMPLE) --state-dir $(RUN_STATE_DIR) --web-root web/dist

# rodd in PREFIX/bin (rodd-full in PREFIX/lib/rodd), the examples, the contract and (when built: make web) the viewer in
# PREFIX/share/rodd, where the daemon finds them from its own location, whatever the working
# directory (server/install_paths.h). DESTDIR stages it for a package.
PREFIX ?= /usr/local
SHARE = $(DESTDIR)$(PREFIX)/share/rodd
install: $(BUILD)/rodd
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/rodd $(SHARE)/examples
	install -m 755 $(BUILD)/rodd $(DESTDIR)$(PREFIX)/bin/rodd
	install -m 755 $(BUILD)/rodd-full $(DESTDIR)$(PREFIX)/lib/rodd/rodd-full
	install -m 644 api/examples/*.json $(SHARE)/examples/
	install -m 644 api/openapi.yaml api/asyncapi.yaml api/spec.schema.json $(SHARE)/
	@if [ -f web/dist/index.html ]; then rm -rf $(SHARE)/web && cp -R web/dist $(SHARE)/web && chmod -R a+rX $(SHARE)/web; \
	 else echo "make install: the viewer is not built (make web); the API and the examples are installed"; fi

# The engine's layers from its object files (tests/arch/check_layers.py): no cycle between files
# of core/, no call or include from a layer into a later one, no internal core header in server/;
# the daemon's rooms (tests/arch/check_rooms.py): no cycle between rooms or files of server/.
test-arch: $(CORE_OBJ) $(SERVER_OBJ)
	bash tests/arch/run.sh $(BUILD)

test-unit: $(BUILD)/tests/unit_tests $(BUILD)/tests/alloc_tests
	$(BUILD)/tests/unit_tests --jobs $(CRITERION_JOBS)
	$(BUILD)/tests/alloc_tests --jobs $(CRITERION_JOBS)

# The three longest tests (the solenoid 58 s, the plectoneme 29 s, the snake 23 s: half the
# suite's CPU time) in a process of their own from the start and every other test in a second:
# with two Criterion workers the solenoid began late (its suite sorts near the end) and the
# suite took 243 s here when it alone ran 149 s.
LONGEST_VALIDATION = self_contact/fig9*|locomotion/fig10*
test-validation: $(BUILD)/tests/validation_tests
ifeq ($(VALIDATION_FILTER),)
	bash tests/run_split.sh $(BUILD)/tests/validation_tests '' '$(LONGEST_VALIDATION)'
else
	$(BUILD)/tests/validation_tests --jobs $(CRITERION_JOBS) --filter '$(VALIDATION_FILTER)'
endif

# The validation suite with the seed's whole sweeps where make test runs their ends (RODD_LONG:
# every incline angle, couple and thrown rod of seed 002's Fig. 17; the solenoid to 20 s instead
# of 17); about 3.5 CPU minutes more.
test-long: $(BUILD)/tests/validation_tests
	RODD_LONG=1 $(BUILD)/tests/validation_tests --jobs $(CRITERION_JOBS)

test-cli: $(BUILD)/rodd
	RODD=$(BUILD)/rodd bash tests/cli/run.sh
	RODD=$(BUILD)/rodd bash tests/cli/export.sh
	RODD=$(BUILD)/rodd bash tests/cli/mcap.sh
	RODD=$(BUILD)/rodd bash tests/cli/front.sh
	RODD=$(BUILD)/rodd bash tests/cli/warnings.sh
	RODD=$(BUILD)/rodd bash tests/cli/optimize.sh
	RODD=$(BUILD)/rodd bash tests/cli/optimize_daemon.sh
	RODD=$(BUILD)/rodd bash tests/cli/rods.sh
	bash tests/cli/install.sh $(BUILD)

# The README's first command: `make run` itself (not a copy of its command line), from a fresh
# state directory on a free RODD_HTTP_PORT, with the viewer built first as run builds it.
test-run: $(BUILD)/rodd web
	bash tests/cli/run_target.sh $(BUILD)

test-schema: $(BUILD)/rodd
	bash tests/schema/run.sh

# The contract documents: redocly lint of api/openapi.yaml, api/asyncapi.yaml as AsyncAPI 3.
test-api:
	bash tests/api/run.sh

test-integration: $(BUILD)/rodd
	RODD=$(BUILD)/rodd bash tests/integration/run.sh

# The Python client (clients/python) and the MATLAB client (clients/matlab, run by GNU Octave)
# against the real daemon.
test-python: $(BUILD)/rodd
	RODD=$(BUILD)/rodd bash clients/python/run-tests.sh
test-matlab: $(BUILD)/rodd
	RODD=$(BUILD)/rodd bash clients/matlab/tests/run.sh

# The daemon behind nginx with TLS (deploy/nginx/rodd.conf): REST and streams on one https port.
test-proxy: $(BUILD)/rodd
	RODD=$(BUILD)/rodd bash tests/proxy/run.sh

# The viewer in headless Chromium against the real daemon.
test-browser: $(BUILD)/rodd web/dist/index.html
	RODD=$(BUILD)/rodd bash tests/browser/run.sh

# docs/tutorial.md's commands, run as written (with the daemon on free ports).
test-docs: $(BUILD)/rodd web/dist/index.html
	bash tests/docs/run.sh

# the tutorial's pictures (docs/img), from the real viewer in headless Chromium
docs-pictures: $(BUILD)/rodd web/dist/index.html
	cd tests/browser && { [ -d node_modules/playwright-core ] || PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --ignore-scripts --silent; }
	RODD=$(BUILD)/rodd node tests/browser/pictures.mjs

test-deploy: $(BUILD)/rodd | $(SETUP_STAMP)
	RODD=$(BUILD)/rodd bash tests/deploy/run.sh

# The image built and run with podman (about 5 to 10 minutes on a fresh machine).
test-container:
	bash tests/container/run.sh

# rodd converge's error estimates against converged runs (elastica, cantilever, reaching arm).
test-converge: $(BUILD)/rodd
	BUILD=$(BUILD) bash tests/validation/converge.sh

test-reaching: $(BUILD)/rodd $(BUILD)/octopus_metrics
	BUILD=$(BUILD) bash tests/validation/reaching.sh
	BUILD=$(BUILD) bash tests/validation/authors.sh

# The whole suite: unit, validation, command line, schema, daemon, viewer, deployment files,
# a bounded fuzz run, the engine's tests and the daemon under ASan/UBSan, the daemon under
# ThreadSanitizer, and the engine's tests and the daemon under valgrind.
# The command line's tests and the daemon's integration tests run once, against the ASan and
# UBSan build, which checks all that the native build's run would and memory besides (`make
# test-cli` and `make test-integration` run them against the native build); the native daemon
# meets the clients', Chromium's, the proxy's, the tutorial's and the deployment's tests and
# valgrind.
# In two lanes side by side once the native build, the viewer and the integration tests' npm
# packages are in place: the native tests (which wait on daemons, Chromium and real time for
# part of theirs) then valgrind (it runs the native build), and the sanitizer builds with the
# runs that measure no time (fuzz, the engine's suites and the command line under ASan). One
# after the other they left a core idle for minutes; the lanes share no build directory, port
# (every test takes free ones) or npm folder, and no target of one lane builds a file of the
# other. Each lane stops at its first failure and prints each target's wall and CPU seconds
# (tests/lane.sh); the checked lane's output goes to $(BUILD)/test-checked.log, printed when it
# ends. The daemon under ASan and TSan runs last, alone: its tests hold sessions to real time,
# which a sanitizer build beside the other lane missed (2.19 s of 3 s, CI).
# On two idle cores (a fresh clone, packages installed) it took 1037 s when the command line's
# and the daemon's tests also ran natively and valgrind ran every unit suite: the native lane
# 825 s (Chromium 206, valgrind 241, the command line 91, the daemon 91), the checked lane 562.
# The daemon under valgrind ends the checked lane, which measures no real time either: in a fresh
# clone's run the native lane took 690 s with it, the checked lane 636 without it (its 23 s).
TEST_NATIVE = test-arch test-unit test-validation test-run test-schema test-api test-reaching test-converge test-python test-matlab test-proxy \
              test-browser test-docs test-deploy valgrind-unit valgrind-validation
TEST_CHECKED = fuzz-run asan-engine asan-cli tsan-build valgrind-daemon
test:
	$(MAKE) -j2 $(BUILD)/rodd $(BUILD)/tests/unit_tests $(BUILD)/tests/alloc_tests $(BUILD)/tests/validation_tests $(BUILD)/octopus_metrics
	$(MAKE) web
	bash tests/integration/install.sh
	$(MAKE) -j2 --no-print-directory test-lane-native test-lane-checked
	bash tests/lane.sh sanitized-daemon asan-integration tsan
test-lane-native:
	bash tests/lane.sh native $(TEST_NATIVE)
test-lane-checked:
	@echo "make test: $(TEST_CHECKED) beside the native tests, into $(BUILD)/test-checked.log"
	@if bash tests/lane.sh checked $(TEST_CHECKED) > $(BUILD)/test-checked.log 2>&1; then \
	    cat $(BUILD)/test-checked.log; echo "make test: $(TEST_CHECKED) passed"; \
	 else cat $(BUILD)/test-checked.log; echo "make test: $(TEST_CHECKED) FAILED (above)"; exit 1; fi

# one Criterion worker per process: with two, Criterion's runner itself leaks a few bytes (no
# rodd frame in the trace) and LeakSanitizer fails the run; the validation suite runs as two
# such processes side by side (tests/run_split.sh)
# The sanitizers look for memory and thread errors along code paths, which the long validation
# runs (minutes of simulated contact, locomotion and the plectoneme, seconds each natively)
# walk again and again: under ASan they leave those out, the same code being run by the shorter
# contact, friction, free-base and self-contact tests. The builds run two compilers at once.
SANITIZER_SKIP = self_contact/fig9*|locomotion/fig1[09]*|free_friction/fig17[df]*|contact/a_cantilever_dropped*|free_base/generalized_alpha_spin*
# ASan also leaves out validation tests whose code another test runs under ASan (the suite under
# ASan 254 -> 220 CPU s here), each with the test that covers it:
#   dynamics/vertical_oscillation (9 s): bodies/heavy_end_mass_of_seed_002_fig4, the same hanging
#     stretch-only rod of seed 002's Fig. 4 with its end mass;
#   mitchell's ratio 1 (7 s): mitchell's ratio 2, the same twisted ring and bracket;
#   contact/above_the_threshold (7 s): the same incline in contact/below_the_static_threshold,
#     the kinetic branch in contact/forward_and_backward_slides and free_friction/fig17b's slip;
#   assembly_penalty's undamped ball joint (7 s): the penalty rows in assembly_penalty's statics
#     and in unit assembly_spec's checkpoint of moving penalty rods (dynamics), a ball joint's rows
#     in assembly/ball_joint_passes_no_moment;
#   assembly/fixed_joint_halves (6 s, the one rod again at degree 16): fixed-joint halves in
#     statics in assembly_constraints/halves_with_a_held_tip_equal_one_rod_with_it.
# The coverage run keeps them (SANITIZER_SKIP only).
ASAN_SKIP = $(SANITIZER_SKIP)|dynamics/vertical_oscillation*|mitchell/*_1|contact/above_the_threshold*|assembly_penalty/an_undamped*|assembly/fixed_joint_halves*
asan: asan-engine asan-daemon
# the engine's suites under ASan (no test of theirs measures real time)
asan-engine:
	$(MAKE) -j2 BUILD=build-asan SAN=1 build-asan/rodd build-asan/tests/unit_tests build-asan/tests/alloc_tests build-asan/tests/validation_tests
	$(MAKE) BUILD=build-asan SAN=1 CRITERION_JOBS=1 test-unit
	bash tests/run_split.sh build-asan/tests/validation_tests '$(ASAN_SKIP)'
# the command line and the daemon under ASan: the command line's tests measure no real time
# and run in make test's checked lane; some of the daemon's hold it to real time and run last
asan-daemon: asan-cli asan-integration
asan-cli:
	$(MAKE) -j2 BUILD=build-asan SAN=1 build-asan/rodd
	$(MAKE) BUILD=build-asan SAN=1 CRITERION_JOBS=1 test-cli
asan-integration:
	$(MAKE) -j2 BUILD=build-asan SAN=1 build-asan/rodd
	$(MAKE) BUILD=build-asan SAN=1 test-integration

# Line coverage (gcov) of core/ and server/: everything built with --coverage into build-cov/,
# then the unit and allocation tests, the validation suite without the sanitizers' long runs
# (SANITIZER_SKIP), the CLI and the integration tests; tests/coverage.py prints each file's
# lines run and the totals per folder. COVERAGE_TESTS=core stops after the validation suite.
COVERAGE_TESTS ?= all
coverage:
	rm -f $$(find build-cov -name '*.gcda' 2>/dev/null)
	$(MAKE) -j2 BUILD=build-cov OPT='-O0 -g --coverage' CORE_OPT='-O0 -g --coverage' LDFLAGS=--coverage \
	  build-cov/rodd build-cov/rodd-full build-cov/tests/unit_tests build-cov/tests/alloc_tests build-cov/tests/validation_tests
	build-cov/tests/unit_tests --jobs 2 >/dev/null
	build-cov/tests/alloc_tests --jobs 2 >/dev/null
	bash tests/run_split.sh build-cov/tests/validation_tests '$(SANITIZER_SKIP)' >/dev/null
	if [ "$(COVERAGE_TESTS)" = all ]; then for t in run export mcap front; do \
	  RODD=build-cov/rodd bash tests/cli/$$t.sh >/dev/null || exit 1; done; \
	  RODD=build-cov/rodd bash tests/integration/run.sh >/dev/null; fi
	python3 tests/coverage.py build-cov

# two Criterion workers, each test in its own valgrind'ed child with its own log (the runner
# under valgrind reports nothing with two, unlike under LeakSanitizer). What valgrind finds that
# ASan and UBSan do not is a read of uninitialised memory, and under it every test costs about
# 1.3 CPU s of start-up (a fresh memcheck per Criterion child) before its first line: its unit
# run, 155 tests and 300 CPU s, was a fifth of make test. It runs the suites that take input from
# outside (the spec and its parts, profiles and their native expressions, the config,
# checkpoints, requests, the stream's handshake, frames and byte pump, the optimizer's daemon
# client, exports and recordings, the disk budget), where a field left unset by a parser or a codec is the bug to fear. The engine's
# unit suites (maths, contact, friction, statics, muscles, ramps, the optimizers, the error
# paths) run under ASan and UBSan, and the engine's code under valgrind through the validation
# statics and dynamics below and the daemon's tests.
VALGRIND_UNIT = '@(accept|assembly_spec|checkpoint_inputs|config|disk_budget|export_rods|export_text|expr_native|foxws|frame_codec|input_profile|json_syntax|mcap|optim_http|profile|spec|spec_constraints|splice|stream_handshake|ws_frame_guard)/*'
# Of the validation suite, valgrind runs the statics (one process each: most of their cost is
# valgrind starting the test binary, about 1.4 CPU s) and three dynamics tests, for reads of
# uninitialised memory (ASan runs them all, with LeakSanitizer). Two statics are left to ASan: the
# elastica at many loads and the basis-degree study (18 and 12 s of the statics' 58 under
# valgrind), the same Newton statics that the other eighteen run under valgrind once each.
VALGRIND_VALIDATION = '@(statics*/!(cantilever_under_dead_tip_force*|tip_converges_as_the_basis*)|dynamics/[ar]*)'
valgrind: valgrind-unit valgrind-validation valgrind-daemon
valgrind-unit valgrind-validation: export VALGRIND_JOBS = 2
valgrind-unit: $(BUILD)/tests/unit_tests $(BUILD)/tests/alloc_tests
	VALGRIND_FILTER=$(VALGRIND_UNIT) bash tests/valgrind.sh $(BUILD)/tests/unit_tests
	bash tests/valgrind.sh $(BUILD)/tests/alloc_tests
valgrind-validation: $(BUILD)/tests/validation_tests
	VALGRIND_FILTER=$(VALGRIND_VALIDATION) bash tests/valgrind.sh $(BUILD)/tests/validation_tests
valgrind-daemon: $(BUILD)/rodd
	RODD=$(BUILD)/rodd bash tests/integration/checked.sh valgrind

# The daemon built with ThreadSanitizer, under the concurrency and contract tests.
tsan: tsan-build
	RODD=build-tsan/rodd bash tests/integration/checked.sh tsan
tsan-build:
	$(MAKE) -j2 BUILD=build-tsan SAN=thread build-tsan/rodd

# Stream churn over real sockets for minutes (tests/soak/stream_churn.py; make test runs three
# short variants in tests/integration/churn.test.mjs): issue 27's reproducer as filed (300
# silent streams from 127.0.0.2-21, the churn from 2 s before their 25 s idle drop for 14 s),
# then the same with every stream admitted, refusals at the limit, and on the stream port;
# SOAK_RUNS runs of each (about 40 s each for the first, 10-25 s for the others), a fresh daemon
# every run. SOAK_RODD picks the binary (build-asan/rodd, build-tsan/rodd).
SOAK_RUNS ?= 3
SOAK_RODD ?= $(BUILD)/rodd
soak: $(BUILD)/rodd
	python3 tests/soak/stream_churn.py --rodd $(SOAK_RODD) --runs $(SOAK_RUNS)
	python3 tests/soak/stream_churn.py --rodd $(SOAK_RODD) --runs $(SOAK_RUNS) --holders 300 --max-streams 400 --idle 21 --lead 21 --churn 20
	python3 tests/soak/stream_churn.py --rodd $(SOAK_RODD) --runs $(SOAK_RUNS) --holders 300 --max-streams 64 --idle 8 --lead 1 --churn 10 --expect-opened
	python3 tests/soak/stream_churn.py --rodd $(SOAK_RODD) --runs $(SOAK_RUNS) --via stream --holders 300 --max-streams 256 --idle 8 --lead 1 --churn 10 --expect-opened

# The spec parser's harness and the daemon's inputs, each with its own harness
# (tests/fuzz/fuzz_NAME.c) and seed corpus (tests/fuzz/NAME/): REST requests through the
# daemon's routing, stream messages, checkpoint files, the config file, the tokens file and the
# stream handshake's text that the REST port passes on. Their objects are built once with the
# fuzzer's instrumentation (build/fuzz-obj, two compilers at once) and linked into each: the
# spec's harness links core's alone (it was compiled from core's sources in one clang command
# of its own, a second serial build of core/).
FUZZ_SURFACES = rest stream checkpoint config tokens handshake wsguard
FUZZ_OBJ_FLAGS = -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -g -O1 -std=c11 -Wall -Wextra -Werror $(HDF5_CFLAGS) \
                 -Icore $(CORE_INC) $(SERVER_INC) -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -pthread
FUZZ_CORE_OBJ = $(patsubst %.c,$(BUILD)/fuzz-obj/%.o,$(CORE_SRC))
FUZZ_OBJ = $(FUZZ_CORE_OBJ) $(patsubst %.c,$(BUILD)/fuzz-obj/%.o,$(filter-out server/process/main.c,$(SERVER_SRC)))
$(BUILD)/fuzz_spec: tests/fuzz/fuzz_spec.c $(FUZZ_CORE_OBJ)
	clang $(FUZZ_OBJ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_CORE_OBJ) $(LDLIBS)
# kept between builds: as intermediates of a pattern chain make would delete them after each link
.SECONDARY: $(FUZZ_OBJ)
$(BUILD)/fuzz-obj/%.o: %.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	clang $(FUZZ_OBJ_FLAGS) -MMD -MP -c $< -o $@
$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	clang $(FUZZ_OBJ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) $(SERVER_LIBS) $(LDLIBS)
fuzz: $(BUILD)/fuzz_spec $(FUZZ_SURFACES:%=$(BUILD)/fuzz_%)

# `make test` runs each briefly on its corpus (FUZZ_SECONDS for the spec, FUZZ_SURFACE_SECONDS
# for each of the others); `make fuzz-long` runs each for FUZZ_LONG_SECONDS (a night: 9 h over
# eight surfaces) and prints the executions each ran.
FUZZ_RUN = -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
# the eight runs two at a time (each is bounded by its wall time and uses one core: one after
# the other they left the second core idle for 31 s), each with its own corpus and log
fuzz-run:
	$(MAKE) -j2 fuzz
	$(MAKE) -j2 --no-print-directory fuzz-run-spec $(FUZZ_SURFACES:%=fuzz-run-%)
fuzz-run-spec:
	@mkdir -p $(BUILD)/fuzz-corpus
	@if ! $(BUILD)/fuzz_spec -max_total_time=$${FUZZ_SECONDS:-10} $(FUZZ_RUN) -dict=tests/fuzz/spec.dict \
	    $(BUILD)/fuzz-corpus tests/fuzz/corpus api/examples > $(BUILD)/fuzz-spec.log 2>&1; then \
	    tail -60 $(BUILD)/fuzz-spec.log; exit 1; fi
	@echo "fuzz spec: $$(grep -h stat::number_of_executed_units $(BUILD)/fuzz-spec.log)"
fuzz-run-%:
	@mkdir -p $(BUILD)/fuzz-corpus-$*
	@if ! $(BUILD)/fuzz_$* -max_total_time=$${FUZZ_SURFACE_SECONDS:-3} $(FUZZ_RUN) \
	    $(BUILD)/fuzz-corpus-$* tests/fuzz/$* > $(BUILD)/fuzz-$*.log 2>&1; then \
	    tail -60 $(BUILD)/fuzz-$*.log; exit 1; fi
	@echo "fuzz $*: $$(grep -h stat::number_of_executed_units $(BUILD)/fuzz-$*.log)"
fuzz-long: fuzz
	@set -e; for s in spec $(FUZZ_SURFACES); do \
	    mkdir -p $(BUILD)/fuzz-corpus-$$s; \
	    seeds=tests/fuzz/$$s; [ $$s = spec ] && seeds="tests/fuzz/corpus api/examples"; \
	    if ! $(BUILD)/fuzz_$$s -max_total_time=$${FUZZ_LONG_SECONDS:-4100} $(FUZZ_RUN) \
	        $(BUILD)/fuzz-corpus-$$s $$seeds > $(BUILD)/fuzz-long-$$s.log 2>&1; then \
	        tail -60 $(BUILD)/fuzz-long-$$s.log; exit 1; fi; \
	    echo "$$s: $$(grep -h stat::number_of_executed_units $(BUILD)/fuzz-long-$$s.log)"; \
	done

$(BUILD)/bench_statics: tests/bench/bench_statics.c tests/bench/bench_util.h $(BUILD)/librodcore.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/librodcore.a $(LDLIBS)

$(BUILD)/bench_dynamics: tests/bench/bench_dynamics.c tests/bench/bench_util.h $(BUILD)/librodcore.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/librodcore.a $(LDLIBS)

$(BUILD)/octopus_metrics: tests/validation/tools/octopus_metrics.c | $(SETUP_STAMP)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -lcjson -lm

REC_OBJ = $(addprefix $(BUILD)/server/,io/recording.o io/export.o io/export_text.o io/export_hdf5.o io/frame_codec.o \
          io/frame_fields.o io/frame_mech.o io/disk_budget.o util/log.o io/export_mcap.o \
          io/mcap_writer.o io/foxglove_channels.o)
$(BUILD)/bench_recording: tests/bench/bench_recording.c tests/bench/bench_util.h $(REC_OBJ) $(BUILD)/librodcore.a
	$(CC) $(CPPFLAGS) $(SERVER_INC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(REC_OBJ) $(BUILD)/librodcore.a $(HDF5_LIBS) $(ZSTD_LIBS) $(LDLIBS)

bench: $(BUILD)/rodd $(BUILD)/bench_statics $(BUILD)/bench_dynamics $(BUILD)/bench_recording
	BUILD=$(BUILD) bash tests/bench/run.sh
	$(BUILD)/bench_recording

# The snake's evaluations by time window and forward speeds over 23 perturbed variants: its gait
# is chaotic, and one run's cost moves by up to 10 % with a rounding (ENSEMBLE_ARGS='--vs OTHER_RODD'
# compares two builds).
bench-ensemble: $(BUILD)/rodd
	python3 tests/bench/snake_ensemble.py --rodd $(BUILD)/rodd $(ENSEMBLE_ARGS)

# The engine's AVX2 clones against a build without them: the same frames, and the CPU each takes.
bench-clones: $(BUILD)/rodd
	BUILD=$(BUILD) bash tests/bench/clones.sh

# The daemon under load: real-time reaching sessions with two 30 Hz viewers each.
# The open-loop REST load of bench-load --reach (plain C: no engine, no libraries).
$(BUILD)/bench_rest_load: tests/bench/rest_load.c | $(SETUP_STAMP)
	$(CC) $(CFLAGS) -D_GNU_SOURCE -o $@ $<

bench-load: $(BUILD)/rodd $(BUILD)/bench_rest_load
	@[ -d tests/integration/node_modules/ws ] || (cd tests/integration && npm ci --no-audit --no-fund --silent)
	RODD=$(BUILD)/rodd node tests/bench/load.mjs $(LOAD_ARGS)

# What a commanded (10-100 PUT/s) or a failing session costs itself and four others.
bench-isolation: $(BUILD)/rodd
	@[ -d tests/integration/node_modules/ws ] || (cd tests/integration && npm ci --no-audit --no-fund --silent)
	RODD=$(BUILD)/rodd node tests/bench/isolation.mjs $(ISOLATION_ARGS)

# A controller that owns the clock: POST :step round trips on the reaching arm (issue 15).
bench-lockstep: $(BUILD)/rodd
	@[ -d tests/integration/node_modules/ws ] || (cd tests/integration && npm ci --no-audit --no-fund --silent)
	RODD=$(BUILD)/rodd node tests/bench/lockstep.mjs $(LOCKSTEP_ARGS)

# A stream on the REST port against the stream port of its own: added latency of the same
# frame, and the daemon's CPU per stream (the pump thread's share apart).
bench-oneport: $(BUILD)/rodd
	@[ -d tests/integration/node_modules/ws ] || (cd tests/integration && npm ci --no-audit --no-fund --silent)
	RODD=$(BUILD)/rodd node tests/bench/oneport.mjs $(ONEPORT_ARGS)

# The viewer's frame rate and memory in headless Chromium: a 101-point rod at 60 Hz for 60 s
# (PERF_ARGS="--seconds 600" for the soak).
bench-viewer: $(BUILD)/rodd web/dist/index.html
	RODD=$(BUILD)/rodd node tests/browser/perf.mjs $(PERF_ARGS)

clean:
	rm -rf build build-asan build-tsan

-include $(CORE_OBJ:.o=.d) $(SERVER_OBJ:.o=.d) $(FRONT_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(ALLOC_OBJ:.o=.d) $(VALID_OBJ:.o=.d) $(TEST_SUPPORT_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d)
