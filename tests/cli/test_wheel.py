"""The published figures ship inside the package (issue 20): a wheel built from this tree,
installed in a fresh virtual environment, runs ``par --compare`` against them from a folder far
from any checkout. No network: the wheel is built without build isolation (setuptools is a dev
requirement) and installed with ``--no-index --no-deps``; its dependencies (typer, rich, numpy,
numba) come from this project's environment through one ``.pth`` line. About 40 s on the 2-core
machine, most of it creating the environment."""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_an_installed_wheel_checks_par_compare_against_its_published_figures(
        tmp_path: Path) -> None:
    tree = tmp_path / "tree"  # a copy, so the build leaves nothing in the worktree
    tree.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    shutil.copytree(ROOT / "src", tree / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index",
                    "--no-build-isolation", "-w", str(tmp_path / "dist"), str(tree)],
                   check=True, capture_output=True, timeout=300)
    [wheel] = (tmp_path / "dist").glob("puntobanco-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for data in ("published_figures.json", "published_variants.json", "published_counts.json"):
        assert f"puntobanco/data/{data}" in names
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True, capture_output=True, timeout=300)
    packages = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True).stdout.strip())
    (packages / "project-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    away = tmp_path / "elsewhere"
    away.mkdir()
    where = subprocess.run([str(python), "-c", "import puntobanco; print(puntobanco.__file__)"],
                           cwd=away, check=True, capture_output=True, text=True).stdout
    assert where.startswith(str(packages)), where  # the installed wheel, not this tree
    run = subprocess.run([str(venv / "bin" / "puntobanco"), "par", "--compare", "--format",
                          "json"], cwd=away, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    checks = json.loads(run.stdout)["published_checks"]
    assert len(checks) >= 13 and all(check["matches"] for check in checks)
