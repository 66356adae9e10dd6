# Two commands: `make run` (set up, start the app on the bundled decks) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
EXTRAS ?= torch,plots,anki,memory,sync,dev

.PHONY: setup run test bench lint schema clean

setup: $(STAMP)

# pip would byte-compile all ~8,800 installed files (31 s, mostly torch's); instead the modules that
# the app and the tests import are compiled by importing them once (torch in a process of its own
# beside the rest: 4 s and 6 s). The rest compile when first imported, as any module does.
WARM_MODULES := torch studykit.cli studykit.tui.app textual.widgets sympy anki.collection genanki \
	fsrs textual_plotext plotext hypothesis pytest xdist syrupy pytest_asyncio importlinter
define WARM_BYTECODE
import importlib, importlib.util, subprocess, sys
names = [n for n in sys.argv[1:] if importlib.util.find_spec(n.partition(".")[0]) is not None]
beside = [subprocess.Popen([sys.executable, "-c", f"import {n}"]) for n in names[:1]]
for name in names[1:]:
    importlib.import_module(name)
sys.exit(max([child.wait() for child in beside], default=0))
endef
export WARM_BYTECODE

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-compile -c constraints.txt -e '.[$(EXTRAS)]'
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m compileall -q -j 0 studykit
	env -u PYTHONDONTWRITEBYTECODE $(PY) -c "$$WARM_BYTECODE" $(WARM_MODULES)
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/studykit

# Half again as many workers as cores: many tests wait (a Pilot settling, a child's clock, a
# sync server), and a third worker fills those waits (2 cores: 3 workers 235 s, 2 workers 290 s).
# worksteal: a worker that runs dry takes queued tests from another (a few long tests).
# Byte code is cached even where PYTHONDONTWRITEBYTECODE is set: the suite starts hundreds of
# Python processes, and each would compile studykit and the rewritten tests again.
TEST_WORKERS ?= $(shell $(PYTHON) -c "import os; n = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count() or 1; print(max(2, n * 3 // 2))")
test: $(STAMP)
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

lint: $(STAMP)
	$(VENV)/bin/ruff check studykit tests benchmarks
	$(VENV)/bin/ruff format --check studykit tests benchmarks
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# Regenerate the editor schemas after changing studykit/content/model.py (a test fails until you do).
schema: $(STAMP)
	$(VENV)/bin/studykit schema deck -o schema/deck.schema.json
	$(VENV)/bin/studykit schema note -o schema/note.schema.json

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
