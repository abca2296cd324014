"""The policies module: the policy names, playing a position with one, and the one process pool."""

from __future__ import annotations

import json
import os
import time

import pytest

from tutor import policies
from tutor.deals import deal_for
from tutor.engines import InProcess, stream_survey
from tutor.errors import TutorError
from tutor.hints import Method, Why, hint
from tutor.knowledge import observe
from tutor.policies import (
    POLICIES,
    Policy,
    WorkerPool,
    parallel_map,
    parse_policy,
    play,
    play_deal,
    play_greedy,
)
from tutor.rules import preset
from tutor.search import Limit
from tutor.state import State
from tutor.survey import parse_range

OSMOSIS = preset("osmosis")


# Jobs for the pool: module-level, so they pickle by name into the worker processes.


def _slow_square(x: int) -> tuple[int, int]:
    time.sleep(0.02 * (4 - x) if x < 4 else 0)  # the first items finish last
    return x * x, os.getpid()


def _dies_in_a_worker(job: tuple[int, int]) -> tuple[int, int]:
    parent, x = job
    if os.getpid() != parent:
        os._exit(3)  # the worker process dies: the pool breaks
    return x, os.getpid()


def test_the_policy_names_are_the_cli_and_json_strings():
    assert POLICIES == ("solver", "greedy", "tutor")
    assert parse_policy("greedy") is Policy.GREEDY and Policy.TUTOR == "tutor"
    assert json.dumps({"policy": Policy.SOLVER}) == '{"policy": "solver"}'
    with pytest.raises(TutorError, match="unknown policy 'random': expected one of solver, greedy, tutor"):
        parse_policy("random")


def test_play_plays_a_position_with_each_policy():
    state = State.initial(deal_for(2, OSMOSIS), OSMOSIS)
    greedy = play(state, "greedy")
    assert (greedy.won, greedy.cards, greedy.tried) == (False, play_greedy(state).cards, None)
    won = play(State.initial(deal_for(4, OSMOSIS), OSMOSIS), Policy.SOLVER, Limit(nodes=20_000))
    assert won.won is True and won.cards == 52 and won.tried == 20_000
    outcome = play_deal(4, OSMOSIS, "solver", Limit(nodes=20_000))
    assert (outcome.number, outcome.won, outcome.cards, outcome.tried) == (4, True, 52, 20_000)


def test_the_pool_keeps_the_order_of_the_items():
    results = list(parallel_map(_slow_square, range(8), workers=2))
    assert [r[0] for r in results] == [x * x for x in range(8)]
    assert any(pid != os.getpid() for _, pid in results)  # played in worker processes


def test_chunks_keep_the_order_too():
    results = list(parallel_map(_slow_square, range(9), workers=2, chunksize=4))
    assert [r[0] for r in results] == [x * x for x in range(9)]


def test_one_worker_plays_here_and_reads_the_items_lazily():
    pulled = []

    def items():
        for x in range(100):
            pulled.append(x)
            yield x

    stream = parallel_map(_slow_square, items(), workers=1, window=3)
    assert next(stream) == (0, os.getpid())
    assert len(pulled) <= 4
    assert [r[0] for r in stream] == [x * x for x in range(1, 100)]


def test_when_no_process_can_start_the_jobs_run_here(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(policies, "ProcessPoolExecutor", refuse)
    with WorkerPool(2) as pool:
        assert not pool.parallel and pool.workers == 1
        results = list(pool.map(_slow_square, range(5)))
    assert results == [(x * x, os.getpid()) for x in range(5)]


def test_a_job_that_raises_reaches_the_caller():
    with pytest.raises(ValueError, match="invalid literal"):
        list(parallel_map(int, ["1", "2", "x", "4"], workers=2))
    with pytest.raises(ValueError, match="invalid literal"):
        list(parallel_map(int, ["1", "x"], workers=1))


def test_a_dead_worker_leaves_its_jobs_to_this_process():
    here = os.getpid()
    with WorkerPool(2) as pool:
        results = list(pool.map(_dies_in_a_worker, [(here, x) for x in range(6)]))
        assert not pool.parallel  # the broken pool is gone; later jobs run here
    assert results == [(x, here) for x in range(6)]


def test_the_pool_refuses_no_workers():
    with pytest.raises(TutorError, match="expected 1 or more"):
        WorkerPool(0)


def test_the_in_process_engine_on_the_pool_gives_the_same_totals():
    deals = parse_range("1-30")
    one = stream_survey(OSMOSIS, deals, "greedy", batch=4)
    engine = InProcess(workers=2)
    lines: list[str] = []

    class Lines:
        def write(self, line: str) -> None:
            lines.append(line)

    try:
        two = stream_survey(OSMOSIS, deals, "greedy", engine=engine, batch=4, window=3, per_deal=Lines())
    finally:
        engine.close()
    drop = ("seconds",)
    assert {k: v for k, v in one.to_json().items() if k not in drop} == \
        {k: v for k, v in two.to_json().items() if k not in drop}
    assert [json.loads(line)["deal"] for line in lines] == list(range(1, 31))


def test_a_hint_says_how_it_was_settled_with_enums_whose_json_is_the_old_strings():
    state = State.initial(deal_for(7, OSMOSIS), OSMOSIS)
    h = hint(observe(state), samples=8)
    assert isinstance(h.why, Why) and isinstance(h.method, Method)
    assert all(isinstance(c.method, Method) for c in h.candidates)
    data = json.loads(json.dumps(h.to_json()))
    assert data["why"] == h.why.value and data["method"] == h.method.value
    assert type(data["why"]) is str


def test_the_old_homes_still_name_what_moved():
    from tutor import certainty, hints, survey

    assert survey.play_deal is policies.play_deal and survey.DealOutcome is policies.DealOutcome
    assert survey.engine_version is policies.engine_version and survey.POLICIES is policies.POLICIES
    assert hints.play_game is policies.play_game
    for name in ("opens_row", "is_safe", "turn_keeps_value", "certain_moves", "lost_for_certain"):
        assert getattr(hints, name) is getattr(certainty, name)


def test_the_engine_hash_covers_every_module_the_solver_imports():
    """A stored survey result is keyed by the solver's source: a solver module left out would reuse stale answers."""
    import ast
    from pathlib import Path

    from tutor import policies

    here = Path(policies.__file__).parent
    hashed = set(policies._ENGINE_MODULES[policies.Policy.SOLVER])
    todo, seen = ["search"], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        tree = ast.parse((here / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                top = node.module.split(".")[0]
                if (here / f"{top}.py").exists():
                    todo.append(top)
    # modules that only explain (words, graphs) or guard input do not decide a verdict
    explaining = {"errors", "cycles", "textsafe", "inputs", "storage", "graph"}
    assert seen - explaining <= hashed, sorted(seen - explaining - hashed)
