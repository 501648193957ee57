# tableref: every target creates .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow test-pi-deps test-pi-arm64 bench lint gallery clean

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/tableref demo

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/pytest -q

test-slow: $(STAMP)
	$(BIN)/pytest -q -m slow

# The default tests on the Raspberry Pi's dependency set (numpy 1.24 as Bookworm ships it,
# OpenCV 4.11) in a venv of its own: the code must run on OpenCV 4.11 and 5.0 alike.
PI_VENV := .venv-pi
test-pi-deps:
	test -d $(PI_VENV) || $(PYTHON) -m venv $(PI_VENV)
	$(PI_VENV)/bin/pip install --quiet --upgrade pip
	$(PI_VENV)/bin/pip install --quiet -e '.[dev,pi]' 'numpy==1.24.*'
	$(PI_VENV)/bin/python -c "import cv2, numpy; print('OpenCV', cv2.__version__, 'numpy', numpy.__version__)"
	$(PI_VENV)/bin/pytest -q -p no:cacheprovider

# The same on arm64: Bookworm's own Python and numpy under qemu as a Pi 4's Cortex-A72
# (root, debootstrap and qemu-user-static; about 5 minutes; tests/device/test_pi_deps_arm64.py).
test-pi-arm64: $(STAMP)
	TABLEREF_PI_ROOT_PROOF=1 $(BIN)/pytest -q -m slow -rs tests/device/test_pi_deps_arm64.py

bench: $(STAMP)
	$(BIN)/python -m bench

gallery: $(STAMP)
	$(BIN)/python -m vision.render.gallery

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) $(PI_VENV) build *.egg-info .pytest_cache
