"""The ``index`` command's work on Ray Data: the same lasting index as
:func:`explorer.preparing.fill_index`, filled by a pool of workers on this machine or a cluster.

Three steps, each a plain piece of Ray Data:

1. **Chunk** (tasks): the folder is read by the driver's workspace under the folder's own rules
   (a duplicate by content, a name clash and an unreadable file are skipped, each with its
   reason, as ``index`` does today); each document is then chunked by a Ray task
   (``map_batches`` over the documents), which returns the texts its retriever embeds.
2. **Drop what is there** (the driver): the texts in document order, each once, less those the
   lasting index holds already (:meth:`~explorer.retrieval.embeddings.Embedder.prefetch`), are
   cut into the batches of :data:`~explorer.retrieval.embeddings.BATCH` the single process
   would send the model, in its order (:func:`~explorer.retrieval.embeddings.encoding_order`).
   A rerun embeds only what is missing.
3. **Embed** (an actor pool): ``map_batches(Embed, concurrency=workers)``; each actor loads the
   model once (the bundled folder, hash-checked) and embeds each batch as the single process
   does, so every vector is the single process's, bit for bit.

The vectors come back to the driver as each batch finishes, and the driver is their one writer:
:meth:`~explorer.retrieval.store.Store.put` writes each batch in one transaction with its row
checks, under the store's lock, as today. One writer keeps the store one SQLite file with one
set of rules (SQLite must not be written from several machines over a network file system), and
the merge of shards is then nothing but the writes themselves (their cost is measured by
``benchmarks/bench_ray.py``). A run stopped part way — Ctrl-C, an error in a worker's batch,
a worker killed or its node lost, nothing back from Ray for :data:`STALL_SECONDS` — stops with
one message, keeps every batch written, and the next run embeds only the rest: every wait on
Ray is bounded (:func:`_watched`), and a lost worker is not replaced (Ray 2.60 restarts it but
never resends its batch; the run would wait for ever).

Without an address, Ray is started on this machine (no dashboard, no usage report, nothing
reaching the network) and stopped afterwards; with one, the run joins that cluster, where each
node must have chunk-explorer installed (``pip install 'chunk-explorer[ray]'``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import queue
import re
import socket
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explorer.errors import EmbeddingError, EngineError, SettingsError
from explorer.preparing import Indexed, embedded_kind
from explorer.progress import Progress, Rate, quiet

if TYPE_CHECKING:
    from explorer.config import Config
    from explorer.documents.model import Document
    from explorer.workspace import Workspace

ENGINES = ("local", "ray")
"""``index --engine``: the single process (``local``) or Ray Data (``ray``)."""
CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a Ray head to answer at ``--address`` before saying nobody does."""
DOCS_PER_TASK = 8
"""Documents chunked by one Ray task."""
GROUPS_PER_CALL = 2
"""Batches of the model's size handed to an actor at once (one is written as soon as it is back)."""
CHUNK_SHARE = 0.1
"""The share of the progress that reading and chunking take (the embedding the rest)."""
INSTALL_HINT = "pip install 'chunk-explorer[ray]'"
RAY_ENV = {
    "RAY_USAGE_STATS_ENABLED": "0",  # no usage report is sent anywhere
    "RAY_DISABLE_IMPORT_WARNING": "1",
    "RAY_BACKEND_LOG_LEVEL": "fatal",  # Ray's C++ notes stay in its log files, off stderr
    "RAY_DATA_LOG_LEVEL": "CRITICAL",  # and Ray Data's notes (its failures are ours to say)
}
ANSI = re.compile(r"\x1b\[[0-9;]*m")
RAISED = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit)): \S")
"""A traceback's last line, ``RuntimeError: the disk is full``."""
QUIET_LOGGERS = ("ray", "ray.data", "ray._private", "ray.rllib")
STALL_SECONDS = 600.0
"""The longest the driver waits for Ray's next result (a chunked document, a batch of vectors,
the first one with the workers' start and model load) before it stops the run with one message:
no wait on the engine is unbounded."""
POLL_SECONDS = 1.0
"""How often the driver, waiting for Ray, looks for a worker that was lost."""
LOST = ("WORKER_DIED", "NODE_DIED", "OUT_OF_MEMORY")
"""The reasons Ray gives for an actor that died without being asked to (not ``OUT_OF_SCOPE``,
the end of a pool whose work is done)."""


