"""Statistics with their uncertainty: every rate comes with n and an interval."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from statsmodels.stats.proportion import proportion_confint

Z95 = 1.959963984540054


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


def wilson(k: int, n: int, alpha: float = 0.05) -> Rate:
    """The Wilson score interval for k of n (statsmodels)."""
    if n == 0:
        return Rate(0, 0, float("nan"), float("nan"))
    low, high = proportion_confint(int(k), int(n), alpha=alpha, method="wilson")
    return Rate(int(k), int(n), float(low), float(high))


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
