"""Where a survey's batches run, and the streaming loop that feeds them.

Two engines give the same outcomes: :class:`InProcess` plays batches on
this machine (one after another in this process, or on the process pool,
:class:`tutor.pool.WorkerPool`), :class:`DaskEngine` sends them as tasks
to a ``dask.distributed`` cluster (a ``LocalCluster`` of worker processes, or
an existing scheduler whose workers were started with ``dask worker``). A
task is :func:`tutor.policies.play_batch`: pure, so a batch lost with a dying
worker is simply run again (by the scheduler, or by the pool in this
process).

:func:`stream_survey` walks a deal range batch by batch, never building it
as a list; it reads what the results store already has, sends only the rest,
keeps a bounded window of batches in flight, commits each finished batch to
the store, and folds the outcomes in deal order (so the per-deal file and
every total are the same whatever the engine, the number of workers or the
order in which batches finish).
"""

from __future__ import annotations

import json
import logging
import shutil
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

from .errors import TutorError
from .policies import DealOutcome, Policy, engine_version, parse_policy, play_batch
from .pool import Task, WorkerPool
from .rules import Rules
from .scratch import new_scratch, stop_workers
from .search import DEFAULT_LIMIT, Limit
from .stopping import sigint_ignored, stops_ignored
from .store import ResultStore, config_key
from .survey import DealRange, Tally, scores_exact

BATCH = {"solver": 200, "greedy": 2000, "tutor": 5}
"""Default deals a task: enough that the scheduler is never the bottleneck, few enough to spread the load."""

BatchArgs = tuple[tuple[int, ...], Rules, Policy, Limit, "int | None"]
"""The arguments of one :func:`~tutor.policies.play_batch` call: deals, rules, policy, limit, retry nodes."""

Job = tuple[int, BatchArgs] | None
"""A batch's index and arguments; None means "not now" (the caller's window is full)."""

BatchResult = tuple[str, list[DealOutcome]]
"""What :func:`~tutor.policies.play_batch` returns: the engine version and the outcomes."""


class Engine(Protocol):
    """Where a survey's batches run: results of ``jobs`` as ``(index, result)``, in any order."""

    workers: int

    def run(self, jobs: Iterator[Job], window: int | None = None) -> Iterator[tuple[int, BatchResult]]: ...

    def close(self, at_once: bool = False) -> None: ...


class InProcess:
    """Play batches on this machine: here, one at a time (``workers`` 1, the default: no process to start),
    or on the process pool of ``workers`` processes."""

    def __init__(self, workers: int = 1) -> None:
        self._pool = WorkerPool(workers)
        self.workers = self._pool.workers

    def run(self, jobs: Iterator[Job], window: int | None = None) -> Iterator[tuple[int, BatchResult]]:
        """Results of ``jobs`` in the order they were pulled, with at most ``window`` batches out.

        A job of ``None`` means "not now": pull no more until the next result is folded in. In one
        process each batch is folded in before the next is pulled, so the window is never full there.
        """
        size = 1 if not self._pool.parallel else window or 2 * self.workers + 2
        pending: deque[tuple[int, Task[BatchResult]]] = deque()
        end = object()
        exhausted = False

        def fill() -> None:
            nonlocal exhausted
            while not exhausted and len(pending) < size:
                job = next(jobs, end)
                if job is end:
                    exhausted = True
                elif job is None:
                    return  # not now: the oldest batch must be folded in first
                else:
                    assert isinstance(job, tuple)
                    index, args = job
                    pending.append((index, self._pool.submit(play_batch, *args)))

        fill()
        while pending:
            index, task = pending.popleft()
            yield index, task.result()
            fill()

    def close(self, at_once: bool = False) -> None:  # noqa: ARG002 - its batch stops with this process
        self._pool.close()