@dataclass(frozen=True)
class RayIndexed:
    """What :func:`ray_index` did: the :class:`~explorer.preparing.Indexed` summary (the same
    counts the single process reports) and where the time went on the engine."""

    indexed: Indexed
    workers: int
    """Embedding actors (each loads the model once)."""
    address: str
    """The cluster joined, or ``"local"`` for a Ray started on this machine."""
    start_seconds: float
    """Starting (or joining) Ray."""
    chunk_seconds: float
    """Reading the folder and chunking its documents as tasks."""
    write_seconds: float
    """The driver's writes of the vectors into the lasting index (the merge)."""

    def to_json(self) -> dict[str, Any]:
        return {
            **self.indexed.to_json(),
            "engine": "ray",
            "workers": self.workers,
            "address": self.address,
            "start_seconds": round(self.start_seconds, 3),
            "chunk_seconds": round(self.chunk_seconds, 3),
            "write_seconds": round(self.write_seconds, 3),
        }


# --------------------------------------------------------------------------- the session


def import_ray() -> Any:
    """The ``ray`` module (with Ray Data), or an :class:`EngineError` saying what to install."""
    for key, value in RAY_ENV.items():
        os.environ.setdefault(key, value)
    # no usage report, whatever the environment says: nothing may reach the network at run time
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    for name in QUIET_LOGGERS:  # Ray's notes on stderr would bury the run's one progress line
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        import ray
        import ray.data  # Ray Data is the part used
    except ImportError as exc:
        raise EngineError(
            f"--engine ray needs Ray Data, which is not installed ({exc}); install it with: "
            f"{INSTALL_HINT}, or leave --engine out to index in this process"
        ) from None
    return ray


def check_address(address: str, *, timeout: float = CONNECT_TIMEOUT) -> None:
    """Raise :class:`EngineError` when nobody answers at ``address`` (``host:port`` or
    ``ray://host:port``) within ``timeout`` seconds; ``auto`` is left to Ray."""
    if address == "auto":
        return
    bare = address.removeprefix("ray://")
    host, sep, port_text = bare.rpartition(":")
    if not sep or not host or not port_text.isdigit():
        raise EngineError(
            f"--address {address!r} is not host:port (e.g. 10.0.0.5:6379, the Ray head's "
            "address, or ray://10.0.0.5:10001 for Ray Client)"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port_text)), timeout=timeout):
            pass
    except OSError as exc:
        why = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise EngineError(
            f"nobody answers at --address {address} ({why} within {timeout:g} s); check that "
            "the Ray head is running there (`ray status` on it), or leave --address out to "
            "start Ray on this machine. Nothing was embedded."
        ) from None


@contextlib.contextmanager
def ray_session(address: str | None, *, cpus: int) -> Iterator[Any]:
    """Ray for the run: joined at ``address``, else started here on ``cpus`` cores (and stopped
    afterwards). A Ray already running in this process (a test's) is used as it is."""
    ray = import_ray()
    if address is not None:
        check_address(address)
    if ray.is_initialized():
        yield ray
        return
    try:
        if address is None:
            ray.init(
                num_cpus=cpus,
                include_dashboard=False,
                log_to_driver=False,
                logging_level=logging.ERROR,
            )
        else:
            ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError...
        where = f"join the Ray cluster at {address}" if address else "start Ray on this machine"
        raise EngineError(
            f"could not {where} ({type(exc).__name__}: {exc}); nothing was embedded"
        ) from None
    try:
        yield ray
    finally:
        ray.shutdown()


def quiet_data(ray: Any) -> None:
    """Ray Data's own progress bars off: the run shows one progress line of its own."""
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.verbose_progress = False
    with contextlib.suppress(AttributeError):
        ctx.print_on_execution_start = False


def strict_data(ray: Any) -> None:
    """Ray Data's fault settings for the run, whatever the caller's context held: a block whose
    task raised is never skipped (every vector or none is the rule of the index) and an error
    raised in a batch is not retried (the batch would raise again); a lost worker's restarts
    are bounded at ``map_batches`` (:data:`RESTARTS`)."""
    ctx = ray.data.DataContext.get_current()
    ctx.max_errored_blocks = 0
    ctx.actor_task_retry_on_errors = False


# --------------------------------------------------------------------------- the work of the steps


