"""Bradley-Terry ratings from pairwise results (choix), with intervals from
the Hessian of the log-likelihood, and the same on an Elo scale."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..stats import Z95

ELO_PER_LOGIT = 400 / np.log(10)     # Elo points per unit of log-strength
ELO_MEAN = 1500.0


@dataclass(frozen=True)
class Ratings:
    """Log-strengths (mean 0) with 95% intervals; Elo = 1500 + 400/ln 10 * theta."""
    theta: np.ndarray
    se: np.ndarray

    @property
    def low(self) -> np.ndarray:
        return self.theta - Z95 * self.se

    @property
    def high(self) -> np.ndarray:
        return self.theta + Z95 * self.se

    @property
    def elo(self) -> np.ndarray:
        return ELO_MEAN + ELO_PER_LOGIT * self.theta

    @property
    def elo_low(self) -> np.ndarray:
        return ELO_MEAN + ELO_PER_LOGIT * self.low

    @property
    def elo_high(self) -> np.ndarray:
        return ELO_MEAN + ELO_PER_LOGIT * self.high

    def win_probability(self, i: int, j: int) -> float:
        """The model's P(i beats j)."""
        return float(1 / (1 + np.exp(self.theta[j] - self.theta[i])))


def bradley_terry(wins, alpha: float = 1e-3) -> Ratings:
    """Bradley-Terry log-strengths from `wins[i, j]`, the number of times i
    beat j (a draw counts half to each). Fitted by choix's iterative LSR
    (`alpha` a small regularisation, so a side that never loses has a finite
    rating); standard errors from the inverse Fisher information under the
    constraint that the strengths sum to 0 (its pseudo-inverse)."""
    import choix

    wins = np.asarray(wins, np.float64)
    k = wins.shape[0]
    if wins.ndim != 2 or wins.shape != (k, k) or k < 2:
        raise ValueError("wins must be a square matrix of at least 2 items")
    if (wins < 0).any():
        raise ValueError("win counts must not be negative")
    theta = choix.ilsr_pairwise_dense(wins, alpha=alpha, max_iter=1000, tol=1e-10)
    theta = theta - theta.mean()
    games = wins + wins.T
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))    # p[i, j] = P(i beats j)
    w = games * p * (1 - p)
    np.fill_diagonal(w, 0.0)
    info = np.diag(w.sum(1)) - w                              # Laplacian of the weights
    cov = np.linalg.pinv(info)
    return Ratings(theta, np.sqrt(np.clip(np.diag(cov), 0, None)))
