# ragmon — `make run` starts the daemon on built-in demo traffic; `make test` runs everything.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEV    := $(VENV)/.installed-dev

.PHONY: install install-dev compile run test unit lint docs format bench kafka-up kafka-down clean otel-corpus verdicts alert-scenarios export-libs

# install: what `ragmon` needs to run; install-dev: also the test and lint tools.
install: $(STAMP)

install-dev: $(DEV)

$(STAMP): pyproject.toml
	@echo "installing ragmon and its dependencies into $(VENV) (about a minute, once)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	@# the checks compiled with mypyc when a C compiler is present (RAGMON_MYPYC=0: never;
	@# require: a failed compile is an error); it says which build it made
	$(BIN)/python deploy/compile.py
	touch $(STAMP)
	@echo "ragmon is installed in $(BIN): run '. $(BIN)/activate' to put it on your PATH"

$(DEV): $(STAMP)
	@echo "installing the test and lint tools into $(VENV) (a few minutes, once)"
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(DEV)

# Rebuild the compiled checks (after changing a check: a changed source runs interpreted until
# then). RAGMON_MYPYC=0 removes them.
compile: install
	$(BIN)/python deploy/compile.py --force --mode $${RAGMON_MYPYC:-1}

run: install
	$(BIN)/ragmon run $(if $(CONFIG),--config $(CONFIG))

# The whole suite: lint, types, unit and integration tests, with every service they need
# started before pytest and stopped after (also on failure) by deploy/run-tests.sh.
test: install-dev lint docs export-libs
	$(BIN)/python deploy/compile.py --mode require
	bash deploy/prometheus/install.sh
	bash deploy/browser/install.sh
	bash deploy/collector/install.sh
	PATH="$(CURDIR)/$(BIN):$$PATH" TEST_EXPECT_COMPILED=1 bash deploy/run-tests.sh $(PYTEST_ARGS)

unit: install-dev
	$(BIN)/pytest -q tests/unit $(PYTEST_ARGS)

lint: install-dev
	$(BIN)/ruff check monitor sinks tests bench deploy dashboards
	$(BIN)/ruff format --check monitor sinks tests bench deploy dashboards
	$(BIN)/mypy
	$(BIN)/deptry .
	$(BIN)/lint-imports

# The documentation site from docs/ (MkDocs, Material theme) into site/: warnings are errors,
# every internal link and anchor is checked, and the reference pages are generated from the
# code (deploy/docs_reference.py).
docs: install-dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

format: install-dev
	$(BIN)/ruff format monitor sinks tests bench deploy dashboards
	$(BIN)/ruff check --fix monitor sinks tests bench deploy dashboards

bench: install-dev
	$(BIN)/python bench/checks.py
	$(BIN)/python bench/otlp.py

# Regenerate the verdict guard's stored results (tests/verdicts/stored: one file per check,
# the judge, the rest of the line) after an intended change of a check, the judge or a
# mapping: it prints per check how many results flipped each way; commit the diff with it.
verdicts: install-dev
	$(BIN)/python -m tests.verdicts

# Detection and false-alarm figures of the rate alerts, through promtool (~40 min on 2 cores;
# QUICK=1 for a shorter run). Needs promtool: bash deploy/prometheus/install.sh
alert-scenarios: install-dev
	$(BIN)/python deploy/prometheus/scenarios.py $(if $(QUICK),--quick)

# Ragas and DeepEval, which the tests load ragmon's golden exports with, in a virtualenv of
# their own (DeepEval brings pytest plugins and pins that do not belong in ragmon's); uv
# installs the ~120 pinned packages in seconds where pip takes minutes (pip if uv fails).
EXPORT_VENV ?= .venv-export-libs
export-libs: $(EXPORT_VENV)/.installed

$(EXPORT_VENV)/.installed: tests/export_libs/requirements.txt $(DEV)
	test -x $(EXPORT_VENV)/bin/python || $(PYTHON) -m venv $(EXPORT_VENV)
	$(BIN)/uv pip install --quiet --python $(EXPORT_VENV)/bin/python -r tests/export_libs/requirements.txt \
	  || $(EXPORT_VENV)/bin/python -m pip install --quiet -r tests/export_libs/requirements.txt
	touch $@

# Regenerate the OTLP corpus (tests/otel_corpus) by running real instrumented pipelines with
# the pinned instrumentation packages; commit the diff on purpose.
CORPUS_VENV ?= .venv-otel-corpus
# One venv per requirements file: traceloop-sdk pins another opentelemetry-sdk than the rest.
otel-corpus:
	for req in requirements.txt requirements-traceloop.txt requirements-openai-v2.txt \
	    requirements-haystack.txt requirements-agents.txt requirements-google-genai.txt \
	    requirements-langgraph.txt requirements-dspy.txt requirements-bedrock.txt \
	    requirements-smolagents.txt requirements-pydantic-ai.txt requirements-strands.txt \
	    requirements-google-adk.txt; do \
	  venv=$(CORPUS_VENV)/$${req%.txt}; \
	  test -x $$venv/bin/python || $(PYTHON) -m venv $$venv || exit 1; \
	  $$venv/bin/python -m pip install --quiet -r tests/otel_corpus/$$req || exit 1; \
	  $$venv/bin/python tests/otel_corpus/generate.py --requirements $$req || exit 1; \
	done

# A local single-node Kafka broker on 127.0.0.1:9092 (LOCAL_KAFKA_PORT to change it).
kafka-up: install
	PYTHON=$(BIN)/python bash deploy/kafka/kafka-up.sh

kafka-down:
	bash deploy/kafka/kafka-down.sh

clean:
	rm -rf $(VENV) $(CORPUS_VENV) $(EXPORT_VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info
