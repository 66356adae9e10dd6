"""FSRS-6 fitted in torch over whole card histories at once, one time step for all cards.

fsrs's own optimizer replays every review through its Python scheduler with scalar tensors
(about 3 ms a review). Here every card's answers form one column of a time-major tensor,
cards sorted longest first, so step t updates the prefix of cards that have an answer t: a
handful of tensor operations per step, whatever the number of cards. The memory-state rules
are fsrs.Scheduler's (a test checks the predictions against it); the training recipe is
fsrs's optimizer's: Adam, learning rate 0.04 with cosine annealing, 5 epochs of mini-batches
of about 512 counted reviews, parameters clamped to fsrs's bounds, the best epoch kept.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, STABILITY_MIN, UPPER_BOUNDS_PARAMETERS

__all__ = [
    "EPOCHS",
    "MAX_FIT_REVIEWS",
    "MAX_SEQ_LEN",
    "Histories",
    "fit_parameters",
    "histories",
    "recall",
    "sample_cards",
]

EPOCHS = 5
BATCH_REVIEWS = 512
LEARNING_RATE = 4e-2
MAX_SEQ_LEN = 64  # as in fsrs's optimizer: a card's first 64 answers
# A fit costs about 0.4 ms per counted review on one core (5 epochs); past this many, it runs on
# a sample of whole cards, so that it stays within about a minute whatever the log's size.
MAX_FIT_REVIEWS = 100_000
_DAY_US = 86_400_000_000
_EPS = 1e-7

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Histories:
    """Answers as time-major tensors [step, card], cards longest history first."""

    rating: torch.Tensor  # 1..4 (0 past a card's end)
    days: torch.Tensor  # whole days since the card's previous answer (0 at its first)
    counted: torch.Tensor  # True where a prediction is scored: a day or more after the previous
    lengths: list[int]  # answers per card, non-increasing

    @property
    def cards(self) -> int:
        return len(self.lengths)

    @property
    def reviews(self) -> int:
        """Counted answers: the ones a fit learns from."""
        return int(self.counted.sum())

    def take(self, index: Sequence[int]) -> Histories:
        """The cards at `index` (in any order), re-sorted longest first."""
        order = sorted(index, key=lambda i: -self.lengths[i])
        steps = self.lengths[order[0]] if order else 0
        pick = torch.tensor(order, dtype=torch.long)
        return Histories(
            self.rating[:steps, pick],
            self.days[:steps, pick],
            self.counted[:steps, pick],
            [self.lengths[i] for i in order],
        )


def histories(rows: Sequence[tuple[int, int, int, int]]) -> Histories:
    """Group (card key, rating, reviewed_at_us, duration_ms) rows, in time order, by card."""
    per_card: dict[int, list[tuple[int, int]]] = {}
    for key, grade, at_us, _ in rows:
        answers = per_card.setdefault(key, [])
        if len(answers) < MAX_SEQ_LEN:
            answers.append((grade, at_us))
    cards = sorted(per_card.values(), key=len, reverse=True)
    steps = len(cards[0]) if cards else 0
    rating = torch.zeros((steps, len(cards)), dtype=torch.long)
    days = torch.zeros((steps, len(cards)), dtype=torch.float64)
    for j, answers in enumerate(cards):
        rating[: len(answers), j] = torch.tensor([g for g, _ in answers])
        gaps = [0] + [(b - a) // _DAY_US for (_, a), (_, b) in itertools.pairwise(answers)]
        days[: len(answers), j] = torch.tensor(gaps, dtype=torch.float64)
    counted = days > 0  # the first answer has 0 days: never scored
    return Histories(rating, days, counted, [len(a) for a in cards])


def sample_cards(h: Histories, budget: int, *, seed: int = 0) -> Histories:
    """`h` itself within `budget` counted answers, else whole cards drawn until it is reached."""
    if h.reviews <= budget:
        return h
    per_card = h.counted.sum(dim=0).tolist()
    order = list(range(h.cards))
    random.Random(seed).shuffle(order)
    chosen, filled = [], 0
    for i in order:
        if filled + per_card[i] > budget:
            continue
        chosen.append(i)
        filled += per_card[i]
    return h.take(chosen)


def _active(lengths: Sequence[int], steps: int) -> list[int]:
    """How many cards (a prefix, lengths non-increasing) have an answer at each step."""
    out, n = [], len(lengths)
    for t in range(steps):
        while n and lengths[n - 1] <= t:
            n -= 1
        out.append(n)
    return out


def recall(h: Histories, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Predicted recall and outcome (1 unless Again) of every counted answer, in step order."""
    decay = -w[20]
    factor = 0.9 ** (1 / decay) - 1
    easy_d = w[4] - torch.exp(w[5] * 3) + 1  # initial difficulty of Easy, unclamped
    forget_short = torch.exp(w[17] * w[18])
    predicted, outcome = [], []
    s = d = torch.empty(0, dtype=torch.float64)
    for t, n in enumerate(_active(h.lengths, h.rating.shape[0])):
        g = h.rating[t, :n]
        if t == 0:
            s = w[g - 1].clamp(min=STABILITY_MIN)
            d = (w[4] - torch.exp(w[5] * (g - 1)) + 1).clamp(1.0, 10.0)
            continue
        s, d = s[:n], d[:n]
        days = h.days[t, :n]
        r = (1 + factor * days / s) ** decay
        counted = h.counted[t, :n]
        predicted.append(r[counted])
        outcome.append((g[counted] > 1).to(torch.float64))
        gf = g.to(torch.float64)
        hard = torch.where(g == 2, w[15], 1.0)
        easy = torch.where(g == 4, w[16], 1.0)
        grow = torch.exp(w[8]) * (11 - d) * s ** -w[9] * (torch.exp((1 - r) * w[10]) - 1)
        recalled = s * (1 + grow * hard * easy)
        forgot = torch.minimum(
            w[11] * d ** -w[12] * ((s + 1) ** w[13] - 1) * torch.exp((1 - r) * w[14]),
            s / forget_short,
        )
        long_term = torch.where(g == 1, forgot, recalled)
        boost = torch.exp(w[17] * (gf - 3 + w[18])) * s ** -w[19]
        boost = torch.where(g > 1, boost.clamp(min=1.0), boost)
        s = torch.where(days > 0, long_term, s * boost).clamp(min=STABILITY_MIN)
        damped = d + (10 - d) * (-w[6] * (gf - 3)) / 9
        d = (w[7] * easy_d + (1 - w[7]) * damped).clamp(1.0, 10.0)
    if not predicted:
        empty = torch.empty(0, dtype=torch.float64)
        return empty, empty
    return torch.cat(predicted), torch.cat(outcome)


