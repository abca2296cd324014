"""Surveys at scale: Dask engines, the results store, streaming, and ``osmosis stats`` through the CLI."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import tracemalloc

import pytest

from tutor.engines import DaskEngine, stream_survey
from tutor.errors import TutorError
from tutor.rules import preset
from tutor.search import Limit
from tutor.store import ResultStore, config_key
from tutor.survey import DealRange, parse_range

distributed = pytest.importorskip("distributed")

OSMOSIS = preset("osmosis")
LIMIT = Limit(nodes=20_000)


def lines_of(buffer: io.StringIO) -> list[dict]:
    """Per-deal lines without their timings (the only part that depends on the machine)."""
    out = []
    for line in buffer.getvalue().splitlines():
        row = json.loads(line)
        row.pop("seconds")
        out.append(row)
    return out


def totals(tally) -> dict:
    data = tally.to_json()
    for key in ("seconds", "from_store", "computed"):
        data.pop(key)
    return data


@pytest.fixture(scope="module")
def serial():
    """Deals 1-40 of Osmosis played here, one by one: what every engine must give."""
    buf = io.StringIO()
    tally = stream_survey(OSMOSIS, DealRange(1, 40), "solver", LIMIT, per_deal=buf, batch=5)
    return totals(tally), lines_of(buf)


@pytest.fixture(scope="module")
def threads_cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0",
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        yield client


def test_two_dask_workers_give_what_one_process_gives(serial, threads_cluster):
    buf = io.StringIO()
    engine = DaskEngine(client=threads_cluster)
    tally = stream_survey(OSMOSIS, DealRange(1, 40), "solver", LIMIT, engine=engine, per_deal=buf, batch=5)
    assert (totals(tally), lines_of(buf)) == serial
    assert [row["deal"] for row in lines_of(buf)] == list(range(1, 41))  # in deal order, whatever finished first


def test_a_worker_killed_mid_survey_has_its_batches_rerun(serial):
    # Real worker processes under nannies: SIGKILL one after the first batch is folded in.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        pids = sorted(client.run(os.getpid).values())
        killed = []

        def kill_one(p):
            if not killed:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(p.done)

        buf = io.StringIO()
        tally = stream_survey(OSMOSIS, DealRange(1, 40), "solver", LIMIT, engine=DaskEngine(client=client),
                              per_deal=buf, batch=5, progress=kill_one)
        assert killed and killed[0] < 40
        assert (totals(tally), lines_of(buf)) == serial


def test_a_cluster_that_lost_every_worker_is_one_clear_error_not_a_wait(tmp_path):
    """Workers that cannot import osmosis-tutor die on the first batch; the scheduler then had none, the tasks
    waited for one, and `stats --scheduler` printed "0/3 deals, 105 s so far" until it was killed."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        engine = DaskEngine(client=client, worker_timeout=1.0)
        cluster.scale(0)
        deadline = time.monotonic() + 30
        while client.scheduler_info(n_workers=-1).get("workers") and time.monotonic() < deadline:
            time.sleep(0.1)
        store = ResultStore(tmp_path / "s.sqlite3")
        # the error names the 1 s worker timeout: it came from that rule, not from a wait that ended some other way
        with pytest.raises(TutorError, match="no worker for more than 1 s.*finished batches are kept"):
            stream_survey(OSMOSIS, DealRange(1, 10), "greedy", LIMIT, engine=engine, store=store, batch=5)
        store.close()


def test_an_interrupted_survey_resumes_from_the_store(tmp_path, serial):
    path = tmp_path / "s.sqlite3"

    def stop_after_three(p):
        if p.done >= 15:
            raise KeyboardInterrupt

    with ResultStore(path) as store, pytest.raises(KeyboardInterrupt):
        stream_survey(OSMOSIS, DealRange(1, 40), "solver", LIMIT, store=store, batch=5, progress=stop_after_three)
    with ResultStore(path) as store:
        assert store.count(store.config_id(config_key(OSMOSIS, "solver", LIMIT))) == 15
        buf = io.StringIO()
        resumed = stream_survey(OSMOSIS, DealRange(1, 40), "solver", LIMIT, store=store, batch=5, per_deal=buf)
        assert resumed.from_store == 15 and resumed.deals == 40
        assert (totals(resumed), lines_of(buf)) == serial
        again = stream_survey(OSMOSIS, DealRange(1, 40), "solver", LIMIT, store=store, batch=5)
        assert again.from_store == 40 and totals(again) == serial[0]


def test_two_surveys_can_share_one_store_at_once(tmp_path):
    import threading

    path, results, errors = tmp_path / "s.sqlite3", {}, []

    def survey(name, deals):
        try:
            with ResultStore(path) as store:
                results[name] = totals(stream_survey(OSMOSIS, deals, "greedy", store=store, batch=50))
        except Exception as exc:  # pragma: no cover - the failure is the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=survey, args=(n, DealRange(1 + 100 * n, 1500 + 100 * n))) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results[0] == totals(stream_survey(OSMOSIS, DealRange(1, 1500), "greedy"))
    with ResultStore(path) as store:
        assert store.count(store.config_id(config_key(OSMOSIS, "greedy", LIMIT))) == 1600


