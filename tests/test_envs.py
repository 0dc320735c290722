"""The learning environments (`scopa_sim.envs`, docs/ENVS.md): PettingZoo's
and Gymnasium's own checks, the simulator's deals and scores played again
through them, every legal move reachable by exactly its actions, the
vectorized env stepping as the AEC env does, and bad input refused."""
import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

import scopa_sim  # noqa: E402
from scopa_sim.engine.cards import mask_of  # noqa: E402
from scopa_sim.engine.deals import deck as deck_of  # noqa: E402
from scopa_sim.engine.envs import N_ACTIONS, TAKE, Rounds  # noqa: E402
from scopa_sim.engine.rules import PRESETS  # noqa: E402
from scopa_sim.envs import aec_env, gym_env, vector_env  # noqa: E402
from scopa_sim.kernels.position import PLAYS  # noqa: E402

OPTIONS = [("scopa", {}), ("scopa", {"fewest_cards": True}), ("scopa", {"ace_takes_all": True}),
           ("scopa", {"scopa_on_last_play": True, "re_bello": True, "napola": True}),
           ("scopa", {"ranks": 3, "hand_size": 2}),
           *[(p, {}) for p in PRESETS if p != "scopa"]]


@pytest.mark.parametrize("preset,options", OPTIONS,
                         ids=[f"{p}{'+' + '+'.join(o) if o else ''}" for p, o in OPTIONS])
def test_pettingzoo_api_and_seed_tests_pass(preset, options):
    from pettingzoo.test import api_test, seed_test
    api_test(aec_env(preset, **options), num_cycles=60)
    seed_test(lambda: aec_env(preset, **options), num_cycles=60)


def test_reset_deals_the_simulators_decks():
    env = aec_env()
    env.reset(seed=12)
    for k in range(5):
        st = env.unwrapped.rounds.state
        assert st.deck[0].tolist() == deck_of(12, k)
        rnd = scopa_sim.Round(deck=deck_of(12, k), dealer=k % 2)
        assert [mask_of(h) for h in rnd.hands] == st.pos[0, :2].tolist()
        env.reset()
    env.reset(seed=12, options={"round": 3})
    assert env.unwrapped.rounds.state.deck[0].tolist() == deck_of(12, 3)


def _play_rounds(env, rounds, strategies):
    """Each round's result, every seat's moves asked of `strategies`."""
    out = []
    for _ in range(rounds):
        while env.agents and not env.terminations[env.agent_selection]:
            seat = env.possible_agents.index(env.agent_selection)
            env.play(env.suggest(strategies[seat]))
        out.append(env.infos["player_0"]["result"])
        env.reset()
    return out


def test_a_thousand_rounds_through_the_env_score_as_simulate():
    env = aec_env()
    env.reset(seed=2026)
    rows = _play_rounds(env, 1000, ("random", "greedy"))
    df = scopa_sim.simulate(rounds=1000, strategies=("random", "greedy"), seed=2026)
    for name in rows[0]:
        assert [r[name] for r in rows] == df[name].tolist(), name


def test_the_gym_env_against_greedy_scores_as_simulate():
    g = gym_env(opponent="greedy", seat=1)
    df = scopa_sim.simulate(rounds=100, strategies=("greedy", "random"), seed=8)
    g.reset(seed=8)
    for k in range(100):
        done = False
        while not done:
            _, reward, done, _, info = g.play(g.suggest("random"))
        assert info["result"]["points_1"] == df["points_1"][k]
        assert reward == df["points_1"][k] - df["points_0"][k]
        g.reset()


def _copy(src: Rounds, dst: Rounds) -> None:
    for a, b in zip(src.state, dst.state):
        b[...] = a


@pytest.mark.parametrize("preset,options", [("scopa", {}), ("scopa-4-nine", {}),
                                            ("scopone-scientifico", {"fewest_cards": True})])
def test_every_legal_move_is_reached_by_its_actions_alone(preset, options):
    """At each decision, each legal (card, capture) played from a copy of the
    round by `action_for` is the move logged; the first action's mask is the
    hand, and a step that is not the first offers two choices or more."""
    rules = scopa_sim.Rules.preset(preset).with_options(**options)
    a, b = Rounds(1, rules), Rounds(1, rules)
    several = 0
    rng = np.random.default_rng(0)
    for k in range(40):
        a.reset(seed=3, first=k)
        while a.state.mask[0].any():
            pos = a.state.pos[0]
            seat = int(a.state.seat[0])
            assert np.flatnonzero(a.state.mask[0]).tolist() == \
                [c for c in range(40) if int(pos[seat]) >> c & 1]
            moves = a.moves(0)
            for move in moves:
                _copy(a, b)
                plays, steps = int(pos[PLAYS]), 0
                while True:
                    b.step(np.array([b.action_for(0, move)]))
                    steps += 1
                    if b.state.pending[0] < 0:
                        break
                    assert b.state.mask[0].sum() >= 2
                    assert b.state.mask[0, :TAKE].sum() == 0
                several += steps > 1
                assert b.state.log[0, plays].tolist() == [seat, move[0], mask_of(move[1])]
            move = moves[rng.integers(len(moves))]
            while True:
                a.step(np.array([a.action_for(0, move)]))
                if a.state.pending[0] < 0:
                    break
    assert several > 0