def chunk_batch(batch: dict[str, Any], config_json: dict[str, Any]) -> dict[str, Any]:
    """A Ray task's work: chunk each document of ``batch`` under the configuration, returning
    its index, its number of chunks and the texts its retriever embeds (in its order)."""
    from explorer.config import Config
    from explorer.workspace import Workspace

    config = Config.from_json(config_json)
    ws = Workspace()
    out: dict[str, list[Any]] = {"index": [], "chunks": [], "texts": []}
    with ws.using_store(None):  # chunking embeds nothing, and opens no store on the worker
        dense = config.retriever != "bm25"
        for index, data in zip(batch["index"], batch["doc"], strict=True):
            name = ws.add(pickle.loads(data))  # the driver's own document, pickled by it
            out["index"].append(int(index))
            out["chunks"].append(len(ws.chunks(name, config)))
            texts = list(ws.retriever(name, config).dense_texts) if dense else []
            out["texts"].append(texts)
    return out


class Embed:
    """An embedding actor: loads the model once, then embeds each batch of texts exactly as
    :meth:`explorer.retrieval.embeddings.Embedder._encode` does (the same model call on the
    same batch, torch on this actor's cores), returning one row per text with its vector."""

    def __init__(self, model: str, threads: int, urgent: bool) -> None:
        import torch

        from explorer.retrieval.embeddings import load_model

        torch.set_num_threads(max(threads, 1))
        self.urgent = urgent
        self.model = load_model(model)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        """The vectors of the batch's groups, one row a text with ``failed`` empty; an error
        raised on a group comes back as one more row whose ``failed`` says it (after the rows
        of the groups done before it), for the driver to stop the run on at once."""
        import numpy as np

        from explorer.retrieval.embeddings import BATCH, one_thread

        texts: list[str] = []
        vectors: list[Any] = []
        failed: list[str] = []
        try:
            for group in batch["texts"]:
                group = [str(t) for t in group]
                self.before(group)
                with one_thread() if self.urgent else contextlib.nullcontext():
                    vecs = self.model.encode(
                        group,
                        batch_size=BATCH,
                        normalize_embeddings=True,
                        convert_to_numpy=True,
                        show_progress_bar=False,
                    )
                texts.extend(group)
                vectors.extend(v.astype(np.float32) for v in vecs)
                failed.extend("" for _ in group)
        except Exception as exc:  # said by the driver, not left to Ray Data's abort (see _watched)
            dimension = getattr(self.model, "get_embedding_dimension", None)
            dim = int((dimension or self.model.get_sentence_embedding_dimension)())
            texts.append("")
            vectors.append(np.zeros(dim, dtype=np.float32))
            failed.append(_raised_line(exc))
        return {"text": texts, "vector": np.stack(vectors), "failed": failed}

    def before(self, group: list[str]) -> None:
        """Called before each batch is embedded (a test raises or stops here)."""


# --------------------------------------------------------------------------- the run