def test_the_store_key_holds_the_rules_policy_and_limit(tmp_path):
    with ResultStore(tmp_path / "s.sqlite3") as store:
        stream_survey(OSMOSIS, DealRange(1, 6), "solver", LIMIT, store=store)
        # Peek is the same game with every card known: the solver shares Osmosis's results...
        assert stream_survey(preset("peek"), DealRange(1, 6), "solver", LIMIT, store=store).from_store == 6
        # ...but another limit, another rule or another policy is played again.
        assert stream_survey(OSMOSIS, DealRange(1, 6), "solver", Limit(nodes=5000), store=store).from_store == 0
        assert stream_survey(preset("single"), DealRange(1, 6), "solver", LIMIT, store=store).from_store == 0
        assert stream_survey(OSMOSIS, DealRange(1, 6), "greedy", LIMIT, store=store).from_store == 0


def test_a_second_search_decides_what_the_first_leaves_and_the_store_keeps_it_exact(tmp_path):
    tiny = Limit(nodes=3)
    plain = stream_survey(OSMOSIS, DealRange(1, 8), "solver", tiny)
    deeper = stream_survey(OSMOSIS, DealRange(1, 8), "solver", tiny, retry_nodes=20_000)
    assert plain.unknown > 0 and deeper.unknown == 0
    assert deeper.wins == stream_survey(OSMOSIS, DealRange(1, 8), "solver", LIMIT).wins
    with ResultStore(tmp_path / "s.sqlite3") as store:
        first = stream_survey(OSMOSIS, DealRange(1, 8), "solver", tiny, store=store, retry_nodes=20_000)
        # Without the second search, the verdicts it found are not reused: the answer is the plain one.
        again = stream_survey(OSMOSIS, DealRange(1, 8), "solver", tiny, store=store)
        assert totals(again) == totals(plain) and again.from_store == 8 - plain.unknown
        # And the deals left undecided at 50 positions are searched again when a second search is asked for.
        last = stream_survey(OSMOSIS, DealRange(1, 8), "solver", tiny, store=store, retry_nodes=20_000)
        assert totals(last) == totals(first) and last.from_store == 8 - plain.unknown


def test_a_billion_deal_range_streams_without_a_list(tmp_path):
    deals = parse_range("1-1000000000")
    assert len(deals) == 10**9

    def stop(p):
        assert p.total == 10**9
        if p.done >= 60:
            raise KeyboardInterrupt

    tracemalloc.start()
    try:
        with ResultStore(tmp_path / "s.sqlite3") as store, pytest.raises(KeyboardInterrupt):
            stream_survey(OSMOSIS, deals, "greedy", store=store, batch=20, progress=stop)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20  # a list of 10^9 ints would be tens of GB


def test_deal_ranges_are_digits_with_a_sane_size():
    assert list(parse_range(" 3-6 ")) == [3, 4, 5, 6] and list(parse_range("7")) == [7]
    assert list(parse_range(" 3 - 6 ")) == [3, 4, 5, 6]  # spaced as a deal number may be (deal ' 5 ')
    assert list(DealRange(1, 7).batches(3)) == [(1, 3), (4, 6), (7, 7)]
    for bad in ("+5", "1_000", "\u0663", "\uff11\uff12", "1-", "-3", "1e3", "1-2-3", "", "1-1000000000000000000",
                "1-99999999999999999999"):
        with pytest.raises(TutorError):
            parse_range(bad)


def test_a_file_that_is_not_a_store_is_one_line_error(run, tmp_path):
    bad = tmp_path / "not.sqlite3"
    bad.write_text("hello, this is not a database at all" * 50)
    result = run(["stats", "--deals", "1-3", "--policy", "greedy", "--store", str(bad)])
    assert result.exit_code == 1 and "not.sqlite3" in result.stderr and result.stderr.count("\n") == 1


