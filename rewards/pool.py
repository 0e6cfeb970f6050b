"""A hard per-sample time cap: scoring in worker processes that can be killed.

The oracle's time budget is cooperative (``entry.budget``: solver loops check the
clock), which stops every known slow path — but a training step must not depend on
"every known".  So a ``Scorer`` scores in worker processes and gives each sample at
most ``RewardConfig.cap_s`` seconds of *its own* run time (time queued behind other
samples does not count): a worker still busy past the cap is killed and replaced,
and the sample gets no reward (status ``timeout``), so a degenerate completion can
never stall a step.  A worker that dies (memory) costs its sample the same way.

One dispatcher thread owns the workers: ``submit`` queues a sample and returns a
``concurrent.futures.Future``; the thread hands each idle worker the next sample
(preferring samples whose prompt that worker already solved: a GRPO group's
completions share their question), waits on the busy workers' pipes with a timeout
set by the earliest cap, and resolves futures as results come.  A reply or prompt
over the size limit is answered at once, never sent.  ``score_many`` and
``score_many_async`` (for event loops: the HTTP endpoint, TRL's async reward
functions) are built on it.  Workers start on the first sample, each a fresh
interpreter (``rewards.worker``: nothing of a trainer's process is forked), and
import the modules that registered this process's benchmark families.

    >>> with Scorer(RewardConfig(workers=0)) as scorer:   # in-process: no hard cap
    ...     [r.status for r in scorer.score_many([Sample("Toy?", "yes")])]
    ['no_question']
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import os
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait

from causal_oracle.entry import REGISTRY
from causal_oracle.rewards.scoring import (
    Reward,
    RewardConfig,
    Sample,
    Verifier,
    failure,
    oversized,
)

AFFINITY_WINDOW = 64  # queued jobs searched for one whose prompt a worker has seen
MAX_FAILED_STARTS = 3  # workers that die while starting, in a row, before samples fail


@dataclass
class _Job:
    sample: Sample
    future: Future[Reward]
    started: float = 0.0


class _Worker:
    """A fresh interpreter (``subprocess``: nothing of the trainer's process is forked
    or re-imported) speaking pickles over two pipes."""

    def __init__(self, config: RewardConfig) -> None:
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "causal_oracle.rewards.worker", str(to_child),
             str(from_child)], pass_fds=(to_child, from_child), stdin=subprocess.DEVNULL)
        os.close(to_child)
        os.close(from_child)
        self.outbox = Connection(from_parent, readable=False)
        self.conn = Connection(to_parent, writable=False)
        self.outbox.send((config, REGISTRY.modules(), tuple(sys.path)))
        self.ready = False
        self.job: _Job | None = None

    def send(self, job: _Job) -> None:
        self.job = job
        self.outbox.send(job.sample)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(5)
        self.conn.close()
        self.outbox.close()


class Scorer:
    """Scores samples with a hard per-sample cap (``workers`` 0: in this process, with
    the cooperative budget only).  Thread-safe; ``close`` (or ``with``) stops it."""

    def __init__(self, config: RewardConfig | None = None) -> None:
        self.config = (config or RewardConfig()).checked()
        self._local = Verifier(self.config) if self.config.workers == 0 else None
        self._lock = threading.Lock()
        self._queue: deque[_Job] = deque()
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = multiprocessing.Pipe(duplex=False)
        self._closed = False
        self._starts_failed = 0
        self._owners: dict[str, int] = {}  # prompt → the worker that scored it last
        #: workers killed at the cap or found dead, since the start
        self.replaced = 0

    # -- the caller's side
    def submit(self, sample: Sample) -> Future[Reward]:
        """Queue ``sample``; the future's result is its ``Reward`` (never an exception)."""
        return self.submit_many([sample])[0]

    def submit_many(self, samples: Sequence[Sample]) -> list[Future[Reward]]:
        """Queue ``samples`` at once (one lock, one wake-up of the dispatcher: a step's
        samples do not each contend with the dispatcher already sending the first ones
        to the workers); a future per sample, as ``submit``."""
        futures: list[Future[Reward]] = []
        jobs: list[_Job] = []
        for sample in samples:
            future: Future[Reward] = Future()
            futures.append(future)
            early = oversized(sample, self.config)
            if early is not None or self._local is not None:
                future.set_result(early or self._local.score(sample))  # type: ignore[union-attr]
            else:
                jobs.append(_Job(sample, future))
        if not jobs:
            return futures
        with self._lock:
            if self._closed:
                raise RuntimeError("the scorer is closed")
            self._queue.extend(jobs)
            if self._thread is None:
                self._thread = threading.Thread(target=self._dispatch, daemon=True,
                                                name="causal-oracle-rewards")
                self._thread.start()
        self._wake_w.send_bytes(b"")
        return futures

    def score_many(self, samples: Sequence[Sample]) -> list[Reward]:
        """The rewards of ``samples``, in order."""
        return [f.result() for f in self.submit_many(samples)]

    async def score_many_async(self, samples: Sequence[Sample]) -> list[Reward]:
        """``score_many`` for an event loop (the loop is never blocked, and is woken once
        for the whole batch, not once per sample)."""
        futures = self.submit_many(samples)
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        left = [len(futures)]
        count = threading.Lock()

        def finished(_: Future[Reward]) -> None:
            with count:
                left[0] -= 1
                last = left[0] == 0
            if last:
                loop.call_soon_threadsafe(lambda: done.done() or done.set_result(None))

        for future in futures:
            future.add_done_callback(finished)
        if futures:
            await done
        return [f.result() for f in futures]

    def close(self) -> None:
        """Stop the workers (samples still queued get no reward: status ``error``)."""
        with self._lock:
            self._closed = True
            thread = self._thread
        if thread is not None:
            self._wake_w.send_bytes(b"")
            thread.join()

    def __enter__(self) -> Scorer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the dispatcher thread
    def _dispatch(self) -> None:
        workers: list[_Worker] = []
        try:
            workers.extend(_Worker(self.config) for _ in range(self.config.workers))
            while self._step(workers):
                pass
        except Exception as error:  # a bug here must not leave a trainer waiting forever
            self._fail_all(workers, f"the reward dispatcher failed: {error!r}")
            raise
        finally:
            for w in workers:
                w.kill()
            with self._lock:
                self._thread = None

    def _fail_all(self, workers: list[_Worker], reason: str) -> None:
        with self._lock:
            jobs, self._queue = [*self._queue, *(w.job for w in workers if w.job)], deque()
        for job in jobs:
            if not job.future.done():
                job.future.set_result(failure("error", reason))

    def _step(self, workers: list[_Worker]) -> bool:
        """Hand out work, wait for a result, a new sample or the next cap; False when
        closed."""
        cap = self.config.cap_s
        with self._lock:
            if self._closed:
                closed = True
            else:
                closed = False
                for i, w in enumerate(workers):
                    if w.ready and w.job is None and self._queue:
                        job = self._next(i)
                        job.started = time.monotonic()
                        w.send(job)
        if closed:
            self._fail_all(workers, "the scorer was closed")
            return False
        now = time.monotonic()
        timeout = min((w.job.started + cap - now for w in workers if w.job), default=None)
        ready = wait([self._wake_r, *(w.conn for w in workers if w.job or not w.ready)],
                     None if timeout is None else max(0.0, timeout))
        if self._wake_r in ready:
            while self._wake_r.poll():
                self._wake_r.recv_bytes()
        for i, w in enumerate(workers):
            job = w.job
            if w.conn in ready:
                try:
                    result = w.conn.recv()
                except (EOFError, OSError):
                    if job is None:  # died while starting
                        self._starts_failed += 1
                        if self._starts_failed >= MAX_FAILED_STARTS:
                            self._fail_all(workers, "reward workers cannot start")
                    else:
                        job.future.set_result(failure(
                            "error", "the worker process died on this sample (memory?); it "
                            "was replaced", time.monotonic() - job.started))
                    workers[i] = self._replace(w)
                    continue
                if job is None:
                    w.ready, self._starts_failed = True, 0
                else:
                    w.job = None
                    job.future.set_result(result)
            elif job is not None and time.monotonic() - job.started > cap:
                workers[i] = self._replace(w)
                job.future.set_result(failure(
                    "timeout", f"over the hard cap of {cap:g} s per sample; the worker was "
                    "killed and replaced", cap))
        return True

    def _next(self, worker: int) -> _Job:
        """The next job for ``worker``: the first of the next ``AFFINITY_WINDOW`` queued
        whose prompt it (or no worker) scored last, so that a question is solved once
        and its completions graded from that worker's cache; else the oldest."""
        owners = self._owners
        for k, job in enumerate(itertools.islice(self._queue, AFFINITY_WINDOW)):
            if owners.get(job.sample.prompt, worker) == worker:
                del self._queue[k]
                break
        else:
            job = self._queue.popleft()
        if len(owners) >= AFFINITY_WINDOW * 64:
            owners.clear()
        owners[job.sample.prompt] = worker
        return job

    def _replace(self, worker: _Worker) -> _Worker:
        worker.kill()
        self.replaced += 1
        return _Worker(self.config)


__all__ = ["Scorer"]
