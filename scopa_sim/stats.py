"""Statistics with their uncertainty: every rate comes with n and an interval.
Every interval the package shows is computed here, for every layer that
shows one (a run's summary, analysis, the studies): numpy only.

The Wilson and Student t intervals are statsmodels' (`proportion_confint`,
`DescrStatsW.tconfint_mean`) written out step for step, to the same bits
(tests/test_analysis.py checks them against statsmodels): importing
statsmodels takes a second, which a question over a small run should not
wait for. The t quantile is scipy.special's `stdtrit` (what `scipy.stats.t`
calls), imported where a t interval is asked for.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
WILSON_Z = np.float64(1.9599639845400545)      # scipy.stats.norm.isf(0.025), statsmodels' own


@dataclass(frozen=True)
class Rate:
    """k successes out of n, with a Wilson interval."""
    k: int
    n: int
    low: float
    high: float

    @property
    def value(self) -> float:
        return self.k / self.n if self.n else float("nan")

    def as_dict(self) -> dict:
        return {"rate": self.value, "k": self.k, "n": self.n, "low": self.low, "high": self.high}


def wilson(k: int, n: int) -> Rate:
    """The 95% Wilson score interval for k of n."""
    if n == 0:
        return Rate(0, 0, float("nan"), float("nan"))
    low, high = wilson_ends(int(k), int(n))
    return Rate(int(k), int(n), float(low), float(high))


def wilson_ends(k, n) -> tuple[np.ndarray, np.ndarray]:
    """The ends of the 95% Wilson score intervals of k successes in n trials
    (numbers or arrays; n > 0, below 2**53) as statsmodels'
    `proportion_confint(k, n, method="wilson")` computes them."""
    k, n = np.asarray(k), np.asarray(n, np.float64)
    q, z2 = k / n, WILSON_Z ** 2
    denom = 1 + z2 / n
    center = (q + z2 / (2 * n)) / denom
    half = WILSON_Z * np.sqrt(q * (1.0 - q) / n + z2 / (4.0 * (n * n))) / denom
    return np.clip(center - half, 0, 1), np.clip(center + half, 0, 1)


@dataclass(frozen=True)
class Mean:
    """A sample mean with its normal 95% interval."""
    mean: float
    sd: float
    n: int

    @property
    def halfwidth(self) -> float:
        return Z95 * self.sd / np.sqrt(self.n) if self.n > 1 else float("nan")

    @property
    def low(self) -> float:
        return self.mean - self.halfwidth

    @property
    def high(self) -> float:
        return self.mean + self.halfwidth

    def as_dict(self) -> dict:
        return {"mean": self.mean, "sd": self.sd, "n": self.n, "low": self.low, "high": self.high}


def mean_from_sums(total: float, total_sq: float, n: int) -> Mean:
    """A Mean from running sums (so batches can be tallied without keeping rows)."""
    if n == 0:
        return Mean(float("nan"), float("nan"), 0)
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * n / (n - 1) if n > 1 else float("nan")
    return Mean(mean, float(np.sqrt(var)), n)


class Moments:
    """Count, mean and sum of squared deviations, merged batch by batch
    (Chan et al.), so a mean over any number of rows needs one batch in memory."""

    def __init__(self):
        self.n, self.mean, self.m2 = 0, 0.0, 0.0

    def add(self, values) -> None:
        values = np.asarray(values, np.float64)
        n = len(values)
        if n == 0:
            return
        mean = float(values.mean())
        m2 = float(((values - mean) ** 2).sum())
        total = self.n + n
        delta = mean - self.mean
        self.mean += delta * n / total
        self.m2 += m2 + delta * delta * self.n * n / total
        self.n = total

    def result(self) -> Mean:
        sd = float(np.sqrt(self.m2 / (self.n - 1))) if self.n > 1 else float("nan")
        return Mean(self.mean if self.n else float("nan"), sd, self.n)


def mean_interval(values) -> Mean:
    """The mean of `values` with its normal 95% interval."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return Mean(float("nan"), float("nan"), 0)
    return Mean(float(x.mean()), float(x.std(ddof=1)) if x.size > 1 else float("nan"), int(x.size))


