"""The CUDA probe: answered from torch's files where they tell, by torch itself where not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from studykit.experiments import availability
from studykit.experiments.device import torch_version

VERSION_PY = """from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']
__version__ = '{version}'
debug = False
cuda: Optional[str] = {cuda}
git_version = 'cf30153c4c131c8164ee7798e5022d810682e2cb'
hip: Optional[str] = {hip}
"""


def _torch_says() -> str | None:
    """What the child process that imports torch answers (the slow way, the truth)."""
    done = subprocess.run(
        [sys.executable, "-c", availability._PROBE],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    answer = done.stdout.strip()
    if answer == "ok":
        return None
    kind, version = answer.split()
    if kind == "cpu-build":
        return f"this torch ({version}) is a CPU-only build"
    return f"torch is built for CUDA {version}, but no GPU is visible"


def test_the_answer_without_a_child_agrees_with_torch_itself() -> None:
    quick = availability._without_a_child(torch_version(), availability._torch_build())
    if quick != availability._ASK:  # this machine's torch and devices gave it
        assert quick == _torch_says()
    assert availability.cuda_status.__wrapped__() == _torch_says()


@pytest.mark.parametrize(
    ("cuda", "hip", "read"),
    [
        ("None", "None", {"cuda": None, "hip": None}),
        ("'12.4'", "None", {"cuda": "12.4", "hip": None}),
        ("None", "'6.2.41133'", {"cuda": None, "hip": "6.2.41133"}),
    ],
    ids=["cpu", "cuda", "rocm"],
)
def test_the_build_is_read_from_torchs_version_file(
    tmp_path: Path, cuda: str, hip: str, read: dict[str, str | None]
) -> None:
    version = tmp_path / "version.py"
    version.write_text(VERSION_PY.format(version="2.13.0", cuda=cuda, hip=hip), encoding="utf-8")
    assert availability._build(version) == read


def test_a_version_file_it_cannot_read_means_asking_torch(tmp_path: Path) -> None:
    odd = tmp_path / "version.py"
    odd.write_text("cuda = get_cuda()\n", encoding="utf-8")
    assert availability._build(odd) is None
    assert availability._build(tmp_path / "missing.py") is None
    assert availability._without_a_child("2.13.0", None) == availability._ASK


def test_a_rocm_build_is_asked_and_a_cpu_build_is_not() -> None:
    rocm = {"cuda": None, "hip": "6.2.41133"}  # torch.cuda runs on AMD GPUs there
    assert availability._without_a_child("2.13.0+rocm6.2", rocm) == availability._ASK
    cpu: dict[str, str | None] = {"cuda": None, "hip": None}
    said = availability._without_a_child("2.13.0+cpu", cpu)
    assert said == "this torch (2.13.0+cpu) is a CPU-only build"


@pytest.mark.parametrize(("value", "hidden"), [("", True), ("-1", True), ("0", False)])
def test_cuda_visible_devices_empty_hides_every_gpu(
    monkeypatch: pytest.MonkeyPatch, value: str, hidden: bool
) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", value)
    assert availability._hidden_by_environment() is hidden
    if hidden:
        assert availability._no_nvidia_device()
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    assert not availability._hidden_by_environment()
