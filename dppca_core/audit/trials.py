"""The audit's trials, in chunks: seeds, the scan for a published field without noise, a mechanism's batch path,
and Dask.

Trials run in chunks of :data:`CHUNK_TRIALS`. Chunk j gets the j-th child of the audit's
:class:`numpy.random.SeedSequence`, and each trial on each side the next child of its chunk's sequence, so a
chunk's scores depend only on the seed and its index: on a Dask cluster (``scheduler=``) the result is
identical to the serial run. Each run's public stream is rebuilt from its trial's sequence
(:func:`.design.replay_public_stream`); the audit never copies a noise generator.

A mechanism with a batch path (registry ``audit_batch``) releases a chunk's trials together, with the same
generators (:mod:`.seeding`) and the same published values, so the scores are the same without a
:class:`~dppca_core.Release` per trial; the first chunk checks the batch path against full runs and the audit
makes one release per trial if they differ.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..release import to_plain
from .seeding import TrialGenerators, child
from .design import AuditDesign, replay_public_stream
from .statistics import deterministic_field, leaves

#: Trials on each side used to look for a published field that carries no noise.
SCAN_TRIALS = 20
#: Trials (on each side) per chunk: the unit of work of a Dask task and of progress reports.
CHUNK_TRIALS = 250
#: Dask's own local schedulers (as in :func:`dppca_core.sufficient_stats`); "local" starts a local cluster.
LOCAL_SCHEDULERS = ("threads", "processes", "synchronous")


class AuditCancelled(Exception):
    """Raised when the ``progress`` callback of an audit returns False."""


def root_sequence(seed) -> np.random.SeedSequence:
    """The audit's root seed sequence: from an int (or None), a SeedSequence, or a Generator's own sequence."""
    if isinstance(seed, np.random.SeedSequence):
        return _fresh(seed)
    if isinstance(seed, np.random.Generator):
        sequence = getattr(seed.bit_generator, "seed_seq", None)
        if not isinstance(sequence, np.random.SeedSequence):
            raise ValueError(
                "the audit derives every trial's seed from a numpy SeedSequence; pass an int seed or a "
                "Generator built from one (numpy.random.default_rng(seed))."
            )
        return sequence.spawn(1)[0]
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0):
        return np.random.SeedSequence(None if seed is None else int(seed))
    raise ValueError(f"seed must be None, a non-negative int, a SeedSequence or a numpy Generator (got {seed!r}).")


def _fresh(sequence: np.random.SeedSequence) -> np.random.SeedSequence:
    """The same sequence with no child spawned yet, so spawning from it is repeatable."""
    return np.random.SeedSequence(sequence.entropy, spawn_key=sequence.spawn_key, pool_size=sequence.pool_size)


@dataclass(frozen=True)
class TrialJob:
    """What a chunk of trials needs (shipped whole to a Dask worker). ``batch``: None to check the batch path
    against full runs in the chunk (the first one), True or False once that check has decided."""

    release_once: Callable
    design: AuditDesign
    batch: bool | None = None

    def once(self, sequence: np.random.SeedSequence, side: int):
        """One run on D (side 0) or D' (side 1) with its own seed: (published, curve, public draws)."""
        design = self.design
        public = None if design.public_draws is None else design.public_draws(replay_public_stream(sequence))
        pair = (design.D, design.D_prime) if design.datasets is None else design.datasets(public)
        published, curve = self.release_once(pair[side], np.random.Generator(np.random.PCG64(sequence)))
        return published, curve, public

    @property
    def batched(self) -> bool:
        """Whether trials can run through the mechanism's batch path: it declares one, and the design attacks the
        release (no public draws, no neighbours chosen after them)."""
        design = self.design
        return getattr(self.release_once, "batched", False) and design.public_draws is None and design.datasets is None

    def chunk(self, sequence: np.random.SeedSequence, size: int, leaked, scan: int) -> dict:
        """Scores of ``size`` trials on each side; the flattened releases of the first ``scan`` of them.

        ``leaked`` = (field, value on D'): score 1 when a release's field takes that value, else the design's
        statistic. Trial i on side s runs on the chunk sequence's child 2 i + s. Where the mechanism has a batch
        path, the trials after the first ``scan`` run through it (:meth:`_batch`): the same generators, the same
        published values, the same scores."""
        parent = _fresh(sequence)
        width = max(1, len(self.design.statistics))  # one column per candidate statistic
        scores, scanned, curve, sample = np.empty((2, size, width)), ([], []), None, None
        batch_from = min(scan, size) if self.batched and not leaked and self.batch is not False else size
        runs = self._batch(parent, batch_from, size, check=self.batch is None) if batch_from < size else None
        if runs is None:
            batch_from = size
        for i in range(batch_from):
            for side in (0, 1):
                published, privacy, public = self.once(child(parent, 2 * i + side), side)
                curve, sample = curve or privacy, sample or published
                flat = leaves(published) if (i < scan or leaked) else None
                if i < scan:
                    scanned[side].append(flat)
                if leaked:
                    scores[side, i] = float(repr(flat.get(leaked[0])) == leaked[1])
                elif public is None:
                    scores[side, i] = np.asarray(self.design.score(published), dtype=float)
                else:
                    scores[side, i] = self.design.score(published, public)
        for side in (0, 1) if runs is not None else ():
            scores[side, batch_from:] = self._scores(runs[side]).reshape(size - batch_from, width)
        return {"scores": scores, "scanned": scanned, "curve": curve, "sample": sample, "batched": runs is not None}

    def _batch(self, parent: np.random.SeedSequence, start: int, size: int, check: bool) -> tuple | None:
        """The releases of trials ``start .. size - 1`` on each side through the mechanism's batch path. With
        ``check`` (the audit's first chunk), None when its first release on either side differs from that trial's
        full run (:func:`dppca_core.run`): a batch path that drifted from the mechanism is never used, and the
        audit runs one release per trial."""
        out = []
        for side, data in enumerate((self.design.D, self.design.D_prime)):
            trials = [2 * i + side for i in range(start, size)]
            runs = self.release_once.batch(data, TrialGenerators(parent, trials))
            if check:
                full, _, _ = self.once(child(parent, trials[0]), side)
                if any(to_plain(runs[0][key]) != full[key] for key in ("components", "eigenvalues", "outputs")):
                    return None
            out.append(runs)
        return tuple(out)

    def _scores(self, runs: list) -> np.ndarray:
        """The design's scores of a batch of releases: ``score_batch`` when the design has one and it agrees with
        ``score`` on the first release, else ``score`` one by one."""
        score, batch = self.design.score, self.design.score_batch
        if batch is not None and runs:
            out = np.asarray(batch(runs), dtype=float)
            if np.array_equal(out[:1].ravel(), np.asarray(score(runs[0]), dtype=float).ravel()):
                return out
        return np.array([np.asarray(score(published), dtype=float) for published in runs])