def test_render_prints_the_table(capsys):
    env = aec_env(render_mode="human")
    env.reset(seed=1)
    out = capsys.readouterr().out
    assert "table:" in out and "<- to play" in out and "player_0" in out
    g = gym_env(opponent="greedy", render_mode="ansi")
    g.reset(seed=1)
    assert "table:" in g.render()


def test_check_env_passes():
    from gymnasium.utils.env_checker import check_env
    check_env(gym_env(opponent="greedy", illegal="lose"), skip_render_check=True)


@pytest.mark.slow
def test_the_gym_env_against_the_net_plays_rounds():
    """The default opponent, the net (compiles the search strategies' step)."""
    g = gym_env()
    obs, _ = g.reset(seed=4)
    done, steps = False, 0
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, reward, done, _, _ = g.step(int(legal[0]))
        steps += 1
    assert steps >= 18


def _vector_trajectories(seed, n, steps):
    v = vector_env(n, opponent=None, threads=1)
    obs, info = v.reset(seed=seed)
    history = [[] for _ in range(n)]          # per env: (round, action, obs, mask, rewards, done)
    for k in range(steps):
        actions = v.sample(100 + k)
        rounds = info["round"].copy()
        before = obs
        obs, rewards, term, _, info = v.step(actions)
        for i in range(n):
            history[i].append((int(rounds[i]), int(actions[i]), before["observation"][i],
                               before["action_mask"][i], rewards[i], bool(term[i])))
    return history


def test_the_vector_env_steps_as_the_aec_env():
    n, seed = 3, 77
    history = _vector_trajectories(seed, n, 150)
    env = aec_env()
    for i in range(n):
        current = None
        for rnd, action, obs, mask, rewards, done in history[i]:
            assert rnd % n == i
            if rnd != current:
                env.reset(seed=seed, options={"round": rnd})
                current = rnd
            seen, *_ = env.last()
            assert (seen["observation"] == obs).all() and (seen["action_mask"] == mask).all()
            env.step(action)
            if done:
                got = [env.rewards[a] for a in env.possible_agents]
                assert got == rewards[:2].tolist()
                current = None
            else:
                assert not any(env.terminations.values())


def test_the_vector_env_is_deterministic_on_one_thread_or_two():
    runs = []
    for threads in (1, 2, 2):
        v = vector_env(600, opponent="greedy", threads=threads)
        obs, _ = v.reset(seed=9)
        total = np.zeros(600)
        for k in range(60):
            obs, r, term, trunc, info = v.step(v.sample(k))
            total += r
        runs.append((obs["observation"].copy(), total))
    assert v.rounds.threads == 2
    for obs, total in runs[1:]:
        assert (obs == runs[0][0]).all() and (total == runs[0][1]).all()


def test_the_vector_env_follows_the_conventions():
    v = vector_env(8, opponent="random")
    obs, info = v.reset(seed=1)
    assert obs["action_mask"].shape == (8, N_ACTIONS) and obs["action_mask"].dtype == np.int8
    assert v.observation_space.contains(obs)
    ended = 0
    for k in range(200):
        obs, r, term, trunc, info = v.step(v.sample(k))
        assert r.shape == (8,) and r.dtype == np.float32 and not trunc.any()
        assert (r[~term] == 0).all() and obs["action_mask"].any(axis=1).all()
        ended += term.sum()
    assert ended > 8



