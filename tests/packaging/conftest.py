"""The built bundle, unpacked the way a user would, and a clean environment to run it in.

These tests run when dist/ holds a built bundle, or when asked with HERMES_PACKAGE_TEST=1
(`make package-test`, which .ci/run calls after `make test`). Asked but without a bundle,
they fail instead of skipping.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"


def asked() -> bool:
    return os.environ.get("HERMES_PACKAGE_TEST") == "1"


@pytest.fixture(scope="session")
def package_test_asked() -> None:
    """For tests too slow for every `make test`: they run when asked, else skip."""
    if not asked():
        pytest.skip("runs with HERMES_PACKAGE_TEST=1 (make package-test)")


@pytest.fixture(scope="session")
def built_wheel(package_test_asked, tmp_path_factory) -> Path:
    """The project's wheel, as `pip install .` builds it. Build isolation fetches the
    build backend that pyproject.toml asks for (setuptools>=77, from the index or pip's
    cache): a venv's own setuptools may be older (Python 3.11's is 65, which rejects the
    PEP 639 licence string), so `--no-build-isolation` is not used."""
    target = tmp_path_factory.mktemp("wheels")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(target), str(ROOT)],
        capture_output=True, text=True, timeout=600, cwd=target,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = target.glob("hermes_memory_studio-*.whl")
    return wheel


@pytest.fixture(scope="session")
def bundle_archive() -> Path:
    archives = sorted(DIST.glob("hermes-studio-*-linux-*.tar.gz"), key=lambda p: p.stat().st_mtime)
    if not archives:
        if asked():
            pytest.fail("HERMES_PACKAGE_TEST=1 but dist/ holds no bundle archive: run make package")
        pytest.skip("no bundle in dist/ (make package-test builds one and runs these tests)")
    return archives[-1]


@pytest.fixture(scope="session")
def unpacked_bundle(bundle_archive, tmp_path_factory) -> Path:
    """The archive unpacked into a temp dir, as a user would: ``<tmp>/hermes-studio``."""
    target = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(bundle_archive) as archive:
        archive.extractall(target, filter="data")
    bundle = target / "hermes-studio"
    assert (bundle / "hermes-studio").is_file(), f"{bundle_archive} has no hermes-studio/hermes-studio"
    return bundle


@pytest.fixture
def clean_env(tmp_path_factory) -> dict[str, str]:
    """No venv or Python on PATH beyond the system's, a fresh HOME, no display."""
    # A short path: the window's status bar shows the demo copy's path in full.
    fresh_home = tmp_path_factory.mktemp("home")
    return {"HOME": str(fresh_home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