def _connect(distributed: Any, scheduler: str, timeout: float) -> Any:
    """A ``distributed.Client`` of the scheduler at ``scheduler``, or one line of :class:`TutorError`.

    ``Client``'s own timeout bounds the connection only: a service that accepts it and then says nothing a
    scheduler would (a web server) kept it waiting for good, and one that sends another protocol's banner
    made it raise MemoryError. So it runs in a thread with a deadline, and any failure is the same error.
    """
    scheduler = scheduler.strip()  # as Dask reads it: "tcp://127.0.0.1:8786 " from a script works
    _check_address(scheduler)
    box: dict[str, Any] = {}

    def attempt() -> None:
        try:
            box["client"] = distributed.Client(scheduler, timeout=timeout)
        except Exception as exc:  # whatever the address answered, it is not a scheduler
            box["error"] = exc

    thread = threading.Thread(target=attempt, name="dask-connect", daemon=True)
    thread.start()
    thread.join(timeout + 5)
    expected = "expected the address of a running `dask scheduler`, like tcp://127.0.0.1:8786"
    if thread.is_alive():
        raise TutorError(f"the address {scheduler!r} did not answer as a Dask scheduler within {timeout + 5:g} s: "
                         f"{expected}")
    if "error" in box:
        exc = box["error"]
        if not isinstance(exc, (OSError, ValueError)):  # it answered, in another protocol: an SSH banner read
            # as a frame's length gave MemoryError, said as "(MemoryError)"
            raise TutorError(f"the address {scheduler!r} answered, but not as a Dask scheduler (another service "
                             f"on that port?): {expected}")
        raise TutorError(f"cannot reach the Dask scheduler {scheduler!r} ({str(exc) or type(exc).__name__}): "
                         f"{expected}")
    return box["client"]


def _check_address(scheduler: str) -> None:
    """One line of :class:`TutorError` for an address no scheduler can have, before any attempt to reach it: a
    port out of range waited 10 s to time out, a scheme this command cannot use (``tls://`` takes certificates
    it is not given) was said to have "answered, but not as a Dask scheduler", and a port that is no number
    said Python's own words."""
    from urllib.parse import urlsplit

    expected = "expected the address of a running `dask scheduler`, like tcp://127.0.0.1:8786"
    scheme, sep, _ = scheduler.partition("://")
    if sep and scheme not in ("tcp", "ws"):  # Dask reads the scheme as written: TCP:// is no scheme of its
        raise TutorError(f"the scheduler address {scheduler!r} uses {scheme}://, which osmosis stats cannot use "
                         f"(tcp:// or ws:// only; tls:// and wss:// would need certificates it does not take): "
                         f"{expected}")
    try:
        parts = urlsplit(scheduler if sep else f"tcp://{scheduler}")
        port = parts.port
    except ValueError:
        port = -1
    if not parts.hostname or port is None or port < 1 or parts.path or parts.query or parts.fragment:
        raise TutorError(f"the scheduler address {scheduler!r} is not a host and port (a port is a number from 1 to "
                         f"65535): {expected}")


