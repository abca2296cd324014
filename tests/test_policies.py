"""The policies module: the policy names, playing a position with one, and the one process pool."""

from __future__ import annotations

import json
import os
import time

import pytest

from tutor import policies
from tutor import pool as pool_module
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

    monkeypatch.setattr(pool_module, "ProcessPoolExecutor", refuse)
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


@pytest.mark.parametrize("policy, start", [("solver", "search"), ("tutor", "policies"), ("tutor", "hints")])
def test_the_engine_hash_covers_every_module_the_policy_imports(policy, start):
    """A stored survey result is keyed by the policy's source: a module left out would reuse stale answers. The
    tutor's key left out talon.py, whose last_pass and turn_ends_game decide its certain moves (survey audit:
    a change there changed peek deal 2's tutor game from 44 cards to 43 under the same key)."""
    import ast
    from pathlib import Path

    from tutor import policies

    here = Path(policies.__file__).parent
    hashed = set(policies._ENGINE_MODULES[policies.Policy(policy)])
    todo, seen = [start], set()
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
    # modules that only explain (words, graphs), guard input, spread work over processes or stop them do not
    # decide a verdict; the words (tutor.narrate, a package) are not followed
    explaining = {"errors", "cycles", "textsafe", "inputs", "storage", "graph", "pool", "stopping"}
    assert seen - explaining <= hashed, sorted(seen - explaining - hashed)


def _pid_then_sleep(path: str) -> int:
    with open(path, "w") as f:
        f.write(str(os.getpid()))
    time.sleep(120)
    return os.getpid()


def _sigint_ignored(_: int) -> bool:
    import signal

    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_the_workers_leave_ctrl_c_to_the_main_process():
    # the terminal sends Ctrl-C to every process of the group: a worker that died of it broke the pool
    assert all(parallel_map(_sigint_ignored, range(4), workers=2))


def test_a_pool_left_by_an_exception_stops_its_running_jobs_at_once(tmp_path):
    marker = tmp_path / "pid"
    with pytest.raises(KeyboardInterrupt):
        with WorkerPool(2) as pool:
            if not pool.parallel:
                pytest.skip("no worker processes here")
            task = pool.submit(_pid_then_sleep, str(marker))
            while not marker.exists() or not marker.read_text():
                time.sleep(0.05)
            assert task is not None
            raise KeyboardInterrupt  # as Ctrl-C would, in the middle of a 120 s job
    with pytest.raises(ProcessLookupError):
        os.kill(int(marker.read_text()), 0)  # the worker was stopped, not waited for


def _own_session() -> None:
    import signal

    os.setsid()
    signal.signal(signal.SIGHUP, signal.SIG_DFL)  # nohup's SIG_IGN would be kept: the child would not hear it


def review_at_work(tmp_path, new_session: bool = False):
    """``osmosis review`` of a 45-move game on two worker processes, started in a child (with ``new_session``
    in a session of its own, as a terminal's job is, and SIGHUP at its default even where the tests run under
    nohup); the child and its workers' pids once they run (the test is skipped where no worker process starts)."""
    import subprocess
    import sys

    from tutor.record import Record, save_record

    rules = preset("osmosis")
    path = tmp_path / "game.json"
    save_record(Record(rules, deal_for(10, rules), ["r2"] + ["d"] * 25 + ["r4"] + ["d"] * 8 + ["w"] + ["d"] * 10), path)
    env = {**os.environ, "OSMOSIS_HOME": str(tmp_path / "home")}
    child = subprocess.Popen([sys.executable, "-c", "from tutor.cli import main; main()", "review", str(path),
                              "--samples", "64", "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=env, text=True, preexec_fn=_own_session if new_session else None)
    workers: list[str] = []
    for _ in range(600):  # until its worker processes are running
        time.sleep(0.05)
        listed = subprocess.run(["pgrep", "-P", str(child.pid)], capture_output=True, text=True).stdout.split()
        workers = [w for p in listed for w in
                   subprocess.run(["pgrep", "-P", p], capture_output=True, text=True).stdout.split()]
        if workers or child.poll() is not None:
            break
    if not workers:
        child.kill()
        pytest.skip("the review ran without worker processes here")
    return child, workers


def test_a_killed_review_stops_with_its_workers_and_says_interrupted(tmp_path):
    import signal
    import subprocess

    child, workers = review_at_work(tmp_path)
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130 and err == "interrupted\n" and out == ""
    for _ in range(100):
        alive = subprocess.run(["ps", "-o", "stat=", "-p", ",".join(workers)], capture_output=True, text=True).stdout
        if all(s.startswith("Z") for s in alive.split()):
            break
        time.sleep(0.1)
    assert all(s.startswith("Z") for s in alive.split()), alive  # gone (or only waiting to be reaped)


def test_kill_stops_a_long_command_like_ctrl_c_but_nohup_keeps_its_hangup_ignored():
    import signal

    from tutor.cli.common import stopped_like_ctrl_c

    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as nohup starts a command
    try:
        with stopped_like_ctrl_c():
            assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
            with pytest.raises(KeyboardInterrupt):
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(1)
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    finally:
        signal.signal(signal.SIGHUP, before)