def test_a_damaged_default_store_is_set_aside_with_one_warning_and_a_new_one_started(run, home):
    """The default store only keeps results that can be played again, so a damaged one is no reason to stop:
    it is moved aside (as the history is), never deleted, and the survey runs on a new store."""
    home.mkdir(parents=True)
    (home / "surveys.sqlite3").write_text("not a database " * 100)
    result = run(["stats", "--deals", "1-3", "--policy", "greedy", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["deals"] == 3
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("warning: the results store was damaged")
    aside = list(home.glob("surveys.sqlite3.damaged-*"))
    assert len(aside) == 1 and aside[0].read_text() == "not a database " * 100
    again = run(["stats", "--deals", "1-3", "--policy", "greedy", "--json"])
    assert json.loads(again.stdout)["from_store"] == 3 and not again.stderr


@pytest.mark.parametrize("column, value", [("cards", "'x'"), ("seconds", "'abc'"), ("tried", "'x'"),
                                           ("cards", "1e10"), ("cards", "-5"), ("won", "'x'"), ("won", "7"),
                                           ("cards", "0"), ("won", "1"), ("cards", "52")])
def test_a_stored_row_no_survey_writes_is_played_again_with_one_warning(run, home, column, value):
    """A row edited or damaged inside a sound store (cards 'x') ended the survey in a TypeError traceback, and
    impossible values (cards 1e10) went into the figures without a word: such a row is no answer, so the deal
    is played again, the row replaced, and one line says so."""
    first = run(["stats", "--deals", "1-4", "--policy", "greedy", "--json"])
    assert first.exit_code == 0, first.output
    import sqlite3

    db = sqlite3.connect(home / "surveys.sqlite3")
    with db:
        db.execute(f"UPDATE outcomes SET {column} = {value} WHERE deal = 3")
    db.close()
    again = run(["stats", "--deals", "1-4", "--policy", "greedy", "--json"])
    assert again.exit_code == 0, again.output
    data = json.loads(again.stdout)
    assert data == {**json.loads(first.stdout), "from_store": 3, "computed": 1, "seconds": data["seconds"]}
    assert again.stderr.count("\n") == 1 and again.stderr.startswith("warning: 1 stored result was not one")
    third = run(["stats", "--deals", "1-4", "--policy", "greedy", "--json"])
    assert json.loads(third.stdout)["from_store"] == 4 and not third.stderr  # the row was replaced


def test_the_game_history_is_never_used_as_a_results_store(run, home):
    """--store naming another program's database (here the history a game just wrote) is refused untouched."""
    import sqlite3

    played = run(["play", "5"], input="d\nq\n")
    assert played.exit_code == 0, played.output
    history = home / "history.sqlite3"
    assert history.exists()
    before = sqlite3.connect(history).execute("SELECT name FROM sqlite_master ORDER BY name").fetchall()
    result = run(["stats", "--deals", "1-3", "--policy", "greedy", "--store", str(history)])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "is not an osmosis results store (it holds the tables" in result.stderr
    assert sqlite3.connect(history).execute("SELECT name FROM sqlite_master ORDER BY name").fetchall() == before


def test_a_store_that_cannot_be_opened_or_a_per_deal_file_that_cannot_be_written_is_one_line(run, tmp_path):
    missing = tmp_path / "no" / "such" / "folder"
    for args in (["--store", str(missing / "s.sqlite3")], ["--per-deal", str(missing / "d.jsonl")]):
        result = run(["stats", "--deals", "1-3", "--policy", "greedy"] + args)
        assert result.exit_code == 1 and str(missing) in result.stderr and result.stderr.count("\n") == 1
        assert result.stderr.rstrip().endswith("a file in a folder that exists")  # what would be right, too
    folder = tmp_path / "adir"
    folder.mkdir()
    named = run(["stats", "--deals", "1", "--policy", "greedy", "--per-deal", str(folder)])
    assert named.exit_code == 1 and named.stderr == (f"error: cannot write the per-deal file '{folder}': it is a "
                                                     "folder: give a file name\n")  # one thing to do, the right one


def test_a_rerun_comes_from_the_store_and_fresh_plays_again(run):
    args = ["stats", "--deals", "1-30", "--policy", "greedy", "--json", "--solver"]
    first = json.loads(run(args).stdout)
    second = json.loads(run(args).stdout)
    fresh = json.loads(run(args + ["--fresh"]).stdout)
    assert (first["from_store"], second["from_store"], fresh["from_store"]) == (0, 30, 0)
    assert second["computed"] == 0 and fresh["computed"] == 30
    # the solver's verdicts on the same deals: solved once, then read (--fresh replays the policy only)
    assert (first["solver_from_store"], second["solver_from_store"], fresh["solver_from_store"]) == (0, 30, 30)
    for data in (first, second, fresh):
        for key in ("seconds", "from_store", "computed", "solver_from_store"):
            data.pop(key)
    assert first == second == fresh
    assert {"variant", "policy", "deals", "wins", "unknown", "win_rate", "mean_cards", "interval",
            "undecided"} <= set(first)


def test_per_deal_writes_one_json_line_per_deal(run, tmp_path):
    out = tmp_path / "deals.jsonl.gz"
    data = json.loads(run(["stats", "--deals", "5-16", "--nodes", "20000", "--json", "--per-deal", str(out)]).stdout)
    with gzip.open(out, "rt") as fh:
        rows = [json.loads(line) for line in fh]
    assert [r["deal"] for r in rows] == list(range(5, 17))
    assert sum(r["won"] is True for r in rows) == data["wins"]
    assert sum(r["cards"] for r in rows) / 12 == pytest.approx(data["mean_cards"], abs=0.01)
    assert {r["variant"] for r in rows} == {"osmosis"} and {r["policy"] for r in rows} == {"solver"}


@pytest.mark.parametrize("args, words", [
    (["--seconds", "nan"], "nan"), (["--seconds", "inf"], "inf"), (["--seconds", "-1"], "-1"),
    (["--seconds", "1e9"], "1000000000"), (["--nodes", "0"], "0"), (["--nodes", "10000000000"], "10000000000"),
    (["--workers", "0"], "0"), (["--workers", "100000"], "100000"), (["--batch", "0"], "0"),
])
def test_numeric_options_have_sane_ranges(run, args, words):
    result = run(["stats", "--deals", "1-3"] + args)
    assert result.exit_code == 2 and words in result.stderr and "Traceback" not in result.output


def test_the_pipe_progress_line_says_done_rate_time_left_and_the_running_rate():
    from tutor.cli.stats import progress_line
    from tutor.engines import Progress
    from tutor.survey import DealOutcome, Tally

    tally = Tally(OSMOSIS, "solver")
    for n in range(1, 101):
        tally.add(DealOutcome(n, n % 3 == 0, 52 if n % 3 == 0 else 30, 0.01), stored=n <= 40)
    line = progress_line(Progress(100, 10_000_000, 40, tally, 50.0))
    # The rate counts the deals played (60 in 50 s), not those read from the store.
    assert line.startswith("stats: 100/10,000,000 deals, 40 from the store, 1.2 deals/s, about 96 d")
    assert "win rate 33.0% (95% 24.6-42.7%)" in line


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_cluster_started_with_dask_scheduler_and_dask_worker(run, tmp_path):
    bindir = os.path.dirname(sys.executable)
    dask = os.path.join(bindir, "dask")
    if not os.path.exists(dask):
        pytest.skip("the dask command is not installed next to this Python")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                              start_new_session=True)]
    try:
        procs.append(subprocess.Popen([dask, "worker", address, "--nthreads", "2", "--nworkers", "1",
                                       "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      env=env, start_new_session=True))
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(1, timeout=30)
        args = ["stats", "--deals", "1-24", "--nodes", "20000", "--batch", "4", "--json", "--fresh"]
        on_cluster = json.loads(run(args + ["--scheduler", address]).stdout)
        here = json.loads(run(args + ["--workers", "1"]).stdout)
        for data in (on_cluster, here):
            data.pop("seconds")
        assert on_cluster == here and here["deals"] == 24
    finally:
        # The worker's nanny shuts down gracefully in ~8 s; its whole process group goes at once.
        for p in reversed(procs):
            os.killpg(p.pid, signal.SIGKILL)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def test_a_scheduler_with_no_worker_is_an_input_error():
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address=":0", silence_logs=50) as cluster:
        with pytest.raises(TutorError, match="has no worker after 0.5 s: start one with `dask worker"):
            DaskEngine(scheduler=cluster.scheduler_address, worker_timeout=0.5)


def test_the_wait_for_a_worker_is_set_from_the_command_line(run):
    # a cluster that scales up from no worker may need longer than 60 s, a script less
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address=":0", silence_logs=50) as cluster:
        result = run(["stats", "--deals", "1-3", "--scheduler", cluster.scheduler_address, "--worker-timeout", "1"])
        assert result.exit_code == 1 and "has no worker after 1 s: start one with `dask worker" in result.stderr
        assert result.stderr.count("\n") == 1


def test_an_unreachable_scheduler_is_an_input_error():
    address = f"tcp://127.0.0.1:{_free_port()}"
    with pytest.raises(TutorError, match="cannot reach the Dask scheduler 'tcp://127.0.0.1:"):
        DaskEngine(scheduler=address, connect_timeout=0.5)


@pytest.mark.parametrize("answer", ["banner", "silence"])
def test_a_service_that_is_no_scheduler_is_an_input_error_not_a_wait(answer):
    """A port where another service listens: one that sends its banner and hangs up made Client raise
    MemoryError (a traceback), and one that accepts and says nothing (a web server) kept it waiting for good."""
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    held = []

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            if answer == "banner":
                conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
                conn.close()
            else:
                held.append(conn)  # accepted, never answered

    threading.Thread(target=serve, daemon=True).start()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    try:
        with pytest.raises(TutorError, match="Dask scheduler") as err:
            DaskEngine(scheduler=address, connect_timeout=1)
    finally:
        server.close()
        for conn in held:
            conn.close()
    assert "\n" not in str(err.value)
    assert "MemoryError" not in str(err.value)  # the banner was said as "(MemoryError)"
    assert "expected the address of a running `dask scheduler`" in str(err.value)


def test_a_data_folder_that_cannot_be_made_is_one_line_for_stats(tmp_path):
    from builders import osmosis

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = osmosis(["stats", "--deals", "1-3", "--variant", "single"], blocker / "home", catch=True)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.startswith("error: cannot create the data folder") and result.stderr.count("\n") == 1


# ---- the policy against the solver on the same deals ------------------------------------------


def test_greedy_is_measured_against_the_solver_on_the_same_deals(run, tmp_path):
    """``stats --policy greedy`` gives the solver's wins on its deals and the share of the winnable ones it won:
    the counts a solver survey of the same range and the two per-deal files give."""
    greedy = json.loads(run(["stats", "--deals", "1-8", "--policy", "greedy", "--json", "--solver",
                             "--per-deal", str(tmp_path / "g.jsonl")]).stdout)
    solver = json.loads(run(["stats", "--deals", "1-8", "--json", "--fresh",
                             "--per-deal", str(tmp_path / "s.jsonl")]).stdout)
    rows = {p: {r["deal"]: r for r in map(json.loads, (tmp_path / f"{p}.jsonl").read_text().splitlines())}
            for p in ("g", "s")}
    winnable = {d for d, r in rows["s"].items() if r["won"] is True}
    won = {d for d in winnable if rows["g"][d]["won"] is True}
    assert greedy["solver_wins"] == solver["wins"] == len(winnable) > 0
    assert greedy["solver_unknown"] == solver["unknown"] == 0
    share = greedy["of_winnable"]
    assert (share["won"], share["winnable"]) == (len(won), len(winnable))
    assert share["rate"] == round(len(won) / len(winnable), 4)
    assert share["interval"][0] <= share["rate"] <= share["interval"][1]
    assert {d: r["solver_won"] for d, r in rows["g"].items()} == {d: r["won"] for d, r in rows["s"].items()}
    assert greedy["wins"] <= greedy["solver_wins"]
    # the solver's verdicts were kept in the store: the second greedy run reads both from it
    table = run(["stats", "--deals", "1-8", "--policy", "greedy", "--solver"]).stdout
    assert "solver wins" in table and f"{len(won)} of {len(winnable)} won" in table and "8 from the store" in table
    assert "of the winnable" in table
    # a greedy survey leaves the solves out unless asked (its games are far quicker than they are)
    assert "solver_wins" not in json.loads(run(["stats", "--deals", "1-8", "--policy", "greedy", "--json"]).stdout)
    assert "solver_wins" not in json.loads(run(["stats", "--deals", "1-8", "--policy", "greedy", "--json",
                                                "--no-solver"]).stdout)


def test_the_paired_survey_gives_the_same_on_dask_and_in_one_process(threads_cluster):
    def survey(engine=None):
        buf = io.StringIO()
        tally = stream_survey(OSMOSIS, DealRange(1, 20), "greedy", LIMIT, engine=engine, per_deal=buf, batch=3,
                              against_solver=True)
        return totals(tally), lines_of(buf)

    here = survey()
    assert here == survey(DaskEngine(client=threads_cluster))
    assert here[0]["of_winnable"]["winnable"] == here[0]["solver_wins"] > 0


def test_no_winnable_deal_gives_no_share_rather_than_zero(run):
    # single-pass bridesmaids: the solver wins none of deals 1-4, so "won 0 of 0" has no rate
    args = ["stats", "--deals", "1-4", "--variant", "bridesmaids", "--passes", "1", "--policy", "greedy", "--solver"]
    share = json.loads(run(args + ["--json"]).stdout)["of_winnable"]
    assert share == {"won": 0, "winnable": 0, "rate": None, "interval": None}
    assert "no deal in the range is winnable" in run(args).stdout


def test_the_surveys_own_worker_processes_ignore_ctrl_c_and_this_process_still_takes_it(tmp_path, monkeypatch):
    """Ctrl-C at a terminal reaches every process of the group: each worker died with a traceback on
    stderr (15-81 lines) beside the survey's one line. The workers start with SIGINT ignored; the
    process that runs the survey keeps its handler, so Ctrl-C still stops it and keeps the finished batches.
    With dask's port 8787 taken (another cluster) it said so in four lines on stderr, and it left an empty
    dask-scratch-space in the system's temporary folder."""
    import signal
    import socket
    import tempfile
    import warnings

    from tutor.engines import DaskEngine

    system_tmp = tmp_path / "tmp"
    system_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_tmp))
    taken = socket.socket()
    try:
        taken.bind(("", 8787))
        taken.listen()
    except OSError:
        pass  # taken already: the same test
    before = signal.getsignal(signal.SIGINT)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        engine = DaskEngine(workers=1)
    taken.close()
    assert not [w for w in said if "already in use" in str(w.message)]
    try:
        dispositions = engine.client.run(lambda: int(signal.getsignal(signal.SIGINT)))
        assert list(dispositions.values()) == [int(signal.SIG_IGN)]
        assert signal.getsignal(signal.SIGINT) is before
        # its scratch space is its own folder (dask's default left an empty dask-scratch-space in /tmp), and
        # its scheduler's web server listens on this machine alone (dashboard_address ":0" bound 0.0.0.0)
        scratch = engine._scratch
        assert scratch is not None and os.path.isdir(scratch)
        assert all(d.startswith(scratch) for d in engine.client.run(lambda dask_worker: dask_worker.local_directory).values())
        hosts = {sock.getsockname()[0] for sock in engine._own_cluster.scheduler.http_server._sockets.values()}
        assert hosts and hosts <= {"127.0.0.1", "::1"}, hosts
    finally:
        engine.close()
    assert not os.path.exists(scratch) and list(system_tmp.iterdir()) == []