def rate_difference(k1: int, k2: int, n: int) -> dict:
    """k1/n - k2/n for two outcomes of the same n trials (e.g. rounds won and
    rounds lost), with a normal 95% interval (the multinomial variance, the
    trials taken as independent): estimate, n, low, high."""
    if not n:
        return {"estimate": float("nan"), "n": 0, "low": float("nan"), "high": float("nan")}
    p1, p2 = k1 / n, k2 / n
    d = p1 - p2
    half = Z95 * math.sqrt(max(p1 + p2 - d * d, 0.0) / n)
    return {"estimate": d, "n": n, "low": d - half, "high": d + half}


def column_means(x, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The column means of x[row, column] (e.g. rollout, move) with their
    1 - alpha Student t intervals, as statsmodels' `DescrStatsW(x)
    .tconfint_mean(alpha)` computes them: (means, lows, highs)."""
    from scipy.special import stdtrit     # the t quantile: far lighter than scipy.stats
    x = np.asarray(x, np.float64)
    ones = np.ones(x.shape[0])
    n = ones.sum(0)
    mean = np.dot(x.T, ones) / n
    sem = np.sqrt(np.dot(((x - mean) ** 2).T, ones) / n) / np.sqrt(n - 1)
    t = stdtrit(n - 1, 1 - alpha / 2.0)
    return mean, np.asarray(mean - t * sem), np.asarray(mean + t * sem)


def column_chances(x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The column means of chances x[row, column] in [0, 1] with 95%
    intervals: Wilson's when every x is 0 or 1 (each one decided), else
    Student t (`column_means`)."""
    if np.isin(x, (0.0, 1.0)).all():
        wins = x.sum(0)
        low, high = wilson_ends(wins, len(x))
        return wins / len(x), low, high
    return column_means(x)


def mean_t_interval(x: np.ndarray) -> tuple[float, float, float]:
    """The mean of x with its 95% Student t interval: (mean, low, high), the
    interval NaN with fewer than two values (the mean too with none)."""
    nan = float("nan")
    if len(x) < 2:
        return (float(x.mean()) if len(x) else nan), nan, nan
    mean, low, high = column_means(np.asarray(x, float)[:, None])
    return float(mean[0]), float(low[0]), float(high[0])


BOOTSTRAP_RESAMPLES = 4_000


def nonnegative_mean_interval(values) -> tuple[float, float, float]:
    """The mean of values that cannot be negative (a review's costs) with a
    95% percentile-bootstrap interval: (mean, low, high). The ends are the
    2.5% and 97.5% points of the means of `BOOTSTRAP_RESAMPLES` resamples
    drawn with replacement (numpy, seed 0: the same values give the same
    interval), so they lie within the values' range and never below 0, as a
    t interval of skewed costs does. With few values it runs a little narrow,
    as percentile intervals do; NaN with fewer than two values (the mean too
    with none)."""
    x = np.asarray(values, float)
    nan = float("nan")
    if len(x) < 2:
        return (float(x.mean()) if len(x) else nan), nan, nan
    rng = np.random.default_rng(0)
    means = x[rng.integers(0, len(x), (BOOTSTRAP_RESAMPLES, len(x)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(x.mean()), float(low), float(high)


@dataclass(frozen=True)
class Paired:
    """A ratio estimate from paired units (a deck played with every seating),
    with its 95% interval taking the pairing into account (`low`, `high`) and
    the interval the same data would give if the plays were independent
    (`unpaired_low`, `unpaired_high`: stratified by seating)."""
    estimate: float
    n: int                   # units (pairs, with two sides)
    halfwidth: float         # paired
    unpaired_halfwidth: float
    correlation: float       # between two plays of a unit (residuals; the mean, 3+ plays)

    @property
    def low(self) -> float:
        return self.estimate - self.halfwidth

    @property
    def high(self) -> float:
        return self.estimate + self.halfwidth

    @property
    def unpaired_low(self) -> float:
        return self.estimate - self.unpaired_halfwidth

    @property
    def unpaired_high(self) -> float:
        return self.estimate + self.unpaired_halfwidth

    @property
    def saving(self) -> float:
        """How many times as many unpaired units give the paired interval's width."""
        return (self.unpaired_halfwidth / self.halfwidth) ** 2 if self.halfwidth > 0 else float("nan")

    def as_dict(self) -> dict:
        return {"estimate": self.estimate, "n": self.n, "low": self.low, "high": self.high,
                "halfwidth": self.halfwidth, "unpaired_low": self.unpaired_low,
                "unpaired_high": self.unpaired_high,
                "unpaired_halfwidth": self.unpaired_halfwidth, "correlation": self.correlation,
                "saving": self.saving}


class PairedMoments:
    """Running moments of units each played `plays` times, in constant memory.

    Unit i (one deck, or one game seed) is played once with A at each side
    (two sides: seats swapped); play s gives a total `y_s` over `w_s` rounds
    (for single rounds w = 1). The estimate is the ratio sum(y) / sum(w)
    (the mean per round), and its variance is found from the residuals
    e_s = y_s - r w_s (the delta method for a ratio): paired, var(sum_s e_s);
    unpaired, sum_s var(e_s). Their ratio is about 1 + (plays - 1) times the
    mean correlation of two plays, which is what playing every seating saves
    (or costs). Moments are sums of products, so batches add up in any order
    to the same result.
    """

    def __init__(self, plays: int = 2):
        self.plays = plays
        self.n = 0
        self.sums = np.zeros(2 * plays)
        self.cross = np.zeros((2 * plays, 2 * plays))

    def add(self, ys, ws=1) -> PairedMoments:
        """ys[s][i]: play s of unit i; ws: its rounds (a number, or like ys)."""
        ys = np.asarray(ys, np.float64).reshape(self.plays, -1)
        u = np.concatenate([ys, np.broadcast_to(np.asarray(ws, np.float64), ys.shape)])
        self.n += u.shape[1]
        self.sums += u.sum(1)
        self.cross += u @ u.T
        return self

    def merge(self, other: PairedMoments) -> PairedMoments:
        self.n += other.n
        self.sums += other.sums
        self.cross += other.cross
        return self

    def result(self) -> Paired:
        n, k = self.n, self.plays
        total_w = self.sums[k:].sum()
        if n == 0 or total_w == 0:
            return Paired(float("nan"), n, float("nan"), float("nan"), float("nan"))
        r = self.sums[:k].sum() / total_w
        if n < 2:
            return Paired(float(r), n, float("nan"), float("nan"), float("nan"))
        cov = (self.cross - np.outer(self.sums, self.sums) / n) / (n - 1)
        c = np.hstack([np.eye(k), -r * np.eye(k)])          # row s: e_s = y_s - r w_s
        v = c @ cov @ c.T                                     # covariance of the residuals
        var = np.maximum(np.diag(v), 0.0)
        sd = np.sqrt(var)
        scale = n / total_w ** 2
        pv = v.sum()                          # below 1e-12 of the unpaired: rounding
        paired = Z95 * np.sqrt(pv * scale) if pv > 1e-12 * var.sum() else 0.0
        unpaired = Z95 * np.sqrt(var.sum() * scale)
        spread = sd.sum() ** 2 - var.sum()                    # sum over s != t of sd_s sd_t
        corr = (v.sum() - np.trace(v)) / spread if spread > 0 else float("nan")
        return Paired(float(r), n, float(paired), float(unpaired), float(corr))


def paired_mean(x1, x2) -> Paired:
    """The mean of paired outcomes x1[i], x2[i] (each a single round):
    estimate mean((x1 + x2) / 2), paired and unpaired 95% intervals and the
    correlation of x1 with x2."""
    return PairedMoments().add([x1, x2]).result()


def strict_leader(values) -> np.ndarray:
    """values[row, side] -> the side strictly ahead of every other, -1 on a
    tie at the top (the rule of every "most ..." point and of a round's winner)."""
    values = np.asarray(values)
    top = values.max(1)
    tied = (values == top[:, None]).sum(1) > 1
    return np.where(tied, -1, values.argmax(1)).astype(np.int8)
