"""Experiments against their closed forms (through sympy), parameter checks, cancel, devices."""

from __future__ import annotations

import math
import time

import pytest
import sympy

from studykit.content.loading import Library
from studykit.experiments import registry
from studykit.experiments.base import (
    Cancelled,
    DeviceUnavailable,
    ParamError,
    Params,
    Result,
    UnknownExperiment,
)
from studykit.experiments.params import parse_assignments, validate
from studykit.experiments.runner import run_experiment, run_in_process

torch = pytest.importorskip("torch")
CUDA = torch.cuda.is_available()


def run_cpu(name: str, **params: object) -> Result:
    """The experiment's own numbers, run in this process (test_experiment_child tests the child)."""
    return run_in_process(name, params, device="cpu", seed=0)


def values(result: Result) -> dict[str, float]:
    """The run's numeric answers by key (an int stays an int; every answer here is a number)."""
    return {a.key: a.value for a in result.outcome.answers if not isinstance(a.value, str)}


# -- closed forms -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gamma", "threshold"), [(0.8, 0.01), (0.9, 0.01), (0.95, 0.01), (0.99, 0.05), (0.7, 0.001)]
)
def test_effective_context_matches_ceiling_of_log_ratio(gamma: float, threshold: float) -> None:
    got = values(run_cpu("effective-context", gamma=gamma, threshold=threshold))
    g, thr = sympy.Rational(str(gamma)), sympy.Rational(str(threshold))
    expected = int(sympy.ceiling(sympy.log(thr) / sympy.log(g)))
    assert got["k"] == expected
    assert got["k_star"] == expected
    assert got["raw"] == pytest.approx(float(sympy.log(thr) / sympy.log(g)), rel=1e-12)


SMALL: dict[str, dict[str, object]] = {
    "effective-context": {"gamma": 0.8},
    "rnn-gradient-decay": {"rho": 0.9, "hidden_size": 8, "length": 40},
    "lstm-forget-gate": {"forget": 0.731, "length": 12, "hidden_size": 4},
    "positional-encoding": {"positions": 16, "d_model": 8, "pos": 7, "dim": 5, "pair": 3},
    "attention-scaling": {"d_k": 16, "keys": 32, "queries": 256},
    "bptt-memory": {"length": 64, "batch_size": 4, "hidden_size": 8, "heads": 2},
}


def test_small_parameters_cover_every_experiment_that_declares_closed_forms() -> None:
    declaring = {e.name for e in registry.experiments().values() if e.closed_forms}
    assert declaring == set(SMALL)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_declared_closed_forms_hold_at_small_parameters(name: str) -> None:
    from studykit.experiments.closed_forms import compare

    comparisons = compare(registry.get(name), run_cpu(name, **SMALL[name]))
    assert comparisons, "no declared closed form applied"
    assert [c.describe() for c in comparisons if not c.agrees] == []


def test_closed_forms_apply_only_in_their_set_up() -> None:
    from studykit.experiments.closed_forms import applicable

    lstm = registry.get("lstm-forget-gate")
    assert applicable(lstm, validate(lstm, {"init": "default"})) == ()
    rnn = registry.get("rnn-gradient-decay")
    assert applicable(rnn, validate(rnn, {"input_scale": 1})) == ()
    assert len(applicable(rnn, validate(rnn, {}))) == 2


def test_effective_context_reports_not_reached_within_max_steps() -> None:
    got = values(run_cpu("effective-context", gamma=0.999, max_steps=50))
    assert got["k"] == -1
    assert got["k_star"] == 4603


def test_gradient_decay_equals_rho_to_the_k_with_zero_input() -> None:
    result = run_cpu("rnn-gradient-decay", rho=0.9, hidden_size=16, length=120)
    assert result.outcome.plot is not None
    measured = result.outcome.plot.series[0].y
    rho = sympy.Rational(9, 10)
    for k in (0, 1, 7, 50, 120):
        assert measured[k] == pytest.approx(float(rho**k), rel=1e-9)