def test_a_slow_survey_reports_its_rate_per_minute_and_no_line_once_done():
    from tutor.cli.stats import progress_line, rate_text
    from tutor.engines import Progress
    from tutor.survey import DealOutcome, Tally

    assert rate_text(3 / 74) == "2.4 deals/min" and rate_text(12.5) == "12.5 deals/s" and rate_text(0) == "0.0 deals/s"
    tally = Tally(OSMOSIS, "tutor")
    tally.add(DealOutcome(1, True, 52, 30.0))
    assert ", 1.2 deals/min, about 50 s left;" in progress_line(Progress(1, 2, 0, tally, 50.0))
    # the timer's line at 150 s, no batch since the one at 50 s: the rate is the deals played over 150 s, not
    # the one at 50 s said again (a stale "about 50 s left" at every line)
    assert ", 0.4 deals/min, about 2 min left;" in progress_line(Progress(1, 2, 0, tally, 50.0), 150.0)
    assert ", 1.2 deals/min, about 50 s left;" in progress_line(Progress(1, 2, 0, tally, 50.0), 10.0)
    # all from the store so far: no rate yet, and no "about an unknown time"
    line = progress_line(Progress(4, 6, 4, tally, 1.0), 30.0)
    assert "4 from the store, 0.0 deals/s, the time left is not known yet; win rate" in line


