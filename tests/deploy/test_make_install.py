"""make install repairs a virtualenv that belongs to another checkout (scripts/ensure-venv), on real virtualenvs.

The virtualenvs are made without pip; "installing mlkata" in one writes what pip would (a dist-info with
its direct_url.json and a .pth file), and a stand-in pip module does so when the script reinstalls.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

FAKE_PIP = """\
import json, sys
from pathlib import Path
args = sys.argv[1:]
if "-e" in args:
    target = Path(args[args.index("-e") + 1].removesuffix("[dev]")).resolve()
    site = Path(__file__).resolve().parent.parent
    (site / "pip-calls.txt").open("a").write(" ".join(args) + "\\n")
    info = site / "mlkata-0.1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\\nName: mlkata\\nVersion: 0.1.0\\n")
    (info / "direct_url.json").write_text(json.dumps({"url": target.as_uri(), "dir_info": {"editable": True}}))
    (site / "mlkata.pth").write_text(str(target) + "\\n")
"""


def make_checkout(root: Path) -> Path:
    """A checkout as far as `make install` is concerned: the Makefile, the scripts, pyproject.toml, a package."""
    root.mkdir(parents=True)
    shutil.copy(REPO / "Makefile", root / "Makefile")
    shutil.copytree(REPO / "scripts", root / "scripts")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    (root / "grader").mkdir()
    (root / "grader" / "__init__.py").write_text("")
    return root


def make_venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    (site_packages(path) / "pip").mkdir()
    (site_packages(path) / "pip" / "__init__.py").write_text("")
    (site_packages(path) / "pip" / "__main__.py").write_text(FAKE_PIP)
    return path


def site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def install_mlkata(venv: Path, source: Path) -> None:
    """What `pip install -e source` leaves in the virtualenv."""
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-e", f"{source}[dev]"], check=True)
    (venv / ".installed-stamp").touch()


def state(checkout: Path) -> tuple[int, str]:
    run = subprocess.run(
        [sys.executable, str(checkout / "scripts" / "ensure-venv"), "--check", ".venv"],
        cwd=checkout, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return run.returncode, run.stdout.strip()


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return make_checkout(tmp_path / "here")


def test_this_checkouts_own_virtualenv_is_ok(checkout: Path) -> None:
    install_mlkata(make_venv(checkout / ".venv"), checkout)
    assert state(checkout) == (0, "ok")


def test_a_virtualenv_copied_from_another_checkout_is_foreign(checkout: Path, tmp_path: Path) -> None:
    other = make_checkout(tmp_path / "other")
    install_mlkata(make_venv(other / ".venv"), other)
    shutil.copytree(other / ".venv", checkout / ".venv", symlinks=True)
    code, said = state(checkout)
    assert code == 1
    assert said == (
        f"foreign: .venv was made for {other / '.venv'}, not {checkout / '.venv'} (copied from another checkout?)"
    )


def test_an_editable_install_of_another_checkout_is_stale(checkout: Path, tmp_path: Path) -> None:
    other = make_checkout(tmp_path / "other")
    install_mlkata(make_venv(checkout / ".venv"), other)
    assert state(checkout) == (
        1,
        f"stale: mlkata in .venv is an editable install of {other}, not of this checkout ({checkout})",
    )


def test_a_virtualenv_without_mlkata_or_with_an_old_stamp_is_stale(checkout: Path) -> None:
    venv = make_venv(checkout / ".venv")
    assert state(checkout) == (1, "stale: mlkata is not installed in .venv")
    install_mlkata(venv, checkout)
    past = time.time() - 60
    os.utime(venv / ".installed-stamp", (past, past))
    assert state(checkout) == (1, "stale: pyproject.toml changed since the last install")


def test_a_virtualenv_whose_python_is_gone_is_broken(checkout: Path) -> None:
    venv = make_venv(checkout / ".venv")
    for name in ("python", "python3"):
        (venv / "bin" / name).unlink()
        (venv / "bin" / name).symlink_to("/nonexistent/python3")
    code, said = state(checkout)
    assert code == 1 and said.startswith("broken: ")


def test_make_install_reinstalls_over_an_editable_install_of_another_checkout(checkout: Path, tmp_path: Path) -> None:
    other = make_checkout(tmp_path / "other")
    venv = make_venv(checkout / ".venv")
    install_mlkata(venv, other)
    run = subprocess.run(
        ["make", "--no-print-directory", "install", f"PYTHON={sys.executable}"],
        cwd=checkout, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"mlkata in .venv is an editable install of {other}, not of this checkout ({checkout}): reinstalling" in (
        run.stdout
    )
    assert state(checkout) == (0, "ok")
    calls = (site_packages(venv) / "pip-calls.txt").read_text().splitlines()
    assert calls[-1] == f"install --quiet -e {checkout}[dev]"
    again = subprocess.run(["make", "--no-print-directory", "install", f"PYTHON={sys.executable}"], cwd=checkout,
                           capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert again.returncode == 0 and again.stdout == ""  # nothing left to do
    assert json.loads((site_packages(venv) / "mlkata-0.1.0.dist-info" / "direct_url.json").read_text())["url"] == (
        checkout.as_uri()
    )
