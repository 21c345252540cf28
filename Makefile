# Two entry points for a new user: `make run` and `make test`. Both create .venv on first use
# and reuse it afterwards; the stamp files re-install only when pyproject.toml changes.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SPEC   ?= examples/surface-mlp.yaml

.PHONY: run test docs bench-accuracy bench-predict bench-drift bench-published bench-big bench-catalog bench-cpu bench-parallel bench-scripts bench-device bench-device-dry bench-scripts-gpu bench-stability bench-tui-start bench-multinode clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/planner estimate $(SPEC) --region us-east-1

test: $(VENV)/.installed-dev
	$(BIN)/python -m ruff check .
	$(BIN)/python -m ruff format --check .  # one width (100), as ruff formats it
	$(BIN)/python -m mypy
	$(BIN)/lint-imports  # the layering contracts (pyproject's [tool.importlinter])
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --site-dir site  # the docs site (not -q: mkdocs 1.6 then passes warnings in strict mode)
	$(BIN)/python -m pytest -q -n 4 --dist worksteal -m "not serial"  # four workers on two cores (most tests wait on a pilot, a child or moto: 8.5 min where three took 11.4): the tests that do not time this machine
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest -q -n 2 -m serial  # the tests that measure it (tests/conftest.py SERIAL): two workers, one torch thread each, so each measures on a core of its own

# Every sample output in README.md and docs/ regenerated from real commands, the CLI reference from the parser, then
# the site built with --strict into site/ (docs/gen.py; about three minutes: it measures)
docs: $(VENV)/.installed-dev
	$(BIN)/python docs/gen.py

bench-accuracy: $(VENV)/.installed
	$(BIN)/python benchmarks/accuracy.py

bench-predict: $(VENV)/.installed
	$(BIN)/python benchmarks/predict_accuracy.py

bench-published: $(VENV)/.installed
	$(BIN)/python benchmarks/published.py

bench-parallel: $(VENV)/.installed
	$(BIN)/python benchmarks/parallel.py

bench-stability: $(VENV)/.installed
	$(BIN)/python benchmarks/stability.py

bench-tui-start: $(VENV)/.installed
	$(BIN)/python benchmarks/tui_start.py

bench-drift: $(VENV)/.installed
	$(BIN)/python benchmarks/drift.py

bench-big: $(VENV)/.installed
	$(BIN)/python benchmarks/big_estimate.py

bench-catalog: $(VENV)/.installed
	$(BIN)/python benchmarks/catalog_scale.py

bench-scripts: $(VENV)/.installed
	$(BIN)/python benchmarks/scripts.py

bench-multinode: $(VENV)/.installed  # needs root: two network namespaces joined by a veth pair
	$(BIN)/python benchmarks/multinode.py

bench-scripts-gpu: $(VENV)/.installed
	$(BIN)/python benchmarks/scripts_gpu.py

bench-cpu: $(VENV)/.installed
	$(BIN)/python benchmarks/cpu_unmeasured.py

# The GPU check (benchmarks/device.py): on a machine with a CUDA GPU, with the torch it has (no venv needed there);
# the dry run checks the whole path on this CPU (tests/test_bench_device.py runs it in make test)
bench-device:
	$(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON)) benchmarks/device.py

bench-device-dry: $(VENV)/.installed
	$(BIN)/python benchmarks/device.py --dry-run

clean:
	rm -rf $(VENV) build site *.egg-info