def test_a_survey_in_a_pipe_says_how_far_it_is_while_its_first_batch_runs(run, monkeypatch):
    from tutor.cli import common

    monkeypatch.setattr(common, "PIPE_EVERY", 0.05)
    result = run(["stats", "--deals", "1-2", "--policy", "tutor", "--workers", "1", "--json"])
    assert result.exit_code == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines and all(line.startswith("stats: ") for line in lines)
    assert lines[0].startswith("stats: 0/2 deals, ") and lines[0].endswith(" s so far")
    assert not any(line.startswith("stats: 2/2") for line in lines)  # nothing once the survey is done
    assert json.loads(result.stdout)["deals"] == 2


def test_the_survey_table_says_the_time_in_all_beside_the_time_playing(run):
    out = " ".join(run(["stats", "--deals", "1-3"]).stdout.split())
    assert " time " in out or "│ time" in out
    assert re.search(r"time [│|]? ?\d+\.\d s( playing the deals, \d+\.\d s in all \(with starting the workers\))?", out)


def test_a_dumb_terminal_gets_the_pipes_progress_line_not_a_bar_it_cannot_draw(monkeypatch):
    """TERM=dumb on a terminal: rich draws no bar there, and a 17-second survey said nothing at all."""
    import io

    from rich.console import Console

    from tutor.cli.common import live_display

    monkeypatch.setenv("TERM", "xterm-256color")
    assert live_display(Console(force_terminal=True, file=io.StringIO()))
    assert not live_display(Console(force_terminal=False, file=io.StringIO()))
    monkeypatch.setenv("TERM", "dumb")
    assert not live_display(Console(force_terminal=True, file=io.StringIO()))


