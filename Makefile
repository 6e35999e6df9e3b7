# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench clean xvfb-packages xvfb-deps package package-test \
	install-desktop uninstall-desktop

# (Re)install when the project's dependency list changes.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[desktop,test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/hermes-studio $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check engine desktop tests bench
	$(BIN)/lint-imports

test: lint
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q $(PYTEST_ARGS)

# Every benchmark runs even when one misses its target; the exit status says if any did.
bench: $(STAMP)
	status=0; for script in bench/[!_]*.py; do $(BIN)/python $$script || status=1; done; exit $$status

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build dist

# The self-contained app (packaging/): dist/hermes-studio/ with both commands, and an
# archive of it. The build tools come from the `package` extra.
PACKAGE_STAMP := $(VENV)/.installed-package
BUNDLE := dist/hermes-studio/hermes-studio

$(PACKAGE_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[desktop,test,package]'
	touch $(PACKAGE_STAMP)

package: $(PACKAGE_STAMP)
	$(BIN)/python packaging/build.py

$(BUNDLE):
	$(MAKE) package

# The frozen app run from its unpacked archive with a clean environment, and the engine
# installed alone into a fresh venv (tests/packaging; `make test` skips them).
package-test: package
	HERMES_PACKAGE_TEST=1 QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q tests/packaging

# The app in the desktop's menu, for this user ($$XDG_DATA_HOME, default ~/.local/share).
install-desktop: $(BUNDLE)
	sh packaging/linux/install-desktop.sh install dist/hermes-studio

uninstall-desktop:
	sh packaging/linux/install-desktop.sh uninstall

# System packages for the Xvfb smoke test (a real hermes-studio window under xvfb-run,
# tests/desktop/graph/test_smoke_xvfb.py): Xvfb itself and the xcb libraries Qt's xcb
# platform plugin loads. .ci/run installs them; `sudo make xvfb-deps` on a Debian machine.
XVFB_PACKAGES := xvfb xauth libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 \
	libxcb-xkb1 libxkbcommon-x11-0 libxcb-cursor0 libxcb-shape0 libxcb-randr0 \
	libxcb-xfixes0 libxcb-sync1 libxcb-shm0 libxcb-render0 libxcb-util1 libx11-xcb1

xvfb-packages:
	@echo $(XVFB_PACKAGES)

xvfb-deps:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(XVFB_PACKAGES)