def ray_index(
    ws: Workspace,
    names: Sequence[str | Document],
    config: Config,
    progress: Progress = quiet,
    *,
    address: str | None = None,
    workers: int | None = None,
    questions: Sequence[str] = (),
    embed_class: type[Embed] = Embed,
    stall: float = STALL_SECONDS,
) -> RayIndexed:
    """Fill the lasting index of ``ws``'s embedder on Ray (see the module docstring): the
    result is :func:`~explorer.preparing.fill_index`'s, row for row and bit for bit.

    ``workers`` embedding actors (default one; on this machine each gets an equal share of the
    cores, on a cluster at most one node's). Raises :class:`EngineError` when Ray is missing,
    nobody answers at ``address`` or a worker fails (what was written is kept: run again), and
    what ``fill_index`` raises for a configuration with nothing to embed, no lasting index or
    one too small."""
    from explorer.retrieval.embeddings import BATCH, URGENT, cores, encoding_order

    if not config.needs_model:
        raise SettingsError(
            "this configuration ranks with BM25 only (retriever=bm25): there is nothing to "
            "embed; give --retriever hybrid or dense"
        )
    if config.chunking.splitter == "semantic":
        raise SettingsError(
            "--engine ray does not index the semantic splitter's chunkings (it embeds "
            "sentences while it chunks, which the workers would not keep); leave --engine out"
        )
    if workers is not None and workers < 1:
        raise SettingsError(f"--workers must be 1 or more, got {workers}")
    emb = ws.embedder(config.model)
    store = emb.store
    if store is None:
        raise EmbeddingError(
            "the lasting embedding index is turned off (--no-cache or "
            "CHUNK_EXPLORER_CACHE=off), so indexing would keep nothing; give --cache-dir DIR"
        )
    n_workers = workers or 1
    started = time.monotonic()
    what = embedded_kind(config)
    progress(0.0, "starting Ray" if address is None else f"joining the Ray cluster at {address}")
    with ray_session(address, cpus=cores()) as ray:
        quiet_data(ray)
        strict_data(ray)
        start_seconds = time.monotonic() - started
        threads = _threads_per_worker(ray, n_workers)

        # 1. chunk, as tasks
        chunking = time.monotonic()
        docs = [ws.document(n) for n in names]
        progress(0.0, f"chunking {len(docs):,} documents on Ray")
        per_doc: dict[int, tuple[int, list[str]]] = {}
        if docs:
            items = [{"index": i, "doc": pickle.dumps(d)} for i, d in enumerate(docs)]
            ds = ray.data.from_items(items)
            chunked = ds.map_batches(
                chunk_batch,
                fn_kwargs={"config_json": config.to_json()},
                batch_size=DOCS_PER_TASK,
                batch_format="default",
                num_cpus=1,
            )
            try:
                for got in _watched(ray, chunked, stall=stall, step="chunking"):
                    for index, count, texts_of in zip(
                        got["index"], got["chunks"], got["texts"], strict=True
                    ):
                        per_doc[int(index)] = (int(count), [str(t) for t in texts_of])
                    progress(CHUNK_SHARE * len(per_doc) / len(docs), "chunking on Ray")
            except (KeyboardInterrupt, EngineError):
                raise
            except Stalled as stuck:
                raise _stalled("chunking", stuck.seconds, 0) from None
            except WorkerLost as lost:
                raise _lost("chunking", str(lost), 0) from None
            except Exception as exc:
                if _is_lost(ray, exc):
                    raise _lost("chunking", _root_cause(exc), 0) from None
                raise _failed("chunking", _root_cause(exc), 0) from None
        chunks = sum(c for c, _ in per_doc.values())
        texts: dict[str, None] = {}
        for i in range(len(docs)):
            texts.update(dict.fromkeys(per_doc[i][1]))
        texts.update(dict.fromkeys(q for q in questions if q))
        chunk_seconds = time.monotonic() - chunking

        # 2. what the lasting index holds already is not embedded again
        emb.prefetch(list(texts))
        todo = [t for t in texts if not emb.cached(t)]
        already = len(texts) - len(todo)
        embedding_seconds = write_seconds = 0.0
        if todo:
            # the single process's batches, in its order (encoding_order), BATCH at a time
            ordered = encoding_order(todo)
            groups = [ordered[i : i + BATCH] for i in range(0, len(ordered), BATCH)]
            note = f"embedding on {n_workers} Ray worker{'s' if n_workers > 1 else ''}"
            progress(CHUNK_SHARE, f"{note}: loading the model")
            rate = Rate(len(todo))
            with warnings.catch_warnings():  # max_restarts has no named parameter in 2.60
                warnings.filterwarnings("ignore", message=".*ray_remote_args.*deprecated")
                vectors = ray.data.from_items([{"texts": g} for g in groups]).map_batches(
                    embed_class,
                    fn_constructor_kwargs={
                        "model": emb.name,
                        "threads": threads,
                        "urgent": len(todo) <= URGENT,
                    },
                    batch_size=GROUPS_PER_CALL,
                    batch_format="default",
                    compute=ray.data.ActorPoolStrategy(size=n_workers),
                    num_cpus=threads,
                    # a lost worker is not started again: Ray 2.60 restarts it, but its pool does
                    # not send it the lost batch again and the run waits for ever (see _watched);
                    # the driver sees the loss, stops, and the next run embeds only the rest. An
                    # error raised in a batch comes back as a row (Embed.__call__) and stops it too.
                    max_restarts=0,
                )
            done = 0
            stored = f"({already:,} stored already) " if already else ""
            try:
                for batch in _watched(ray, vectors, stall=stall, step="embedding"):
                    failed = [str(f) for f in batch["failed"] if f]
                    keep = [i for i, f in enumerate(batch["failed"]) if not f]
                    if keep and not done:  # the first vectors say the size: one check of the cap
                        _check_cap(store.max_bytes, len(texts), int(batch["vector"].shape[1]))
                    wrote = time.monotonic()
                    fresh = {str(batch["text"][i]): batch["vector"][i] for i in keep}
                    if fresh:
                        store.put(emb.name, fresh)  # one transaction, with the row checks
                    write_seconds += time.monotonic() - wrote
                    done += len(fresh)
                    if failed:  # what came back before the error is written: now stop
                        raise _failed("embedding", failed[0], done)
                    progress(
                        CHUNK_SHARE + (1 - CHUNK_SHARE) * rate.fraction(done),
                        f"{note}: {stored}{rate.note(done, what)}",
                    )
            except (KeyboardInterrupt, EngineError, EmbeddingError):
                raise
            except Stalled as stuck:
                raise _stalled("embedding", stuck.seconds, done) from None
            except WorkerLost as lost:
                raise _lost("embedding", str(lost), done) from None
            except Exception as exc:
                if _is_lost(ray, exc):  # Ray's own word that a worker died, before ours
                    raise _lost("embedding", _root_cause(exc), done) from None
                raise _failed("embedding", _root_cause(exc), done) from None
            embedding_seconds = rate.elapsed()
            if done != len(todo):  # every batch comes back once, or the run fails above
                raise EngineError(
                    f"the Ray run returned {done:,} of {len(todo):,} vectors; what was written "
                    "is kept: run the command again to embed the rest"
                )
    progress(1.0, "done")
    indexed = Indexed(
        documents=len(names),
        chunks=chunks,
        texts=len(texts),
        what=what,
        embedded=len(todo),
        already=already,
        seconds=time.monotonic() - started,
        embedding_seconds=embedding_seconds,
        threads=threads * n_workers if todo else 0,
    )
    return RayIndexed(
        indexed=indexed,
        workers=n_workers,
        address=address or "local",
        start_seconds=start_seconds,
        chunk_seconds=chunk_seconds,
        write_seconds=write_seconds,
    )