def test_a_ctrl_c_while_the_cluster_starts_stops_the_survey_there(tmp_path):
    """The cluster starts with SIGINT ignored (its workers keep that): a Ctrl-C pressed in that second or two
    was dropped, and the survey ran on. Now it is held and taken as the start ends: the cluster is closed and
    its folder removed, and the caller gets the KeyboardInterrupt (stats says "interrupted" and keeps what it
    has). In a process of its own, as the command is: there the main thread is the only one to take it."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(f"""
        import os, signal, tempfile
        import distributed
        from tutor import engines

        tempfile.tempdir = {str(tmp_path)!r}
        started = []

        class Pressed(distributed.LocalCluster):
            def __init__(self, *args, **kwargs):
                os.kill(os.getpid(), signal.SIGINT)  # while the start runs, to the process: a terminal's Ctrl-C
                super().__init__(*args, **kwargs)
                started.append(self)

        distributed.LocalCluster = Pressed
        try:
            engines.DaskEngine(workers=1)
        except KeyboardInterrupt:
            print("interrupted", started[0].status.name, signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []),
                  signal.getsignal(signal.SIGINT) is signal.default_int_handler)
        else:
            print("ran on")
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["interrupted", "closed", "False", "True"], done.stderr[-2000:]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("osmosis-dask-")]