def test_gamma_is_accepted_as_rho_for_gradient_decay() -> None:
    by_gamma = run_cpu("rnn-gradient-decay", gamma=0.95, hidden_size=8, length=30)
    by_rho = run_cpu("rnn-gradient-decay", rho=0.95, hidden_size=8, length=30)
    assert by_gamma.params == by_rho.params
    assert by_gamma.params["rho"] == 0.95
    assert values(by_gamma) == values(by_rho)


def test_gradient_decay_with_inputs_falls_below_the_bound() -> None:
    got = values(run_cpu("rnn-gradient-decay", rho=0.95, hidden_size=16, length=60, input_scale=2))
    assert got["norm_at_T"] < got["bound_at_T"]


def test_forget_gate_decay_equals_f_to_the_k_with_zeroed_weights() -> None:
    result = run_cpu("lstm-forget-gate", forget=0.731, length=40, hidden_size=8)
    assert result.outcome.plot is not None
    diagonal, spectral = result.outcome.plot.series[0].y, result.outcome.plot.series[1].y
    f = sympy.Rational("0.731")
    for k in (1, 2, 10, 40):
        assert diagonal[k] == pytest.approx(float(f**k), rel=1e-9)
        assert spectral[k] == pytest.approx(float(f**k), rel=1e-9)


def test_default_lstm_forget_gate_is_near_one_half() -> None:
    got = values(run_cpu("lstm-forget-gate", init="default", length=5, hidden_size=16))
    assert 0.4 < float(got["default_mean_forget"]) < 0.6  # σ(≈0) with small random weights


def test_default_forget_mean_moves_only_with_seed_and_hidden_size() -> None:
    # Its own generator: the run's other draws (x of `length` steps) leave it alone.
    base = values(run_cpu("lstm-forget-gate", init="default", length=5, hidden_size=16))
    for other in ({"length": 40}, {"forget": 0.9}, {"init": "zeroed"}):
        params = {"init": "default", "length": 5, "hidden_size": 16, **other}
        got = values(run_cpu("lstm-forget-gate", **params))
        assert got["default_mean_forget"] == base["default_mean_forget"], other
    reseeded = run_in_process(
        "lstm-forget-gate", {"length": 5, "hidden_size": 16}, device="cpu", seed=1
    )
    assert values(reseeded)["default_mean_forget"] != base["default_mean_forget"]


def test_default_forget_cell_uses_pytorchs_init_range() -> None:
    from studykit.experiments.common import generator
    from studykit.experiments.lstm_forget_gate import _default_cell

    cell = _default_cell(25, generator(0))
    reference = torch.nn.LSTMCell(25, 25)
    for ours, theirs in zip(cell.parameters(), reference.parameters(), strict=True):
        assert ours.shape == theirs.shape
        largest = float(ours.detach().abs().max())
        assert largest <= 1 / 5 < 1.05 * largest


def test_positional_encoding_values_match_sin_and_cos() -> None:
    from studykit.experiments.positional_encoding import encodings

    pe = encodings(20, 8, 10_000.0, "cpu")
    assert isinstance(pe, torch.Tensor)
    p, i = sympy.symbols("p i")
    angle = p / sympy.Integer(10_000) ** (2 * i / sympy.Integer(8))
    for pos in (0, 1, 7, 19):
        for j in range(4):
            assert float(pe[pos, 2 * j]) == pytest.approx(
                float(sympy.sin(angle.subs({p: pos, i: j}))), abs=1e-12
            )
            assert float(pe[pos, 2 * j + 1]) == pytest.approx(
                float(sympy.cos(angle.subs({p: pos, i: j}))), abs=1e-12
            )


def test_positional_encoding_dot_depends_only_on_distance() -> None:
    got = values(run_cpu("positional-encoding", positions=64, d_model=32))
    assert got["pe_0_norm2"] == pytest.approx(16.0)
    assert float(got["dot_spread"]) < 1e-9
    assert float(got["rotation_error"]) < 1e-9
    assert got["pe_1_0"] == pytest.approx(float(sympy.sin(1)))


