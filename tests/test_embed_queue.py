"""The model's queue (:class:`explorer.retrieval.embeddings.Turns`): sessions share one model
batch by batch, a question goes ahead of waiting batches, the cache answers while the model
works, and a text two sessions need is encoded once. A fake model records what it was given
and can be held mid-batch, so each test asserts an order of events, not a time."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from explorer.retrieval.embeddings import BATCH, Embedder


class Model:
    """Encodes a text as a vector of its length; ``hold`` keeps a batch running until set."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.hold = threading.Event()
        self.hold.set()
        self.running = threading.Event()
        self.lock = threading.Lock()

    def encode(self, batch: Sequence[str], **_: Any) -> Any:
        with self.lock:  # one batch at a time is the queue's job; this checks it
            assert not self.running.is_set(), "two batches ran at once"
            self.running.set()
        self.batches.append(list(batch))
        self.hold.wait(timeout=30)
        self.running.clear()
        return np.array([[float(len(t)), 1.0] for t in batch], dtype=np.float32)


def embedder() -> tuple[Embedder, Model]:
    emb = Embedder("fake")
    model = Model()
    emb._model = model
    return emb, model


def texts(tag: str, n: int) -> list[str]:
    return [f"{tag} {i:04d}" for i in range(n)]


def test_two_documents_take_turns_batch_by_batch() -> None:
    emb, model = embedder()
    model.hold.clear()
    a = threading.Thread(target=emb.embed, args=(texts("a", 3 * BATCH),))
    a.start()
    while not model.batches:
        threading.Event().wait(0.01)
    b = threading.Thread(target=emb.embed, args=(texts("b", 3 * BATCH),))
    b.start()
    threading.Event().wait(0.2)  # b is queued behind a's first batch
    model.hold.set()
    a.join()
    b.join()
    owners = [batch[0][0] for batch in model.batches]
    assert owners == ["a", "b", "a", "b", "a", "b"]


def test_a_question_waits_for_one_batch_not_for_a_whole_document() -> None:
    emb, model = embedder()
    model.hold.clear()
    document = threading.Thread(target=emb.embed, args=(texts("doc", 10 * BATCH),))
    document.start()
    while not model.batches:
        threading.Event().wait(0.01)
    asked: list[Any] = []
    question = threading.Thread(target=lambda: asked.append(emb.embed_query("a question?")))
    question.start()
    threading.Event().wait(0.2)
    model.hold.set()
    question.join()
    document.join()
    position = next(i for i, b in enumerate(model.batches) if b == ["a question?"])
    assert position == 1  # right after the batch that was running
    assert asked[0].tolist() == [11.0, 1.0]


def test_the_cache_answers_while_the_model_works() -> None:
    emb, model = embedder()
    emb.embed(["seen before"])
    model.hold.clear()
    long = threading.Thread(target=emb.embed, args=(texts("x", 4 * BATCH),))
    long.start()
    while not model.running.is_set():
        threading.Event().wait(0.01)
    # a session whose texts are all known gets them while a batch is still running
    assert emb.embed(["seen before"]).tolist() == [[11.0, 1.0]]
    assert emb.prefetch(["seen before", "new"]) == 0
    assert model.running.is_set()
    model.hold.set()
    long.join()


def test_a_text_two_sessions_need_is_encoded_once() -> None:
    emb, model = embedder()
    model.hold.clear()
    shared = texts("s", 2 * BATCH)
    out: list[Any] = []
    first = threading.Thread(target=lambda: out.append(emb.embed(shared)))
    first.start()
    while not model.batches:
        threading.Event().wait(0.01)
    second = threading.Thread(target=lambda: out.append(emb.embed([*shared[::-1], "own"])))
    second.start()
    threading.Event().wait(0.2)
    model.hold.set()
    first.join()
    second.join()
    encoded = [t for b in model.batches for t in b]
    assert sorted(encoded) == sorted([*shared, "own"])  # nothing twice
    assert out[0].tolist() == [[float(len(t)), 1.0] for t in shared]
    assert out[1][:-1].tolist() == [[float(len(t)), 1.0] for t in shared[::-1]]


def test_a_stopped_wait_leaves_the_line() -> None:
    """A session whose run is stopped while it waits does not keep the others waiting."""
    from explorer.retrieval.embeddings import Turns

    turns = Turns()
    inside = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with turns.turn():
            inside.set()
            release.wait(timeout=30)

    holder = threading.Thread(target=hold)
    holder.start()
    inside.wait(timeout=30)
    original = turns._cond.wait

    def stopped(timeout: float | None = None) -> bool:
        raise KeyboardInterrupt  # what stopping a script run does to a waiting thread

    turns._cond.wait = stopped  # type: ignore[method-assign]
    try:
        with turns.turn():
            raise AssertionError("got a turn while another held it")
    except KeyboardInterrupt:
        pass
    turns._cond.wait = original  # type: ignore[method-assign]
    release.set()
    holder.join()
    after = threading.Thread(target=lambda: turns.turn().__enter__())
    after.start()
    after.join(timeout=5)
    assert not after.is_alive(), "the next session waits for a turn nobody will take"


class ThreadCounting(Model):
    """Records how many intra-op threads torch had for each batch."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []

    def encode(self, batch: Sequence[str], **kw: Any) -> Any:
        import torch

        self.threads.append(torch.get_num_threads())
        return super().encode(batch, **kw)


def test_a_question_runs_on_one_thread_and_documents_on_all() -> None:
    """One short text gains nothing from several intra-op threads and, on busy cores, can wait
    for them; a document's batches keep every thread, and the count is restored."""
    import torch

    emb = Embedder("fake")
    model = ThreadCounting()
    emb._model = model
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        emb.embed_query("how long is the refund window?")
        emb.embed(texts("doc", BATCH + 1))
        assert model.threads == [1, 2, 2]
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
