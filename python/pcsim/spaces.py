"""A minimal Box space with gymnasium.spaces.Box's interface (shape, dtype,
low, high, contains, sample, seed), used by pcsim.env.StationEnv when
gymnasium is not importable. With gymnasium, StationEnv uses its Box."""

import numpy as np


class Box:
    """A box in R^n: low <= x <= high elementwise (bounds may be infinite)."""

    def __init__(self, low, high, shape=None, dtype=np.float64, seed=None):
        self.dtype = np.dtype(dtype)
        if shape is None:
            shape = np.shape(low) if np.ndim(low) else np.shape(high)
        self.shape = tuple(int(s) for s in shape)
        self.low = np.broadcast_to(np.asarray(low, dtype=self.dtype), self.shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=self.dtype), self.shape).copy()
        if np.any(self.low > self.high):
            i = int(np.argmax(self.low > self.high))
            raise ValueError(f"Box: low[{i}] = {self.low.flat[i]} > high[{i}] = {self.high.flat[i]}")
        self._np_random = None
        if seed is not None:
            self.seed(seed)

    @property
    def np_random(self):
        if self._np_random is None:
            self.seed()
        return self._np_random

    def seed(self, seed=None):
        self._np_random = np.random.default_rng(seed)
        return [seed]

    def contains(self, x):
        x = np.asarray(x)
        return (x.shape == self.shape and np.can_cast(x.dtype, self.dtype)
                and bool(np.all(x >= self.low)) and bool(np.all(x <= self.high)))

    __contains__ = contains

    def sample(self):
        """Uniform inside finite bounds; normal (or shifted exponential)
        where a bound is infinite, as gymnasium's Box does."""
        r = self.np_random
        lo, hi = self.low, self.high
        out = np.empty(self.shape)
        both = np.isfinite(lo) & np.isfinite(hi)
        none = ~np.isfinite(lo) & ~np.isfinite(hi)
        lo_only = np.isfinite(lo) & ~np.isfinite(hi)
        hi_only = ~np.isfinite(lo) & np.isfinite(hi)
        out[both] = r.uniform(lo[both], hi[both])
        out[none] = r.normal(size=int(none.sum()))
        out[lo_only] = lo[lo_only] + r.exponential(size=int(lo_only.sum()))
        out[hi_only] = hi[hi_only] - r.exponential(size=int(hi_only.sum()))
        return out.astype(self.dtype)

    def __repr__(self):
        return f"Box({self.low}, {self.high}, {self.shape}, {self.dtype})"

    def __eq__(self, other):
        return (isinstance(other, Box) and self.shape == other.shape and self.dtype == other.dtype
                and np.array_equal(self.low, other.low) and np.array_equal(self.high, other.high))