def chunk_sizes(trials: int) -> list[int]:
    full, rest = divmod(trials, CHUNK_TRIALS)
    return [CHUNK_TRIALS] * full + ([rest] if rest else [])


def trial_scores(job: TrialJob, trials: int, root: np.random.SeedSequence, scheduler, progress):
    """(scores as a 2 x trials x candidates array, leaked field or None, privacy curve, first release), chunk by
    chunk.

    The first chunk runs here and is scanned for a field without noise; if one is found, that chunk is run
    again with the field as its statistic (same seeds, same releases). The other chunks run here or on Dask.
    """
    sizes = chunk_sizes(trials)
    seeds = root.spawn(len(sizes))
    job, first, leaked = first_chunk(job, seeds[0], sizes[0])
    done = [first]
    report_progress(progress, sizes[0] / trials)
    rest = list(zip(seeds[1:], sizes[1:]))
    if scheduler is None:
        for sequence, size in rest:
            done.append(job.chunk(sequence, size, leaked, 0))
            report_progress(progress, sum(sizes[: len(done)]) / trials)
    elif rest:
        done += _dask_chunks(job, rest, leaked, scheduler, progress, sizes, trials)
    scores = np.concatenate([part["scores"] for part in done], axis=1)
    return scores, (leaked[0] if leaked else None), first["curve"], first["sample"]


