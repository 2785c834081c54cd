"""A document's words as BM25 reads them, found once for every chunking.

bm25s tokenises each text on its own: lower-cased, the runs of ``\\w`` characters two or more
long (``(?u)\\b\\w\\w+\\b``), English stop words dropped, each word Snowball-stemmed. A chunk is
a span of the document, so its words are the document's words inside the span, and where a word
runs across an edge of the span, the part of it inside (when two or more characters long).
:class:`Words` finds and stems the document's words once; :meth:`Words.tokenized` then gives any
chunks' tokens as ``bm25s.tokenize`` gives them — the same stems in the same order, so the same
index and the same scores — without reading their text again. A new chunk size re-tokenises
nothing.

This holds when lower-casing the document is lower-casing each character on its own, in place:
no character becomes two (``"İ"``) and no capital sigma (whose lower case depends on the letters
around it). :meth:`Words.of` returns ``None`` for a document where it does not, which is then
tokenised text by text, as before.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Sequence
from typing import Any

TOKEN = re.compile(r"(?u)\b\w\w+\b")
"""bm25s's default token pattern (scikit-learn's)."""
_WORD_CHAR = re.compile(r"(?u)\w")


def lowers_in_place(text: str) -> bool:
    """Whether lower-casing ``text`` lower-cases each character on its own, in place."""
    return "\u03a3" not in text and len(text.lower()) == len(text)


class Words:
    """The words of one text: where each starts and ends, and its stem's number (-1 for a stop
    word), found and stemmed once."""

    def __init__(self, low: str, stemmer: Any) -> None:
        import numpy as np
        from bm25s.tokenization import _infer_stopwords

        self._low = low
        self._stemmer = stemmer
        self._stop = frozenset(_infer_stopwords("en"))
        self._number: dict[str, int] = {}  # a word's stem's number (-1: a stop word)
        self._stems: list[str] = []  # the stems by number
        self._at: dict[str, int] = {}  # a stem's number
        self._lock = threading.Lock()
        spans = [m.span() for m in TOKEN.finditer(low)]
        self._ids = np.asarray(self._numbers([low[a:b] for a, b in spans]), dtype=np.int64)
        # memoryviews of numpy arrays (bisect reads them as it reads a list): a long document
        # has millions of words, and a list of Python ints takes four times the bytes
        edges = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
        self._starts: Any = np.ascontiguousarray(edges[:, 0]).data
        self._ends: Any = np.ascontiguousarray(edges[:, 1]).data

    @classmethod
    def of(cls, text: str, stemmer: Any) -> Words | None:
        """The words of ``text``, or ``None`` when its lower case is not each character's own
        (see the module docstring)."""
        return cls(text.lower(), stemmer) if lowers_in_place(text) else None

    def _numbers(self, words: Sequence[str]) -> list[int]:
        """Each word's stem's number (-1 for a stop word), new words stemmed in one call."""
        with self._lock:  # two chunkings' indexes may be made at once
            return self._numbered(words)

    def _numbered(self, words: Sequence[str]) -> list[int]:
        number = self._number
        new = [w for w in dict.fromkeys(words) if w not in number]
        kept = [w for w in new if w not in self._stop]
        number.update(dict.fromkeys(new, -1))
        at = self._at
        for word, stem in zip(kept, self._stemmer.stemWords(kept), strict=True):
            if stem not in at:
                at[stem] = len(self._stems)
                self._stems.append(stem)
            number[word] = at[stem]
        return [number[w] for w in words]

    def _text_ids(self, text: str) -> list[int]:
        """The stems' numbers of a text that is not a span of the document (a header)."""
        return [n for n in self._numbers(TOKEN.findall(text.lower())) if n >= 0]

    def _span_ids(self, s: int, e: int) -> Any:
        """The stems' numbers of the document's ``[s, e)`` tokenised on its own."""
        import numpy as np

        starts, ends, low = self._starts, self._ends, self._low
        i = bisect.bisect_right(ends, s)  # the first word ending after s
        j = bisect.bisect_left(starts, e)  # the words before j start before e
        head = tail = ""
        if i < j and starts[i] < s:  # a word cut by the start: the part inside
            head = low[s : min(ends[i], e)]
            i += 1
        if i < j and ends[j - 1] > e:  # a word cut by the end
            tail = low[starts[j - 1] : e]
            j -= 1
        inside = self._ids[i:j]
        inside = inside[inside >= 0]
        if len(head) < 2 and len(tail) < 2:
            return inside
        first = self._text_ids(head) if len(head) > 1 else []
        last = self._text_ids(tail) if len(tail) > 1 else []
        return np.concatenate([np.asarray(first, dtype=np.int64), inside,
                               np.asarray(last, dtype=np.int64)])  # fmt: skip

    def tokenized(self, text: str, spans: Sequence[tuple[int, int]], texts: Sequence[str]) -> Any:
        """``bm25s.tokenize(texts, stopwords="en", stemmer=...)`` where each ``texts[i]`` is
        ``text[a:b]`` for ``spans[i]`` (``text`` being this document's), maybe after a header
        that ends in white space (a heading path and a blank line); ``None`` when a text is not
        of that form."""
        import numpy as np
        from bm25s.tokenization import Tokenized

        parts = []
        if not spans:
            return Tokenized(ids=[], vocab={})
        for (a, b), t in zip(spans, texts, strict=True):
            cut = len(t) - (b - a)
            if cut < 0 or t[cut:] != text[a:b]:
                return None
            header = t[:cut]
            if not header:
                parts.append(self._span_ids(a, b))
                continue
            if _WORD_CHAR.match(header[-1]) or not lowers_in_place(header):
                return None
            ids = np.asarray(self._text_ids(header), dtype=np.int64)
            parts.append(np.concatenate([ids, self._span_ids(a, b)]))
        lengths = np.cumsum([len(p) for p in parts])[:-1]
        every = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        used, compact = np.unique(every, return_inverse=True)
        vocab = {self._stems[int(n)]: k for k, n in enumerate(used)}
        return Tokenized(ids=[p.tolist() for p in np.split(compact, lengths)], vocab=vocab)


def words_of(text: str) -> Words | None:
    """The words of a document's ``text`` as :class:`~explorer.retrieval.scoring.Bm25` stems
    them (``None`` where :meth:`Words.of` says so)."""
    import Stemmer

    return Words.of(text, Stemmer.Stemmer("english"))