def _loss(h: Histories, w: torch.Tensor) -> tuple[torch.Tensor, int]:
    """Summed binary cross-entropy over the counted answers, and their number."""
    p, y = recall(h, w)
    p = p.clamp(_EPS, 1 - _EPS)
    return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).sum(), int(y.numel())


def _batches(h: Histories, rng: random.Random) -> list[list[int]]:
    """Cards in random order, cut into groups of about BATCH_REVIEWS counted answers."""
    per_card = h.counted.sum(dim=0).tolist()
    order = list(range(h.cards))
    rng.shuffle(order)
    out: list[list[int]] = [[]]
    filled = 0
    for i in order:
        out[-1].append(i)
        filled += per_card[i]
        if filled >= BATCH_REVIEWS:
            out.append([])
            filled = 0
    return [b for b in out if b]


def fit_parameters(
    h: Histories, initial: Sequence[float], *, progress: Progress | None = None
) -> list[float]:
    """Parameters that minimise log loss on `h`, starting from `initial` (kept if none beat it)."""
    lower = torch.tensor(LOWER_BOUNDS_PARAMETERS, dtype=torch.float64)
    upper = torch.tensor(UPPER_BOUNDS_PARAMETERS, dtype=torch.float64)
    w = torch.tensor(list(initial), dtype=torch.float64).clamp(lower, upper).requires_grad_()
    rng = random.Random(42)
    plan = [_batches(h, rng) for _ in range(EPOCHS)]
    total = sum(len(epoch) for epoch in plan)
    adam = torch.optim.Adam([w], lr=LEARNING_RATE)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(adam, T_max=max(1, total))

    def full_loss() -> float:
        with torch.no_grad():
            loss, n = _loss(h, w)
        return loss.item() / n if n else math.inf

    best, best_loss = w.detach().tolist(), full_loss()
    done = 0
    for epoch in plan:
        for cards in epoch:
            loss, n = _loss(h.take(cards), w)
            if n:
                adam.zero_grad()
                (loss / n).backward()  # type: ignore[no-untyped-call]
                adam.step()
                with torch.no_grad():
                    w.clamp_(lower, upper)
            cosine.step()
            done += 1
            if progress is not None:
                progress(done, total)
        epoch_loss = full_loss()
        if epoch_loss < best_loss:
            best, best_loss = w.detach().tolist(), epoch_loss
    return [float(x) for x in best]
