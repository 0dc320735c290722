"""Running sums over a batch of round results, in one pass."""
import numpy as np

from ._jit import kernel
from .scoring import strict_leader


@kernel
def tally(values, sums, wins):
    """Accumulate, for values[side, field, row] (the last field the points):

    sums[side, field, 0/1] += sum / sum of squares over the rows;
    wins[side] += rounds the side has strictly the most points;
    wins[n_sides] += rounds tied at the top.
    """
    n_sides, n_fields, rows = values.shape
    last = n_fields - 1
    for k in range(rows):
        top = strict_leader(values[:, last, k], n_sides)
        wins[n_sides if top < 0 else top] += 1
        for t in range(n_sides):
            for f in range(n_fields):
                x = np.int64(values[t, f, k])
                sums[t, f, 0] += x
                sums[t, f, 1] += x * x