class DaskEngine:
    """Play batches as tasks on a dask.distributed cluster.

    ``scheduler``: the address of a running scheduler (``tcp://HOST:PORT``);
    else a ``LocalCluster`` of ``workers`` processes, one thread each, is
    started and stopped with the engine. ``client``: an existing
    ``distributed.Client`` (tests use an in-process cluster).
    """

    def __init__(self, workers: int = 2, scheduler: str | None = None, client: Any = None,
                 connect_timeout: float = 10.0, worker_timeout: float = 60.0) -> None:
        try:
            import dask
            import distributed
        except ImportError:  # pragma: no cover - declared as a dependency
            raise TutorError("dask.distributed is not installed: pip install distributed") from None
        self._distributed = distributed
        self._worker_timeout = worker_timeout
        self._own_cluster: Any = None
        self._scratch: str | None = None
        self._own_client = client is None
        self.client: Any
        if client is not None:
            self.client = client
        elif scheduler is not None:
            # the client's own log (a scheduler gone mid-run: CommClosedError and its tracebacks, 37 lines) is
            # not for the player: the survey says it in one line ("the Dask cluster lost a batch ...")
            for name in ("distributed", "distributed.client", "distributed.comm", "distributed.batched"):
                logging.getLogger(name).setLevel(logging.CRITICAL)
            self.client = _connect(distributed, scheduler, connect_timeout)
            try:
                # A scheduler with no worker would leave the survey waiting without a word.
                self.client.wait_for_workers(1, timeout=worker_timeout)
            except (TimeoutError, OSError):
                self.client.close()
                raise TutorError(f"the Dask scheduler {scheduler!r} has no worker after {worker_timeout:g} s: "
                                 f"start one with `dask worker {scheduler}`") from None
        else:
            # Ctrl-C at a terminal reaches the whole process group: the worker processes would each die
            # with a traceback on stderr while this one stops cleanly and keeps the finished batches. They
            # start with SIGINT ignored (a disposition a child keeps, and Python leaves as it finds it), and
            # this process stops them when it is done or interrupted.
            # Its scratch space is a folder of its own, removed when it stops (dask's default left an empty
            # dask-scratch-space behind in /tmp); no dashboard, and the scheduler's web server (health, metrics)
            # on its own host, 127.0.0.1 (with ":0" it listened on every interface).
            # Its web server on a free port of its own: at dask's 8787, taken by another cluster, dask said so
            # in four lines on stderr. Dask's own temporary folder is this one too (it left an empty
            # dask-scratch-space with its lock files in the system's). Its logs only at CRITICAL: a worker that
            # missed a heartbeat on a loaded machine wrote "Failed to communicate with scheduler during
            # heartbeat" and a 30-line traceback among the progress lines; what fails a survey, it says itself.
            self._scratch = new_scratch()  # named by this process: the next survey removes it if this one is killed
            try:
                with sigint_ignored(), dask.config.set({"temporary-directory": self._scratch}):
                    self._own_cluster = distributed.LocalCluster(
                        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
                        local_directory=self._scratch, silence_logs=logging.CRITICAL)
                self.client = distributed.Client(self._own_cluster)
            except BaseException:  # no engine to close: its folder goes now
                if self._own_cluster is not None:
                    self._own_cluster.close()
                shutil.rmtree(self._scratch, ignore_errors=True)
                raise
        self.workers = max(1, len(self.client.scheduler_info(n_workers=-1).get("workers", {})) or workers)

    def run(self, jobs: Iterator[Job], window: int | None = None) -> Iterator[tuple[int, BatchResult]]:
        """Results of ``jobs`` as they finish, with at most ``window`` tasks in flight.

        A job of ``None`` means "not now" (the caller's window is full): try again after the
        next result.
        """
        window = window or 2 * self.workers + 2
        ac = self._distributed.as_completed()
        index_of: dict[str, int] = {}

        def submit_next() -> bool:
            try:
                job = next(jobs)
            except StopIteration:
                return False
            if job is None:
                return False
            index, args = job
            future = self.client.submit(play_batch, *args, pure=True, key=f"osmosis-batch-{index}-{_args_key(args)}")
            index_of[future.key] = index
            ac.add(future)
            return True

        def fill() -> None:
            while ac.count() < window and submit_next():
                pass

        fill()
        while not ac.is_empty():
            future = self._next(ac)
            try:
                result = future.result()
            except TutorError:
                raise
            except (self._distributed.KilledWorker, self._distributed.client.FutureCancelledError, OSError) as exc:
                # Finished batches are in the store already: the same command picks up from there.
                raise TutorError(f"the Dask cluster lost a batch ({type(exc).__name__}: {exc}); the finished "
                                 "batches are kept: run the same command again to resume") from None
            index = index_of.pop(future.key)
            future.release()
            # The caller may hold back a slow batch; pull the next job only when it asks for more.
            yield index, result
            fill()

    def _next(self, ac: Any) -> Any:
        """The next finished task. Tasks wait for a worker however long none is there, so a cluster that lost
        every worker (each died: one that cannot import osmosis-tutor dies on its first batch) left the survey
        waiting without a word: after ``worker_timeout`` seconds with none, a clear error."""
        every = min(5.0, self._worker_timeout / 4)
        check, since = time.monotonic() + every, None
        while not ac.has_ready():
            time.sleep(0.1)  # as as_completed itself polls its queue
            now = time.monotonic()
            if now < check:
                continue
            check = now + every
            if self.client.scheduler_info(n_workers=0).get("n_workers"):  # the count alone, no worker's details
                since = None
            elif since is None:
                since = now
            elif now - since >= self._worker_timeout:
                raise TutorError(f"the Dask cluster has had no worker for more than {self._worker_timeout:g} s (they "
                                 "died or left; a worker without this osmosis-tutor installed dies on its first "
                                 "batch); the finished batches are kept: start workers, then run the same command "
                                 "again")
        return next(ac)

    def close(self, at_once: bool = False) -> None:
        # a second Ctrl-C (or kill) while the cluster stops is the same request again: stopping it halfway left
        # dask's exit hooks to finish on a 10 s timeout, with their log lines and tracebacks on stderr
        with stops_ignored():
            if at_once and self._own_cluster is not None:
                stop_workers(self._own_cluster)
            if self._own_client:
                self.client.close()
            try:
                if self._own_cluster is not None:
                    self._own_cluster.close()
            finally:
                if self._scratch is not None:
                    shutil.rmtree(self._scratch, ignore_errors=True)