def test_kill_while_the_cluster_starts_stops_it_as_ctrl_c_does_without_a_traceback(tmp_path):
    """kill (SIGTERM, made a KeyboardInterrupt by stopped_like_ctrl_c) in the second the local cluster took to
    start raised inside its constructor: the half-built cluster could not be closed, and dask's exit hook failed
    with a 28-line traceback (AssertionError: Status.init). It is held as Ctrl-C is, and raised once the cluster
    stands, which is then closed."""
    import textwrap

    script = textwrap.dedent(f"""
        import os, signal, tempfile
        import distributed
        from tutor import engines
        from tutor.cli.common import stopped_like_ctrl_c

        tempfile.tempdir = {str(tmp_path)!r}
        started = []

        class Killed(distributed.LocalCluster):
            def __init__(self, *args, **kwargs):
                os.kill(os.getpid(), signal.SIGTERM)
                super().__init__(*args, **kwargs)
                started.append(self)

        distributed.LocalCluster = Killed
        with stopped_like_ctrl_c():
            try:
                engines.DaskEngine(workers=1)
            except KeyboardInterrupt:
                print("interrupted", started[0].status.name, callable(signal.getsignal(signal.SIGTERM)))
            else:
                print("ran on")
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["interrupted", "closed", "True"], done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "Status.init" not in done.stderr, done.stderr[-2000:]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("osmosis-dask-")]


def test_a_second_ctrl_c_while_the_cluster_stops_does_not_stop_the_stopping(tmp_path):
    """A second Ctrl-C while the survey stopped its cluster broke off the close: dask's exit hooks finished it
    on a 10 s timeout, with log lines and at times a traceback on stderr. The close runs to its end."""
    import textwrap

    script = textwrap.dedent(f"""
        import os, signal, tempfile
        from tutor import engines

        tempfile.tempdir = {str(tmp_path)!r}
        engine = engines.DaskEngine(workers=1)
        cluster = engine._own_cluster
        real = cluster.close

        def pressed_again(*args, **kwargs):
            os.kill(os.getpid(), signal.SIGINT)
            return real(*args, **kwargs)

        cluster.close = pressed_again
        engine.close()
        print("closed", cluster.status.name, signal.getsignal(signal.SIGINT) is signal.default_int_handler)
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["closed", "closed", "True"], done.stderr[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("osmosis-dask-")]


def test_a_database_with_tables_of_a_stores_names_but_not_its_columns_is_refused_unchanged(run, tmp_path):
    # its outcomes table got a column "tried" added before the refusal, whose words blamed the disk
    import sqlite3

    fake = tmp_path / "fake.sqlite3"
    db = sqlite3.connect(fake)
    db.execute("CREATE TABLE outcomes(x)")
    db.execute("CREATE TABLE configs(y)")
    db.commit()
    db.close()
    before = fake.read_bytes()
    result = run(["stats", "--policy", "greedy", "--deals", "1-3", "--workers", "1", "--store", str(fake)])
    assert result.exit_code == 1
    assert result.stderr == (f"error: '{fake}' is not an osmosis results store (its table configs has no column id): "
                             "give --store a new file name or a results store\n")
    assert fake.read_bytes() == before


def test_an_interrupted_fresh_survey_says_to_resume_without_fresh(run, monkeypatch):
    # "run the same command again to resume": with --fresh that plays every deal again
    import tutor.cli.stats as stats

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(stats, "_run", interrupted)
    fresh = run(["stats", "--policy", "greedy", "--deals", "1-3", "--workers", "1", "--fresh"])
    assert fresh.exit_code == 130 and "run the same command again without --fresh to resume" in fresh.stderr
    plain = run(["stats", "--policy", "greedy", "--deals", "1-3", "--workers", "1"])
    assert plain.exit_code == 130 and "run the same command again to resume" in plain.stderr


def test_a_per_deal_temporary_file_a_killed_survey_left_is_removed_by_the_next(run, tmp_path):
    """A survey killed outright (SIGKILL) leaves its lines' temporary file beside --per-deal FILE; nothing
    removed it. One nobody holds goes when the next survey writes that file; one a running survey holds (a
    gzip one goes unwritten for minutes: its age says nothing) stays, as does one made this instant."""
    pytest.importorskip("fcntl")  # the locks a running survey holds
    out = tmp_path / "pd.jsonl"
    stale, held, fresh = (tmp_path / f".pd.jsonl.{n}.tmp" for n in ("ab12cd34", "cd56ef78", "zz99yy88"))
    for f in (stale, held, fresh):
        f.write_text('{"deal": 1}\n')
    for f in (stale, held):
        os.utime(f, (time.time() - 7200, time.time() - 7200))
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'rb'); "
                               "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)", str(held)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"  # another survey, still writing
        assert run(["stats", "--deals", "1-3", "--workers", "1", "--per-deal", str(out)]).exit_code == 0
    finally:
        holder.kill()
        holder.wait()
    assert not stale.exists() and held.exists() and fresh.exists() and len(out.read_text().splitlines()) == 3


def test_a_store_named_as_a_folder_says_it_is_a_folder(run, tmp_path):
    result = run(["stats", "--deals", "1", "--workers", "1", "--store", str(tmp_path)])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert f"'{tmp_path}' is a folder: give --store a file name" in result.stderr


def test_a_store_named_as_a_pipe_or_a_device_says_so_not_that_the_disk_failed(run, tmp_path):
    """--store on a FIFO or /dev/null said "disk I/O error ... check that its folder is writable and the disk is
    not full": every other output option says it is no regular file, and so does the store now."""
    fifo = tmp_path / "p.fifo"
    os.mkfifo(fifo)
    for store, words in ((fifo, "it is not a regular file (a device or a pipe): give a file name"),
                         ("/dev/null", "it is a device or a stream of this program, not a file: give a file name")):
        result = run(["stats", "--deals", "1", "--workers", "1", "--policy", "greedy", "--store", str(store)])
        assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
        assert f"results store '{store}' cannot be used: {words}" in result.stderr
        assert "disk" not in result.stderr
    assert fifo.is_fifo()


@pytest.mark.parametrize("error", ["disk I/O error", "unable to open database file",
                                   "attempt to write a readonly database"])
def test_a_store_on_a_full_disk_or_a_read_only_folder_says_so_not_that_it_is_no_store(run, tmp_path, monkeypatch,
                                                                                      error):
    """--store on a full disk said "give --store a new file name or an osmosis results store" of a sound store:
    a new name on that disk would not help."""
    import sqlite3

    from tutor.store import ResultStore

    def refused(self):
        raise sqlite3.OperationalError(error)

    monkeypatch.setattr(ResultStore, "_open", refused)
    result = run(["stats", "--deals", "1-3", "--workers", "1", "--store", str(tmp_path / "s.sqlite3")])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert f"({error}): check that its folder is writable and the disk is not full" in result.stderr
    assert "a new file name" not in result.stderr


def test_a_gzip_per_deal_file_names_itself_in_its_header(run, tmp_path):
    # the header held the temporary file's name, so gunzip -N gave ".deals.jsonl.gz.XXXXXXXX.tmp" back
    import gzip

    out = tmp_path / "deals.jsonl.gz"
    assert run(["stats", "--policy", "greedy", "--deals", "1-3", "--workers", "1", "--per-deal", str(out)]).exit_code == 0
    data = out.read_bytes()
    assert data[3] & 0x08 and data[10:data.index(b"\0", 10)] == b"deals.jsonl"  # FNAME, without the .gz
    assert gzip.decompress(data).decode().count("\n") == 3


