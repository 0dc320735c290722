"""A small agent trained by REINFORCE through the vectorized env (numpy only):
a linear softmax policy over the legal actions, the round's reward (points
less the opponent's) credited to each of the agent's actions in it, less a
running baseline. The example of docs/ENVS.md.

    >>> from scopa_sim.envs.reinforce import train, evaluate
    >>> policy = train(iterations=300, seed=1)
    >>> evaluate(policy, opponent="random", rounds=4000)    # mean points margin a round
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import vector_env


@dataclass
class Policy:
    """logits = features(obs) @ w + b, masked to the legal actions."""
    w: np.ndarray                # float32[obs_size, 80]
    b: np.ndarray                # float32[80]

    def probabilities(self, obs: dict) -> np.ndarray:
        logits = features(obs["observation"]) @ self.w + self.b
        logits = np.where(obs["action_mask"] > 0, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)

    def act(self, obs: dict, rng: np.random.Generator, greedy: bool = False) -> np.ndarray:
        p = self.probabilities(obs)
        if greedy:
            return p.argmax(axis=1)
        return (p.cumsum(axis=1) > rng.random((len(p), 1))).argmax(axis=1)


class Adam:
    """Adam (Kingma and Ba) ascending the given gradients, in place on `params`."""

    def __init__(self, params, lr: float, b1: float = 0.9, b2: float = 0.999):
        self.params, self.lr, self.b1, self.b2, self.t = params, lr, b1, b2, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def step(self, grads) -> None:
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m += (1 - self.b1) * (g - m)
            v += (1 - self.b2) * (g * g - v)
            mh, vh = m / (1 - self.b1 ** self.t), v / (1 - self.b2 ** self.t)
            p += self.lr * mh / (np.sqrt(vh) + 1e-8)


def features(observation: np.ndarray) -> np.ndarray:
    """The observation as floats, counts scaled to about 0..1."""
    x = observation.astype(np.float32)
    x[:, -4:-2] /= 40.0                 # plays made, cards left to deal
    return x


def train(iterations: int = 300, n: int = 256, steps: int = 64, opponent: str = "random",
          lr: float = 0.01, seed: int = 0, preset: str = "scopa") -> Policy:
    """A policy trained for `iterations` batches of `steps` steps of `n`
    environments against `opponent` (seat 0 against it): each batch's
    finished rounds' actions, their advantages normalised."""
    env = vector_env(n, preset, opponent=opponent, threads=1)
    obs, _ = env.reset(seed=seed)
    size = obs["observation"].shape[1]
    policy = Policy(np.zeros((size, 80), np.float32), np.zeros(80, np.float32))
    rng = np.random.default_rng(seed)
    x = np.zeros((steps, n, size), np.float32)
    g = np.zeros((steps, n, 80), np.float32)
    rewards, done = np.zeros((steps, n), np.float32), np.zeros((steps, n), bool)
    adam = Adam((policy.w, policy.b), lr)
    for _ in range(iterations):
        for t in range(steps):
            p = policy.probabilities(obs)
            a = (p.cumsum(axis=1) > rng.random((n, 1))).argmax(axis=1)
            x[t] = features(obs["observation"])
            g[t] = -p
            g[t, np.arange(n), a] += 1.0                  # d log p(a) / d logits
            obs, rewards[t], done[t], _, _ = env.step(a)
        returns, valid = np.zeros((steps, n), np.float32), np.zeros((steps, n), bool)
        ret, ok = np.zeros(n, np.float32), np.zeros(n, bool)
        for t in range(steps - 1, -1, -1):             # each step's round's reward, if it ended
            ret = np.where(done[t], rewards[t], ret)
            ok = ok | done[t]
            returns[t], valid[t] = ret, ok
        r = returns[valid]
        if len(r) < 2:
            continue
        advantage = (r - r.mean()) / (r.std() + 1e-6)
        grad = g[valid] * advantage[:, None]
        adam.step(((x[valid].T @ grad) / len(r), grad.mean(axis=0)))
    env.close()
    return policy


def evaluate(policy: Policy | None, opponent: str = "random", rounds: int = 4000,
             seed: int = 12345, greedy: bool = True, n: int = 500,
             preset: str = "scopa") -> float:
    """The mean points margin a round of `policy` (None: uniformly random
    legal actions) at seat 0 against `opponent`, over `rounds` rounds."""
    env = vector_env(n, preset, opponent=opponent, threads=1)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, done_rounds, k = 0.0, 0, 0
    while done_rounds < rounds:
        a = env.sample(k) if policy is None else policy.act(obs, rng, greedy)
        obs, reward, done, _, _ = env.step(a)
        total += float(reward[done].sum())
        done_rounds += int(done.sum())
        k += 1
    env.close()
    return total / done_rounds