@pytest.mark.parametrize(("pos", "dim", "d_model"), [(0, 0, 8), (1, 1, 8), (7, 5, 8), (50, 9, 64)])
def test_positional_encoding_entry_matches_sin_or_cos(pos: int, dim: int, d_model: int) -> None:
    got = values(run_cpu("positional-encoding", positions=4, d_model=d_model, pos=pos, dim=dim))
    angle = sympy.Integer(pos) / sympy.Integer(10_000) ** sympy.Rational(2 * (dim // 2), d_model)
    expected = sympy.sin(angle) if dim % 2 == 0 else sympy.cos(angle)
    assert got["pe_entry"] == pytest.approx(float(expected), abs=1e-12)


def test_positional_encoding_pair_gives_sin_and_cos_of_one_frequency() -> None:
    got = values(run_cpu("positional-encoding", positions=4, d_model=16, pos=10, i=1))
    angle = 10 / sympy.sqrt(10)  # 10000^(2/16) = √10
    assert got["pe_sin"] == pytest.approx(float(sympy.sin(angle)), abs=1e-12)
    assert got["pe_cos"] == pytest.approx(float(sympy.cos(angle)), abs=1e-12)


@pytest.mark.parametrize(
    ("params", "needle"),
    [
        ({"d_model": 8, "dim": 8}, "`dim` must be below d_model (8)"),
        ({"d_model": 8, "pair": 4}, "below d_model/2 (4)"),
    ],
)
def test_positional_encoding_entry_must_lie_inside_d_model(
    params: dict[str, object], needle: str
) -> None:
    with pytest.raises(ParamError, match=needle.replace("(", "\\(").replace(")", "\\)")):
        run_cpu("positional-encoding", positions=4, **params)


def test_odd_d_model_is_a_parameter_error() -> None:
    with pytest.raises(ParamError, match="d_model"):
        run_cpu("positional-encoding", d_model=7)


def test_attention_logit_spread_is_sqrt_d_k() -> None:
    got = values(run_cpu("attention-scaling", d_k=64, keys=32, queries=512))
    assert float(got["logit_std_unscaled"]) == pytest.approx(8.0, rel=0.1)
    assert float(got["logit_std_scaled"]) == pytest.approx(1.0, rel=0.1)
    assert got["max_weight_unscaled"] > got["max_weight_scaled"] > got["max_weight_d_k"]


def test_memory_capacity_stays_under_the_bound_d() -> None:
    got = values(run_cpu("memory-capacity", hidden_size=16, samples=1500))
    assert 0.5 * 16 < float(got["capacity"]) <= 16 + 1e-6
    tanh = values(run_cpu("memory-capacity", hidden_size=16, samples=1500, activation="tanh"))
    assert float(tanh["capacity"]) <= 16 + 1e-6


def test_memory_capacity_chance_floor_is_lags_over_held_out_steps() -> None:
    # r² of a readout and an input it never saw: Beta(1/2, (n-2)/2), mean 1/(n-1), sd ≈ √2/n.
    lags, samples = 400, 2000
    got = values(run_cpu("memory-capacity", hidden_size=8, lags=lags, samples=samples))
    n = samples - sympy.floor(sympy.Rational(3, 4) * samples)
    expected = sympy.Rational(lags, n - 1)
    spread = sympy.sqrt(2 * lags) / n
    assert abs(float(got["chance_capacity"]) - float(expected)) < 4 * float(spread)
    assert got["few_samples"] == 1  # 400 lags of chance: ≈ 0.8, a tenth of d = 8


def test_memory_capacity_flags_few_samples_that_bias_it_upward() -> None:
    result = run_cpu("memory-capacity", hidden_size=16, samples=100)
    got = values(result)
    assert got["few_samples"] == 1
    assert float(got["chance_capacity"]) >= 0.01 * 16
    assert float(got["capacity"]) > 16  # past the bound d: chance, not memory
    assert "biased" in result.outcome.explanation
    plenty = run_cpu("memory-capacity", hidden_size=16, samples=4000)
    assert values(plenty)["few_samples"] == 0 and "biased" not in plenty.outcome.explanation


def test_long_range_attention_keeps_the_distant_gradient() -> None:
    got = values(run_cpu("long-range", distance=15, seeds=2, hidden_size=16))
    assert float(got["attention_ratio"]) > 100 * float(got["rnn_ratio"])


def test_long_range_float64_resolves_what_float32_underflows() -> None:
    near = {"model": "rnn", "distance": 10, "hidden_size": 16, "seeds": 1}
    single = values(run_cpu("long-range", **near))
    double = values(run_cpu("long-range", **near, dtype="float64"))
    # Same weights and inputs, only the precision differs.
    assert double["rnn_ratio"] == pytest.approx(single["rnn_ratio"], rel=1e-4)
    far = {**near, "distance": 250}
    assert values(run_cpu("long-range", **far))["rnn_ratio"] == 0.0
    assert 0.0 < float(values(run_cpu("long-range", **far, dtype="float64"))["rnn_ratio"]) < 1e-38


def test_long_range_training_flushes_subnormals_only_while_it_trains() -> None:
    # At distance 80 part of the float32 backward is subnormal: a flush left on after seed
    # 0's training would change seed 1's profile, and so the mean ratio.
    far = {"model": "rnn", "distance": 80, "hidden_size": 16, "seeds": 2}
    trained = values(run_cpu("long-range", **far, train=True, steps=1))
    assert trained["rnn_ratio"] == values(run_cpu("long-range", **far))["rnn_ratio"] > 0


def test_long_range_training_reports_a_success_rate() -> None:
    got = values(run_cpu("long-range", model="attention", distance=3, seeds=1, train=True, steps=5))
    assert 0.0 <= float(got["attention_success"]) <= 1.0


def test_bptt_memory_grows_linearly_and_checkpointing_saves() -> None:
    got = values(run_cpu("bptt-memory", length=64, batch_size=4, hidden_size=8))
    # Two float32 B × d tensors per step are kept for backward: the input x_t and h_t.
    assert got["rnn_bytes_per_step"] == 2 * 4 * 8 * 4
    assert float(got["checkpoint_mib"]) < float(got["rnn_mib"])
    assert float(got["attention_mib"]) >= float(got["scores_mib"])


@pytest.mark.parametrize("heads", [1, 4])
def test_bptt_memory_counts_what_autograd_saves_per_head(heads: int) -> None:
    t, b, d = 32, 2, 8
    got = values(run_cpu("bptt-memory", length=t, batch_size=b, hidden_size=d, heads=heads))
    T, B, D, H = sympy.symbols("T B D H", positive=True)
    at = {T: t, B: b, D: d, H: heads}
    # Every state h_0 … h_T, and beside them the inputs x (T·B·d) and W_ih, W_hh.
    assert got["rnn_state_elements"] == ((T + 1) * B * D).subs(at)
    assert got["rnn_saved_elements"] == ((2 * T + 1) * B * D + 2 * D**2).subs(at)
    # Each head keeps its own B × T × T softmax weights.
    assert got["weights_mib"] == pytest.approx(float((4 * H * B * T**2 / 2**20).subs(at)))
    assert got["attention_saved_elements"] == (4 * B * T * D + 3 * D**2 + H * B * T**2).subs(at)
    # The RNN saves tensors at every step (its input x_t among them); attention a fixed few.
    assert int(got["rnn_saved_inputs"]) >= t and int(got["rnn_saved_tensors"]) >= 2 * t
    assert int(got["attention_saved_inputs"]) == 2  # x and the projection's weight


def test_bptt_attention_saves_the_same_tensors_at_any_length() -> None:
    short = values(run_cpu("bptt-memory", length=16, batch_size=1, hidden_size=8, heads=2))
    long = values(run_cpu("bptt-memory", length=64, batch_size=1, hidden_size=8, heads=2))
    assert short["attention_saved_tensors"] == long["attention_saved_tensors"]
    assert int(long["rnn_saved_tensors"]) > 3 * int(short["rnn_saved_tensors"])


def test_bptt_heads_must_divide_the_width() -> None:
    with pytest.raises(ParamError, match="`heads` must divide hidden_size"):
        run_cpu("bptt-memory", length=8, hidden_size=6, heads=4)


def test_parallelism_counts_steps_and_depth() -> None:
    result = run_cpu(
        "parallelism", batch_size=2, seq_len=64, hidden_size=8, heads=2, layers=2, repeats=1
    )
    got = values(result)
    assert got["rnn_steps"] == 128
    assert got["attention_steps"] == 2
    assert int(got["rnn_depth"]) > int(got["attention_depth"])
    print(
        f"parallelism timings (shown, not asserted): {got['rnn_ms']} ms vs {got['attention_ms']} ms"
    )


def test_parallelism_flop_formulas_match_torchs_flop_counter() -> None:
    from torch.utils.flop_counter import FlopCounterMode

    from studykit.experiments.parallelism import flops

    params: Params = {
        "batch_size": 2,
        "seq_len": 48,
        "hidden_size": 16,
        "layers": 1,
        "cell": "lstm",
    }
    b, t, d = 2, 48, 16
    layer = torch.nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True)
    lstm = torch.nn.LSTM(d, d, batch_first=True)
    x = torch.randn(b, t, d)

    def lstm_products() -> None:  # an LSTM layer's matmuls, step by step (gates elided)
        h = torch.zeros(b, d)
        for step in range(t):
            x[:, step] @ lstm.weight_ih_l0.T + h @ lstm.weight_hh_l0.T

    counted = []
    for model in (
        lstm_products,
        lambda: layer.self_attn(x, x, x, need_weights=True),  # explicit bmm scores
        lambda: layer.linear2(layer.linear1(x)),
    ):
        with FlopCounterMode(display=False) as counter:
            model()
        counted.append(counter.get_total_flops())
    rnn, self_attention, encoder = flops(params)
    assert rnn == counted[0]
    assert self_attention == counted[1]
    assert encoder == counted[1] + counted[2]
    got = values(run_cpu("parallelism", **params, heads=4, repeats=1))
    assert got["self_attention_gflop"] == pytest.approx(self_attention / 1e9, rel=1e-12)
    assert got["attention_gflop"] == pytest.approx(encoder / 1e9, rel=1e-12)


def test_every_experiment_has_a_valid_default_and_a_plot() -> None:
    assert len(registry.names()) == 9
    for experiment in registry.experiments().values():
        defaults = validate(experiment, {})
        assert set(defaults) == {p.name for p in experiment.params}


def test_result_round_trips_through_json() -> None:
    result = run_cpu("positional-encoding", positions=8, d_model=4)
    again = Result.from_json(result.to_json())
    assert again == result


# -- parameter checks -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "params", "needle"),
    [
        ("effective-context", {"gamma": 1.0}, "parameter `gamma` must be a number, 0 < gamma < 1"),
        ("effective-context", {"gamma": "1.5"}, "0 < gamma < 1; got 1.5"),
        ("rnn-gradient-decay", {"length": -3}, "`length` must be an integer, 1 ≤ length ≤ 5000"),
        ("rnn-gradient-decay", {"length": "ten"}, "`length` must be an integer"),
        ("rnn-gradient-decay", {"length": 2.5}, "`length` must be an integer"),
        ("rnn-gradient-decay", {"gamma": 0}, "`rho` (`gamma` is `rho`) must be a number"),
        ("long-range", {"model": "gru"}, "one of rnn, lstm, attention, all; got 'gru'"),
        ("long-range", {"train": "maybe"}, "`train` must be true or false"),
        ("long-range", {"distance": True}, "`distance` must be an integer"),
    ],
)
def test_bad_parameters_name_the_parameter_and_range(
    name: str, params: dict[str, object], needle: str
) -> None:
    with pytest.raises(ParamError) as caught:
        validate(registry.get(name), params)
    assert needle in str(caught.value)