@pytest.mark.parametrize("opponent", [None, "greedy"])
def test_copy_false_hands_back_the_envs_own_arrays_and_copy_true_fresh_ones(opponent):
    """The same steps either way; copy=False's arrays are the env's own (the
    next step's too; its constants read-only), copy=True's the caller's."""
    own, fresh = (vector_env(4, opponent=opponent, copy=c) for c in (False, True))
    own.reset(seed=3)
    fresh.reset(seed=3)
    before = None
    for k in range(60):
        a, b = own.step(own.sample(k)), fresh.step(fresh.sample(k))
        for x, y in zip((a[0]["observation"], a[1], a[2], a[4]["seat"]),
                        (b[0]["observation"], b[1], b[2], b[4]["seat"])):
            assert np.array_equal(x, y)
        if before is not None:
            assert all(np.shares_memory(x, y) for x, y in zip(a[1:3], before[0][1:3]))
            assert not any(np.shares_memory(x, y) for x, y in zip(b[1:3], before[1][1:3]))
        before = a, b
    assert not a[3].flags.writeable and not a[4]["_seat"].flags.writeable and not a[3].any()
    assert b[3].flags.writeable and b[4]["_seat"].flags.writeable


# ---- bad input: one clear error each ----------------------------------------------
def test_an_illegal_action_raises_naming_it():
    env = aec_env()
    env.reset(seed=1)
    obs, *_ = env.last()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=f"action {bad} .* is not legal here: legal are"):
        env.step(bad)
    with pytest.raises(ValueError, match="whole number 0..79"):
        env.step("7d")
    g = gym_env(opponent="greedy")
    g.reset(seed=1)
    with pytest.raises(ValueError, match="not legal here"):
        g.step(79)
    with pytest.raises(ValueError, match=r"actions are 0..79"):
        g.step(80)


def test_a_step_after_the_round_is_over_raises():
    g = gym_env(opponent="greedy")
    obs, _ = g.reset(seed=2)
    done = False
    while not done:
        obs, _, done, _, _ = g.step(int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(ValueError, match="the round is over"):
        g.step(0)
    env = aec_env()
    env.reset(seed=2)
    _play_rounds_without_reset(env)
    with pytest.raises(ValueError, match="the round is over"):
        env.step(3)


def _play_rounds_without_reset(env):
    while not env.terminations[env.agent_selection]:
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_an_unknown_preset_or_option_raises():
    with pytest.raises(ValueError, match="unknown rules preset 'scopaa'"):
        aec_env("scopaa")
    with pytest.raises(ValueError, match="unknown rule option"):
        gym_env("greedy", fewest=True)
    with pytest.raises(ValueError, match="unknown strategy"):
        gym_env("greedyy")


def test_the_vector_env_refuses_actions_and_masks_of_the_wrong_shape_or_dtype():
    v = vector_env(4, opponent="random")
    v.reset(seed=1)
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        v.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="whole numbers"):
        v.step(np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="environment 0: action 79"):
        v.step(np.full(4, 79))
    with pytest.raises(ValueError, match=r"mask has shape \(4, 80\)"):
        v.sample(0, np.ones((4, 40), np.int8))
    with pytest.raises(ValueError, match="int8 or bool"):
        v.sample(0, np.ones((4, 80), np.float64))
    assert (v.sample(0, np.ones((4, 80), bool)) >= 0).all()


def test_random_actions_are_legal_and_the_same_on_one_thread_or_two():
    one, two = vector_env(700, threads=1), vector_env(700, threads=2)
    for v in (one, two):
        v.reset(seed=3)
    a, b = one.sample(5), two.sample(5)
    assert (a == b).all() and two.rounds.threads == 2
    assert one.rounds.state.mask[np.arange(700), a].all()


def test_random_actions_draw_as_the_reference_stream_does():
    """Row i's action is the k-th legal one (k drawn by the plain stream
    (seed, i)), for masks of any actions, 64..79 too; -1 where none is legal."""
    from reference.engine import stream
    rng = np.random.default_rng(4)
    masks = (rng.random((600, N_ACTIONS)) < rng.random((600, 1)) / 4).astype(np.int8)
    masks[::9] = 0
    masks[1::9, 70] = 1
    drawn = vector_env(600, threads=2).sample(77, masks)
    for i, row in enumerate(masks):
        legal = np.flatnonzero(row)
        assert drawn[i] == (legal[stream(77, i).below(len(legal))] if len(legal) else -1)


def test_reinforce_beats_random_after_a_short_training():
    """docs/ENVS.md's example, short: 30 batches (about 10 s)."""
    from scopa_sim.envs.reinforce import evaluate, train
    policy = train(iterations=30, seed=1)
    assert evaluate(policy, "random", 2000) > evaluate(None, "random", 2000) + 0.1