def _threads_per_worker(ray: Any, workers: int) -> int:
    """Cores for each embedding actor: an equal share of the cluster's, at most one node's."""
    total = int(ray.cluster_resources().get("CPU", 1))
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    largest = max((int(n.get("Resources", {}).get("CPU", 0)) for n in nodes), default=total)
    return max(1, min(total // workers, largest or total))


def _check_cap(max_bytes: int, texts: int, dim: int) -> None:
    """The lasting index must hold every vector of the run without dropping any."""
    from explorer.retrieval.store import ROW_OVERHEAD

    need = texts * (4 * dim + ROW_OVERHEAD)
    if need > max_bytes:
        raise EmbeddingError(
            f"these {texts:,} vectors need about {need / 1e6:,.0f} MB, over the lasting "
            f"index's cap of {max_bytes / 1e6:,.0f} MB: it would drop some to make room; raise "
            f"the cap with CHUNK_EXPLORER_CACHE_MB={need * 1.2 / 1e6:,.0f}"
        )


def _kept(step: str, written: int) -> str:
    if step == "embedding":
        return f"the {written:,} vectors written before it are kept in the lasting index"
    return "nothing was embedded yet"


def _failed(step: str, cause: str, written: int) -> EngineError:
    """A failure inside Ray (a worker's error, a worker lost) as one clear message."""
    return EngineError(
        f"a Ray worker failed while {step} ({cause}); {_kept(step, written)}: run the command "
        "again to finish only what is left"
    )


def _stalled(step: str, seconds: float, written: int) -> EngineError:
    first = ""
    if step == "embedding" and not written:
        first = " (the first batch includes starting the workers and loading the model)"
    return EngineError(
        f"the Ray run stopped answering while {step}: nothing came back for {seconds:g} s"
        f"{first}, so a worker is stuck, or was lost and not replaced; {_kept(step, written)}: "
        "run the command again to finish only what is left"
    )


def _lost(step: str, cause: str, written: int) -> EngineError:
    return EngineError(
        f"a Ray worker was lost while {step} ({cause}); the run stops here (Ray Data does not "
        f"resume a pool's lost batch); {_kept(step, written)}: run the command again to finish "
        "only what is left"
    )


def _is_lost(ray: Any, exc: BaseException) -> bool:
    """Whether Ray raised ``exc`` because a worker's process or node died (not its code)."""
    kinds = tuple(
        kind
        for name in ("RayActorError", "NodeDiedError", "OutOfMemoryError", "WorkerCrashedError")
        if isinstance(kind := getattr(ray.exceptions, name, None), type)
    )
    return bool(kinds) and isinstance(exc, kinds)


class WorkerLost(Exception):
    """A Ray worker of the run died without being asked to; the text says how."""


class Stalled(Exception):
    """Nothing came back from a Ray dataset for ``seconds`` (:func:`_watched`)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"nothing came back for {seconds:g} s")
        self.seconds = seconds


def _watched(ray: Any, ds: Any, *, stall: float, step: str) -> Iterator[dict[str, Any]]:
    """The batches of the Ray dataset ``ds`` as they are done, each waited for at most
    ``stall`` seconds (then :class:`Stalled`), the wait given up as soon as a worker started
    for it is lost (:class:`WorkerLost`).

    Ray Data's iterator is read on a thread of its own: a wait on it can last for ever (a worker
    killed mid-batch and restarted without its batch, an abort that never reaches the iterator
    — both seen with Ray 2.60 on a loaded machine), and a wait on a queue cannot. However the
    loop ends — done, an error, the stall, a lost worker, Ctrl-C — the dataset's execution is
    shut down, so no worker is left working."""
    found: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=2)
    stop = threading.Event()
    before = set(threading.enumerate())
    known = _actors(ray)

    def pull() -> None:
        try:
            for item in ds.iter_batches(batch_size=None, batch_format="numpy"):
                while not stop.is_set():
                    with contextlib.suppress(queue.Full):
                        found.put(("batch", item), timeout=0.2)
                        break
                if stop.is_set():
                    return
            found.put(("end", None))
        except BaseException as exc:  # handed to the driver's thread as it is
            found.put(("error", exc))

    reader = threading.Thread(target=pull, name=f"ray-{step}-reader", daemon=True)
    reader.start()
    try:
        while True:
            waited = 0.0
            while True:
                try:
                    kind, item = found.get(timeout=min(POLL_SECONDS, stall - waited))
                    break
                except queue.Empty:
                    waited += POLL_SECONDS
                    lost = _lost_worker(ray, known)
                    if lost:
                        raise WorkerLost(lost) from None
                    if waited >= stall:
                        raise Stalled(stall) from None
            if kind == "end":
                return
            if kind == "error":
                raise item
            yield item
    finally:
        stop.set()
        _shut_down(before)
        reader.join(timeout=1.0)  # a daemon: one stuck in Ray is not waited for


def _actors(ray: Any) -> dict[str, dict[str, Any]]:
    """Every actor Ray's control store knows of, by id (none when it cannot be asked, as through
    Ray Client: the stall bound alone then watches the run)."""
    try:
        found: dict[str, dict[str, Any]] = ray._private.state.actors()
    except Exception:  # an internal API: a Ray that lacks it leaves the bound to watch
        return {}
    return found


def _lost_worker(ray: Any, known: dict[str, dict[str, Any]]) -> str:
    """How an actor started since ``known`` was taken died unasked (its process killed, its
    node gone, out of memory), in one line; empty while none has."""
    for actor_id, info in _actors(ray).items():
        if actor_id in known or info.get("State") != "DEAD":
            continue
        cause = str(info.get("DeathCause", ""))
        reason = re.search(r"reason: (\w+)", cause)
        if reason and reason.group(1) in LOST:
            said = re.search(r'error_message: "([^".]*)', cause)
            what = said.group(1).strip() if said else "it died"
            pid = re.search(r"pid: (\d+)", cause)
            where = f"process {pid.group(1)}" if pid else "its process"
            return f"{reason.group(1)}: {what}, {where}"
    return ""


def _shut_down(before: set[threading.Thread]) -> None:
    """Stop the Ray Data executions started since ``before`` (each runs as a thread of the
    driver), which ends their workers; one that has finished already is left as it is."""
    for thread in set(threading.enumerate()) - before:
        shutdown = getattr(thread, "shutdown", None)
        if callable(shutdown) and type(thread).__name__ == "StreamingExecutor":
            with contextlib.suppress(Exception):
                shutdown(force=True)


def _raised_line(exc: BaseException) -> str:
    """An error raised in a worker as one line, ``RuntimeError: the disk is full``."""
    first = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _root_cause(exc: BaseException) -> str:
    """The error raised on the worker, as one line: Ray wraps it in its own exceptions and
    prints the worker's traceback into their text (``RuntimeError: ...`` after it)."""
    text = ANSI.sub("", str(exc))
    for line in text.splitlines():
        found = RAISED.match(line)
        if found and not found.group(1).startswith("ray."):
            return line.strip()
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__
