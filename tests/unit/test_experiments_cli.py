"""`studykit experiment` from the command line, and everything without torch installed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from studykit.cli import cli

# Makes `import torch` fail as if it were not installed, then runs studykit's CLI.
NO_TORCH = textwrap.dedent(
    """
    import sys
    from importlib.abc import MetaPathFinder

    class NoTorch(MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ModuleNotFoundError(f"No module named {name!r}")
            return None

    sys.meta_path.insert(0, NoTorch())
    from studykit.cli import main
    try:
        main(sys.argv[1:])
    finally:
        assert "torch" not in sys.modules
    """
)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def without_torch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", NO_TORCH, *args], capture_output=True, text=True, timeout=120
    )


def test_list_json_names_all_nine_with_params() -> None:
    code, out, _ = invoke("experiment", "list", "--json")
    assert code == 0
    document = json.loads(out)
    names = [e["name"] for e in document["experiments"]]
    assert len(names) == 9 and "effective-context" in names
    decay = next(e for e in document["experiments"] if e["name"] == "rnn-gradient-decay")
    rho = next(p for p in decay["params"] if p["name"] == "rho")
    assert rho["aliases"] == ["gamma"] and rho["default"] == 0.95


def _text_start(line: str) -> int:
    match = re.match(r"\s*\S+\s{2,}|\s+", line)
    assert match is not None, line
    return match.end()


@pytest.mark.parametrize("columns", [80, 120])
def test_list_lines_up_every_description_in_one_column(
    columns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, _ = invoke("experiment", "list")
    assert code == 0
    lines = out.splitlines()
    assert "  gamma=0.95" in out and "  rho=0.95" in out  # each parameter with its default
    # where the text after the name or `param=default` starts: one column for every line,
    # wrapped lines included, and none past the terminal's width
    starts = {_text_start(line) for line in lines}
    assert len(starts) == 1, starts
    assert max(len(line) for line in lines) <= columns
    [column] = starts
    assert any(line.startswith(" " * column) for line in lines)  # long help wraps


def test_run_json_is_one_document() -> None:
    code, out, _ = invoke(
        "experiment", "run", "effective-context", "--set", "gamma=0.9", "--device", "cpu", "--json"
    )
    assert code == 0
    document = json.loads(out)
    answers = {a["key"]: a["value"] for a in document["answers"]}
    assert answers["k"] == 44 and document["device"] == "cpu"


def test_run_human_output_has_answers_table_plot_and_explanation() -> None:
    code, out, _ = invoke(
        "experiment",
        "run",
        "rnn-gradient-decay",
        "--set",
        "length=40",
        "--set",
        "hidden_size=8",
        "--device",
        "cpu",
    )
    assert code == 0
    assert "‖∂h[T]/∂h[0]‖ (k = 40)" in out
    assert "ρᵏ" in out  # table header and legend
    assert "1e-1" in out  # log-axis tick labels of the plot
    assert "gradient norm" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["nope"], "unknown experiment 'nope'; known: effective-context"),
        (["effective-context", "--set", "gamma=1"], "0 < gamma < 1; got 1.0"),
        (["effective-context", "--set", "speed=3"], "its parameters are: gamma, threshold"),
        (["bptt-memory", "--set", "length=-4"], "`length` must be an integer, 8 ≤ length"),
        (["bptt-memory", "--set", "length"], "--set expects KEY=VALUE"),
    ],
)
def test_bad_input_exits_2_with_a_clear_message(args: list[str], needle: str) -> None:
    code, out, err = invoke("experiment", "run", *args, "--json")
    assert code == 2
    assert out == ""
    assert needle in err


def test_cuda_without_a_gpu_exits_2_saying_why() -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    code, _, err = invoke("experiment", "run", "positional-encoding", "--device", "cuda")
    assert code == 2
    assert "--device cuda" in err
    assert ("CPU-only build" in err) == (torch.version.cuda is None)


def test_without_torch_run_names_the_extra_and_the_rest_works() -> None:
    run = without_torch("experiment", "run", "effective-context")
    assert run.returncode == 1
    assert "pip install 'studykit[torch]'" in run.stderr
    assert "Traceback" not in run.stderr
    listing = without_torch("experiment", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    assert len(json.loads(listing.stdout)["experiments"]) == 9
    bad = without_torch("experiment", "run", "effective-context", "--set", "gamma=2")
    assert bad.returncode == 2 and "0 < gamma < 1" in bad.stderr
    assert without_torch("--help").returncode == 0


def test_registry_and_specs_import_without_torch() -> None:
    code = (
        "import sys\n"
        "from studykit.experiments import registry\n"
        "from studykit.experiments.params import validate\n"
        "for e in registry.experiments().values(): validate(e, {})\n"
        "import studykit.commands.experiment\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