def _args_key(args: BatchArgs) -> str:
    numbers, rules, policy, limit, retry = args
    return f"{policy}-{numbers[0]}-{numbers[-1]}-{len(numbers)}-{abs(hash((rules, limit, retry, tuple(numbers)))):x}"


@dataclass
class Progress:
    """What a progress display is told after each batch is folded in."""

    done: int
    total: int
    from_store: int
    tally: Tally
    elapsed: float


def stream_survey(rules: Rules, deals: DealRange, policy: str = "solver", limit: Limit = DEFAULT_LIMIT,
                  engine: Engine | None = None, store: ResultStore | None = None, fresh: bool = False,
                  batch: int | None = None,
                  per_deal: TextIO | None = None, progress: Callable[[Progress], None] | None = None,
                  window: int | None = None, retry_nodes: int | None = None, against_solver: bool = False) -> Tally:
    """Play every deal of ``deals`` with ``policy``, batch by batch, and return the totals.

    ``engine``: :class:`InProcess` (default) or :class:`DaskEngine`. ``store``:
    read what is there (unless ``fresh``) and keep every new outcome.
    ``per_deal``: a text file that gets one JSON line per deal, in deal order.
    ``window``: the most batches between the oldest not yet folded in and
    the newest sent (bounds memory and the tasks in flight). ``retry_nodes``:
    the node limit of the solver's second search for undecided deals.

    ``against_solver`` (a policy other than the solver): the solver's verdict
    on the same deals too, read from the store's solver results where they
    are (``fresh`` replays the policy only), else solved as batches of their
    own on the same engine and kept in the store; the totals then count the
    solver's wins and the policy's wins among the solver-winnable deals
    (:meth:`Tally.add_solver`), and each per-deal line gets ``solver_won``.
    """
    policy = parse_policy(policy)
    engine = engine or InProcess()
    size = batch or BATCH[policy]
    window = window or 2 * engine.workers + 2
    paired = against_solver and policy is not Policy.SOLVER
    kinds = (policy, Policy.SOLVER) if paired else (policy,)
    versions = {k: engine_version(k) for k in kinds}
    configs = {k: store.config_id(config_key(rules, k, limit)) for k in kinds} if store is not None else {}
    tally = Tally(rules, policy, paired=paired, exact=scores_exact(rules, limit))
    retry = retry_nodes if retry_nodes and limit.nodes and retry_nodes > limit.nodes else None
    deepest = retry or limit.nodes

    def reusable(kind: Policy, o: DealOutcome) -> bool:
        """A stored result is what this survey would find: a verdict reached within its limits, or no
        verdict at the very limit it would try (no verdict deeper still, but its cards, the best met on the
        way, are more than this survey's search would meet: 34 against 5 at 5 nodes)."""
        if kind != "solver" or o.tried is None or deepest is None:
            return True
        return o.tried == deepest if o.won is None else o.tried <= deepest

    variant = rules.name or rules.describe()
    t0 = time.perf_counter()
    # A piece's outcomes by kind: (stored, computed); a piece folds once every kind is in.
    ready: dict[int, dict[Policy, tuple[dict[int, DealOutcome], list[DealOutcome]]]] = {}
    stored_of: dict[tuple[int, Policy], dict[int, DealOutcome]] = {}
    pieces = enumerate(deals.batches(size))
    state = {"next_fold": 0}

    def fold_ready() -> None:
        while len(ready.get(state["next_fold"], {})) == len(kinds):
            parts = ready.pop(state["next_fold"])
            state["next_fold"] += 1
            stored, computed = parts[policy]
            fresh_ones = {o.number: o for o in computed}
            solver: dict[int, DealOutcome] = {}
            known: dict[int, DealOutcome] = {}
            if paired:
                known, solved = parts[Policy.SOLVER]
                solver = {**known, **{o.number: o for o in solved}}
            for number in sorted(stored.keys() | fresh_ones.keys()):
                was_stored = number in stored
                outcome = stored[number] if was_stored else fresh_ones[number]
                tally.add(outcome, stored=was_stored)
                row: dict[str, Any] = {"deal": number, "variant": variant, "policy": str(policy),
                                       "won": outcome.won, "cards": outcome.cards,
                                       "seconds": round(outcome.seconds, 4), "nodes": outcome.tried}
                if paired:
                    tally.add_solver(outcome, solver[number], stored=number in known)
                    row["solver_won"] = solver[number].won
                if per_deal is not None:
                    per_deal.write(json.dumps(row) + "\n")
            if progress is not None:
                progress(Progress(tally.deals, len(deals), tally.from_store, tally, time.perf_counter() - t0))

    def jobs() -> Iterator[Job]:
        # Batches the store answers in full are folded here and never sent.
        for index, (first, last) in pieces:
            while index - state["next_fold"] >= window:
                # Never read further ahead than the window: wait until the oldest batches are folded.
                yield None
            ready[index] = {}
            for k, kind in enumerate(kinds):
                known: dict[int, DealOutcome] = {}
                # --fresh plays the surveyed policy again; the solver's verdicts on the deals stay good.
                if store is not None and (not fresh or kind is not policy):
                    known = {n: o for n, o in store.get(configs[kind], first, last).items() if reusable(kind, o)}
                missing = tuple(n for n in range(first, last + 1) if n not in known)
                if not missing:
                    ready[index][kind] = (known, [])
                    continue
                stored_of[(index, kind)] = known
                yield len(kinds) * index + k, (missing, rules, kind, limit, retry if kind is Policy.SOLVER else None)
            fold_ready()

    for job, (got_version, outcomes) in engine.run(jobs(), window * len(kinds)):
        index, kind = divmod(job, len(kinds))
        policy_of = kinds[kind]
        if got_version != versions[policy_of]:
            raise TutorError(f"a worker runs engine version {got_version}, this command {versions[policy_of]}: "
                             "install the same osmosis-tutor on every worker")
        if store is not None:
            store.put(configs[policy_of], outcomes)
        ready[index][policy_of] = (stored_of.pop((index, policy_of)), outcomes)
        fold_ready()
    fold_ready()
    tally.seconds = time.perf_counter() - t0
    return tally
