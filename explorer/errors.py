"""Typed errors. Every message says what happened and what to do about it.

The command line and the app turn any ``ExplorerError`` into one clear line; anything
else escaping the library is a bug.
"""

from __future__ import annotations


class ExplorerError(Exception):
    """Base of every error the library raises on purpose."""


class DocumentError(ExplorerError):
    """A document could not be read: empty, corrupt, encrypted, binary, no text layer, too big."""


class SettingsError(ExplorerError, ValueError):
    """Chunking settings that cannot work (size <= 0, overlap >= size, unknown name)."""


class MeasureError(ExplorerError):
    """A size measure could not be set up (unknown or unavailable encoding, model files)."""


class EmbeddingError(ExplorerError):
    """The embedding model could not be loaded or verified."""


class QuerySetError(ExplorerError):
    """A query set file that cannot be used as it is."""


class DiffError(ExplorerError, ValueError):
    """Two versions cannot be compared (chunks that are not the document's)."""


class StatsError(ExplorerError, ValueError):
    """Outcomes that cannot be compared (different questions, no questions, not booleans)."""


class LibraryError(ExplorerError):
    """Another library's splitter is not installed, or failed on this text."""


class LessonError(ExplorerError):
    """A lesson file that cannot be used as it is (names the file, the field and the problem)."""


class EditError(ExplorerError, ValueError):
    """A what-if edit that cannot be applied (a bad edit file, an offset or index out of range)."""


class TimeLimitError(LibraryError):
    """A library split with a regular expression of the user's ran over its time limit (the
    expression may backtrack catastrophically)."""


class JSONTextError(ExplorerError, ValueError):
    """A JSON text that cannot be read safely: not JSON, nested too deeply, a number too long,
    or half of a surrogate pair (see :mod:`explorer.jsontext`). ``str()`` is ``"{what}:
    {problem}"``; ``problem`` alone reads after a subject too ("the file is {problem}")."""

    def __init__(self, what: str, problem: str) -> None:
        super().__init__(f"{what}: {problem}")
        self.what = what
        self.problem = problem


class EngineError(ExplorerError):
    """A distributed engine (``index --engine ray``) could not be used: not installed, nobody
    answers at the address, or a worker failed; what was written is kept."""