def test_unknown_parameter_lists_the_valid_ones() -> None:
    with pytest.raises(ParamError, match="has no parameter `gama`; its parameters are: gamma"):
        validate(registry.get("effective-context"), {"gama": 0.9})


def test_alias_and_name_together_is_an_error() -> None:
    with pytest.raises(ParamError, match="both set `rho`"):
        validate(registry.get("rnn-gradient-decay"), {"rho": 0.9, "gamma": 0.9})


def test_unknown_experiment_lists_names() -> None:
    with pytest.raises(UnknownExperiment, match="known: effective-context, rnn-gradient-decay"):
        registry.get("nope")


def test_strings_are_parsed_per_type() -> None:
    got = validate(
        registry.get("long-range"),
        parse_assignments(["distance=7", "train=yes", "model=lstm", "seeds=3.0"]),
    )
    assert got["distance"] == 7 and got["train"] is True and got["model"] == "lstm"
    assert got["seeds"] == 3
    with pytest.raises(ParamError, match="KEY=VALUE"):
        parse_assignments(["distance"])


def test_content_params_are_valid(bundled_library: Library) -> None:
    library = bundled_library
    refs = [s.experiment for n in library.notes.values() for s in n.sections if s.experiment]
    assert {r.name for r in refs} == set(registry.names())
    for ref in refs:
        validate(registry.get(ref.name), ref.params)


