# Set-up and the two entry points: `make all` (the main job) and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEBS := $(VENV)/.debs-main
TESTDEBS := $(VENV)/.debs-test
CORES ?= 8
# pytest-xdist workers for `make test` (tests/conftest.py says which modules share one). More than the 2 cores: the
# hardware chain, the SLURM polls and the JVMs mostly wait, and the other scopes run at nice 10 beside that chain
TEST_WORKERS ?= 4
# the compiled trace readers (native/): cargo from rustup's default place when not on PATH
export PATH := $(PATH):$(HOME)/.cargo/bin
NATIVE := native/target/release/blkscope-native

.PHONY: all test setup native native-unit-tests parquet-check parquet-check-test lint lock experiments report clean
.DEFAULT_GOAL := all

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -r requirements.lock
	$(BIN)/pip install -q --disable-pip-version-check --no-deps -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $@

$(DEBS): deps/debian-main.txt scripts/ensure-debs.sh | $(STAMP)
	scripts/ensure-debs.sh deps/debian-main.txt
	touch $@

# after $(DEBS): apt-get takes one dpkg lock, so under `make -j` the two lists install one after the other
$(TESTDEBS): deps/debian-test.txt deps/debian-capture.txt deps/debian-slurm.txt scripts/ensure-debs.sh | $(STAMP) $(DEBS)
	scripts/ensure-debs.sh deps/debian-test.txt deps/debian-capture.txt deps/debian-slurm.txt
	touch $@

$(NATIVE): native/Cargo.toml native/Cargo.lock native/.cargo/config.toml $(wildcard native/src/*.rs native/src/*/*.rs)
	# in native/: cargo finds .cargo/config.toml (target-cpu=native) from the working directory, not the manifest
	cd native && cargo build --release --locked --quiet
	touch $@

native: $(NATIVE)

# `make test`'s build of the crate: profile `testing` (native/Cargo.toml: optimised, no fat LTO, 16 codegen units).
# Its unit tests and the program the Python tests run (BLKSCOPE_NATIVE) share one build of the dependencies, so a
# clean clone's `make test` never waits for the release build's fat LTO (that is `make all`'s).
NATIVE_TEST := native/target/testing/blkscope-native
$(NATIVE_TEST): native/Cargo.toml native/Cargo.lock native/.cargo/config.toml $(wildcard native/src/*.rs native/src/*/*.rs)
	cd native && cargo build --profile testing --locked --quiet
	touch $@

# arrow-rs's reader and writer against ours. The bench (bench/parquet_writer) times the release build (fat LTO,
# as native/); the tests only read files with it and take profile `crosscheck` (opt-level 0, no LTO) without
# feature `ingest` (native/src's decoders and their crates): tools/parquet-check/Cargo.toml.
# `make test` builds it first; tests/test_parquet_readers.py builds it when run alone.
PQCHECK := tools/parquet-check/target/release/parquet-check
PQCHECK_TEST := tools/parquet-check/target/crosscheck/parquet-check
# the test build compiles none of native/src (build.rs returns early without feature `ingest`)
PQCHECK_OWN := tools/parquet-check/Cargo.toml tools/parquet-check/Cargo.lock tools/parquet-check/.cargo/config.toml \
	tools/parquet-check/build.rs $(wildcard tools/parquet-check/src/*.rs)
$(PQCHECK): $(PQCHECK_OWN) $(wildcard native/src/*.rs native/src/*/*.rs)
	cd tools/parquet-check && cargo build --release --locked --quiet
	touch $@

$(PQCHECK_TEST): $(PQCHECK_OWN)
	cd tools/parquet-check && cargo build --profile crosscheck --no-default-features --locked --quiet
	touch $@

parquet-check: $(PQCHECK)
parquet-check-test: $(PQCHECK_TEST)

# The package's bytecode, written once: where the environment sets PYTHONDONTWRITEBYTECODE (this machine's does),
# every `blkscope` start compiled each module it imports, ~20 of a trace ingest's ~60 ms of Python
# (bench/RESULTS.md, 2026-12-01 twelfth session). A source edited later is compiled in memory as before.
PYC := $(VENV)/.bytecode
$(PYC): $(shell find src/blkscope -name '*.py') | $(STAMP)
	$(BIN)/python -m compileall -q src/blkscope
	touch $@

setup: $(STAMP) $(DEBS) $(NATIVE) $(PYC)

all: setup
	source $(BIN)/activate && snakemake --cores $(CORES) all

lint: $(STAMP)
	$(BIN)/ruff check .
	source $(BIN)/activate && scripts/lint-workflow.sh

# The native crate's unit tests, in profile `testing` as the program pytest runs (above): a prerequisite of `test`,
# not a step of its recipe, so that under `make -j2` their compile overlaps pip, the Debian lists and the other
# builds instead of running alone between them and pytest.
native-unit-tests: $(NATIVE_TEST)
	cd native && cargo test --profile testing --locked --quiet

# pytest --strict-skips: a skip that tests/allowed_skips.toml does not list fails the run; -rs prints every skip.
# $(PQCHECK_TEST) is built here, not first by tests/test_parquet_readers.py's fixture: under `make -j2` its compile
# overlaps pip and the Debian lists instead of sharing the CPU with pytest's other worker (the fixture's make then
# finds it up to date).
test: lint $(DEBS) $(TESTDEBS) $(NATIVE_TEST) $(PQCHECK_TEST) $(PYC) native-unit-tests
	source $(BIN)/activate && BLKSCOPE_NATIVE=$(CURDIR)/$(NATIVE_TEST) pytest -q -n $(TEST_WORKERS) -rs --strict-skips

# HTML report of every figure and table with its provenance (after `make all`).
report: setup
	source $(BIN)/activate && snakemake --report report.html

# Hardware runs (root): produce new data/raw directories. Never part of `all`.
experiments: setup
	scripts/ensure-debs.sh deps/debian-capture.txt
	source $(BIN)/activate && snakemake --cores 1 experiments

# Re-resolve the pins after editing requirements.in; regenerates envs/blkscope.yaml to match.
lock:
	rm -rf .lockvenv && $(PYTHON) -m venv .lockvenv
	.lockvenv/bin/pip install -q -r requirements.in
	( echo '# Exact pins of every Python package (generated by `make lock` from requirements.in; Python 3.11).'; \
	  .lockvenv/bin/pip freeze --exclude-editable ) > requirements.lock
	rm -rf .lockvenv
	$(BIN)/python scripts/lock_to_conda.py requirements.lock > envs/blkscope.yaml

clean:
	rm -rf data/processed paper/generated paper/main.pdf notebooks/executed .snakemake