def test_the_core_package_loads_no_learning_library():
    """`import scopa_sim`, a simulation, and the engine's rounds load none of
    pettingzoo, gymnasium or pyspiel: only `scopa_sim.envs`' modules do."""
    import subprocess
    import sys
    code = ("import sys, scopa_sim; scopa_sim.simulate(rounds=10, seed=1); "
            "import scopa_sim.engine.envs, scopa_sim.envs; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('pettingzoo', 'gymnasium', 'pyspiel', 'open_spiel')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_plain_python_opponent_is_refused():
    from pathlib import Path
    example = Path(__file__).resolve().parents[1] / "docs" / "examples" / "greedy_py.py"
    with pytest.raises(ValueError, match="plain-Python user strategy cannot play inside"):
        gym_env(opponent=f"{example}:greedy")


def test_gymnasiums_vector_wrappers_read_the_vector_env():
    from gymnasium.wrappers.vector import RecordEpisodeStatistics
    v = RecordEpisodeStatistics(vector_env(16, opponent="greedy"))
    v.reset(seed=1)
    for k in range(200):
        _, r, term, _, info = v.step(v.unwrapped.sample(k))
        if term.any():
            break
    assert (info["episode"]["r"][term] == r[term]).all() and info["_episode"][term].all()


def _card_set(plane) -> int:
    """The card set a 40-byte plane of 0s and 1s shows (and nothing else)."""
    assert set(np.unique(plane)) <= {0, 1}
    return sum(1 << c for c in range(40) if plane[c])


@pytest.mark.parametrize("preset", ["scopa", "scopa-4"])
def test_the_observation_shows_the_position_as_documented(preset):
    """The observation read back as docs/ENVS.md lays it out (each card
    plane, the mask, the counts after them) against the kernel position, at
    every step of random rounds."""
    from scopa_sim.kernels import position as P
    rounds, pick = Rounds(1, preset), np.random.default_rng(3)
    r = rounds.rules
    everything = (1 << 40) - 1
    for k in range(8):
        rounds.reset(seed=5, first=k)
        st = rounds.state
        while not st.done[0]:
            pos, obs, mask = st.pos[0], st.obs[0], st.mask[0]
            seat, side = int(st.seat[0]), r.teams[int(st.seat[0])]
            hand, table = int(pos[P.HAND + seat]), int(pos[P.TABLE])
            piles = [int(pos[P.PILE + (side + j) % r.n_sides]) for j in range(r.n_sides)]
            choosing = int(st.pending[0]) >= 0
            assert _card_set(obs[0:40]) == hand and _card_set(obs[40:80]) == table
            assert _card_set(obs[80:120]) == everything & ~(hand | table | sum(piles))
            assert _card_set(obs[120:160]) == (1 << int(st.pending[0]) if choosing else 0)
            assert _card_set(obs[160:200]) == (int(st.chosen[0]) if choosing else 0)
            for j, pile in enumerate(piles):
                assert _card_set(obs[200 + 40 * j:240 + 40 * j]) == pile
            assert _card_set(mask[:40]) == (0 if choosing else hand)
            assert _card_set(mask[40:]) == (int(st.options[0]) if choosing else 0)
            n, sides, dealer = r.players, r.n_sides, int(pos[P.DEALER])
            last = int(pos[P.LAST]) - 1
            tail = obs[200 + 40 * sides:].tolist()
            place, capturer = [0] * n, [0] * (n + 1)
            place[(seat - (dealer + 1)) % n] = 1
            capturer[(last - seat) % n if last >= 0 else n] = 1
            assert tail == (place + capturer
                            + [int(pos[P.SCOPAS + (side + j) % sides]) for j in range(sides)]
                            + [bin(int(pos[P.HAND + (seat + j) % n])).count("1")
                               for j in range(n)]
                            + [int(pos[P.PLAYS]), 40 - int(pos[P.DECK]),
                               int(pos[P.PLAYS] + 1 == pos[P.TOTAL]), int(choosing)])
            rounds.step(int(pick.choice(mask.nonzero()[0])))


def test_a_fork_steps_its_own_round_after_the_parent_has_stepped():
    """`Rounds.fork` after one-row steps (whose kernel arguments `step`
    keeps): parent and fork go on apart, each as a fresh round would."""
    parent, fresh = Rounds(1), Rounds(1)
    for r in (parent, fresh):
        r.reset(5)
    for _ in range(3):
        a = int(np.flatnonzero(parent.state.mask[0])[0])
        parent.step(a)
        fresh.step(a)
    child = parent.fork()
    for r in (child, parent, fresh):
        for _ in range(4):                    # each takes the last legal action
            r.step(int(np.flatnonzero(r.state.mask[0])[-1]))
    assert child.plays(0) == parent.plays(0) == fresh.plays(0)
    before = parent.state.pos.copy()
    child.step(int(np.flatnonzero(child.state.mask[0])[0]))
    assert (parent.state.pos == before).all() and (child.state.pos != before).any()