# -- devices and cancelling -----------------------------------------------------------------


@pytest.mark.skipif(CUDA, reason="this machine has CUDA")
def test_cuda_unavailable_says_why() -> None:
    with pytest.raises(DeviceUnavailable) as caught:
        run_experiment("positional-encoding", {}, device="cuda")
    message = str(caught.value)
    if torch.version.cuda is None:
        assert "CPU-only build" in message and torch.__version__ in message
    else:
        assert "no GPU is visible" in message
    assert run_experiment("positional-encoding", {"positions": 4}, device="auto").device == "cpu"


def test_bad_device_name_is_a_parameter_error() -> None:
    with pytest.raises(ParamError, match="device must be one of auto, cpu, cuda"):
        run_experiment("positional-encoding", {}, device="tpu")


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
@pytest.mark.parametrize("name", ["rnn-gradient-decay", "parallelism", "bptt-memory"])
def test_runs_on_cuda(name: str) -> None:
    small = {
        "rnn-gradient-decay": {"hidden_size": 16, "length": 50},
        "parallelism": {"batch_size": 4, "seq_len": 64, "hidden_size": 32, "repeats": 1},
        "bptt-memory": {"length": 64, "batch_size": 2, "hidden_size": 16},
    }[name]
    result = run_experiment(name, small, device="cuda")
    assert result.device == "cuda"
    assert result.machine.startswith("GPU")
    if name == "rnn-gradient-decay":
        assert values(result)["ratio_at_T"] == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("name", list(registry.names()))
def test_a_cancel_mid_run_raises_cancelled_quickly(name: str) -> None:
    calls = []

    def cancel() -> bool:
        calls.append(1)
        return len(calls) > 1  # the runner checks once before the run; this trips inside it

    started = time.perf_counter()
    with pytest.raises(Cancelled):
        run_experiment(name, {}, device="cpu", cancelled=cancel)
    print(f"{name}: cancelled after {time.perf_counter() - started:.2f} s (not asserted)")
    assert len(calls) == 2


def test_progress_is_reported_up_to_done() -> None:
    seen: list[tuple[float, str]] = []
    run_experiment(
        "bptt-memory",
        {"length": 16, "batch_size": 1, "hidden_size": 4},
        device="cpu",
        progress=lambda f, m: seen.append((f, m)),
    )
    assert seen[-1] == (1.0, "done")
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and len(seen) >= 3
    assert all(math.isfinite(f) for f in fractions)