def first_chunk(job: TrialJob, sequence: np.random.SeedSequence, size: int) -> tuple:
    """(the job with its batch path checked, the first chunk, the leaked (field, value on D') or None): the first
    chunk is scanned for a field without noise; if one is found, it is run again with the field as its statistic
    (same seeds, same releases)."""
    first = job.chunk(sequence, size, None, SCAN_TRIALS)
    job = dataclasses.replace(job, batch=first["batched"])  # the first chunk checked the batch path
    leaked = None
    field_name = deterministic_field(*first["scanned"])
    if field_name:
        leaked = (field_name, repr(first["scanned"][1][0][field_name]))
        first = job.chunk(sequence, size, leaked, 0)
    return job, first, leaked


def report_progress(progress, fraction: float) -> None:
    if progress is not None and progress(min(fraction, 1.0)) is False:
        raise AuditCancelled("the audit was cancelled.")


def _dask_chunks(job, rest, leaked, scheduler, progress, sizes, trials) -> list[dict]:
    """The remaining chunks on Dask, in chunk order whatever order they finish in."""
    try:
        import dask
    except ImportError:
        raise ValueError(
            "scheduler= needs dask: pip install -r requirements-scale.txt, or leave scheduler=None."
        ) from None
    if isinstance(scheduler, str) and scheduler in LOCAL_SCHEDULERS:
        out, per_batch = [], max(2, os.cpu_count() or 2)
        for start in range(0, len(rest), per_batch):
            batch = [dask.delayed(job.chunk)(seq, size, leaked, 0) for seq, size in rest[start : start + per_batch]]
            out += list(dask.compute(*batch, scheduler=scheduler))
            report_progress(progress, (sizes[0] + sum(sizes[1 : 1 + len(out)])) / trials)
        return out
    client, owned = _client(scheduler)
    futures = []
    try:
        from distributed import as_completed

        futures = [client.submit(job.chunk, seq, size, leaked, 0, pure=False) for seq, size in rest]
        index = {f.key: i for i, f in enumerate(futures)}
        out, finished = [None] * len(futures), sizes[0]
        for future in as_completed(futures, loop=client.loop):
            i = index[future.key]
            out[i] = future.result()
            finished += rest[i][1]
            report_progress(progress, finished / trials)
        return out
    finally:
        for future in futures:
            future.cancel()
        if owned:
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None:
                cluster.close()


def _client(scheduler):
    """(distributed.Client, whether this call created it) for "local", an address or a Client."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError("a Dask cluster needs dask.distributed: pip install -r requirements-scale.txt.") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    if scheduler == "local":
        try:
            cluster = LocalCluster(
                n_workers=os.cpu_count() or 2, threads_per_worker=1, processes=True, dashboard_address=None
            )
        except RuntimeError as exc:  # e.g. worker processes cannot start from an interactive session
            raise ValueError(
                f"could not start a local Dask cluster ({exc}); run from a script, or use "
                "scheduler='processes' or None."
            ) from None
        return Client(cluster, set_as_default=False), True
    if not isinstance(scheduler, str):
        raise ValueError(
            f"scheduler must be None, one of {list(LOCAL_SCHEDULERS) + ['local']}, an address such as "
            f"'tcp://host:8786' or a distributed.Client (got {type(scheduler).__name__})."
        )
    try:
        return Client(scheduler, set_as_default=False, timeout=30), True
    except (OSError, TimeoutError, ValueError) as exc:
        raise ValueError(
            f"could not connect to the dask scheduler at {scheduler!r} ({exc}); check the address and "
            "that the cluster is running, or use scheduler='local'."
        ) from None