def test_a_default_store_damaged_in_its_data_is_set_aside_and_the_next_run_starts_anew(run, home):
    """Damage met only while deals are read (not where the file opens) failed every later survey of those deals,
    with advice about writable folders and full disks: the default store is set aside then too (survey audit)."""
    assert run(["stats", "--deals", "1-3000", "--policy", "greedy", "--json"]).exit_code == 0
    store = home / "surveys.sqlite3"
    assert store.stat().st_size > 4096 * 12
    with open(store, "r+b") as fh:  # a data page, past the header and the schema
        fh.seek(4096 * 8 + 100)
        fh.write(b"\xff" * 300)
    result = run(["stats", "--deals", "1-3000", "--policy", "greedy", "--json"])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.output
    assert "is damaged (database disk image is malformed): it was set aside as 'surveys.sqlite3.damaged-" in result.stderr
    assert "writable" not in result.stderr
    assert len(list(home.glob("surveys.sqlite3.damaged-*"))) == 1
    again = run(["stats", "--deals", "1-3000", "--policy", "greedy", "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["deals"] == 3000


def test_a_store_in_no_folder_says_so_and_per_deal_keeps_the_files_mode(run, tmp_path):
    result = run(["stats", "--deals", "1-3", "--policy", "greedy", "--store", str(tmp_path / "nodir" / "x.db")])
    assert result.exit_code == 1
    assert f"there is no folder '{tmp_path / 'nodir'}': give --store a file in a folder that exists" in result.stderr
    lines = tmp_path / "pd.jsonl"
    lines.write_text('{"deal": 9, "variant": "osmosis", "policy": "greedy", "won": false}\n')  # an earlier one
    lines.chmod(0o644)  # a published file: it was left owner-only (0600, mkstemp's)
    assert run(["stats", "--deals", "1-3", "--policy", "greedy", "--per-deal", str(lines),
                "--store", str(tmp_path / "s.db")]).exit_code == 0
    assert lines.stat().st_mode & 0o777 == 0o644 and lines.read_text().count("\n") == 3


def test_seconds_adds_a_time_limit_and_keeps_the_node_limit(run, tmp_path):
    from tutor.search import DEFAULT_LIMIT

    lines = tmp_path / "pd.jsonl"
    assert run(["stats", "--deals", "1-2", "--variant", "single", "--seconds", "30", "--per-deal", str(lines),
                "--store", str(tmp_path / "s.db")]).exit_code == 0
    assert {json.loads(line)["nodes"] for line in lines.read_text().splitlines()} == {DEFAULT_LIMIT.nodes}


def test_no_winnable_deal_is_said_as_not_known_while_solves_are_undecided(run, tmp_path):
    out = run(["stats", "--policy", "greedy", "--solver", "--deals", "20", "--nodes", "50", "--retry-nodes", "0",
               "--store", str(tmp_path / "u.db")]).stdout
    text = " ".join(out.replace("│", " ").split())
    assert "1 undecided" in text
    assert "no deal in the range is known to be winnable (1 undecided)" in text
    assert "no deal in the range is winnable," not in text


def test_the_json_says_when_the_list_of_undecided_deals_is_cut():
    from tutor.policies import DealOutcome
    from tutor.survey import Tally

    tally = Tally(preset("osmosis"), "solver")
    for n in range(1, Tally.UNDECIDED_LISTED + 2):
        tally.add(DealOutcome(n, None, 20, 0.0))
    data = tally.to_json()
    assert data["undecided"] == Tally.UNDECIDED_LISTED + 1 and len(data["undecided_deals"]) == Tally.UNDECIDED_LISTED
    assert data["undecided_deals_complete"] is False


def test_a_remote_scheduler_leaves_its_clients_log_to_the_one_line_error():
    """A scheduler gone mid-run printed distributed's CommClosedError tracebacks (37 lines) before the survey's
    own line."""
    import logging

    logging.getLogger("distributed.client").setLevel(logging.NOTSET)
    with pytest.raises(TutorError):
        DaskEngine(scheduler="tcp://127.0.0.1:9", connect_timeout=1)
    assert logging.getLogger("distributed.client").getEffectiveLevel() >= logging.CRITICAL


def test_an_undecided_deal_of_a_deeper_search_is_searched_again_at_a_shallower_one(tmp_path):
    """Deal 3 left undecided by a search of 5 positions and a second one of 20: a later survey without the
    second search took that row from the store, with the 34 cards the deeper search met, where a fresh one
    (and osmosis solve 3 --nodes 5) finds 5."""
    tiny = Limit(nodes=5)
    fresh = stream_survey(OSMOSIS, DealRange(3, 3), "solver", tiny).to_json()
    with ResultStore(tmp_path / "s.sqlite3") as store:
        deep = stream_survey(OSMOSIS, DealRange(3, 3), "solver", tiny, store=store, retry_nodes=20).to_json()
        again = stream_survey(OSMOSIS, DealRange(3, 3), "solver", tiny, store=store)
    assert deep["unknown"] == 1 and deep["mean_cards"] > fresh["mean_cards"]
    assert again.from_store == 0 and again.to_json()["mean_cards"] == fresh["mean_cards"]
