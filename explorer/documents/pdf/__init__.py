"""PDF loading: one text in reading order, every character mapped back to its glyph.

``load_pdf`` turns the bytes of a PDF into a :class:`~explorer.documents.Document`.

* ``text`` is the page text in reading order, built from PyMuPDF's per-character extraction
  (``page.get_text("rawdict")``). Each page is ordered by a recursive XY-cut over line boxes:
  horizontal bands that share a column gap are merged and then cut into columns, so
  multi-column pages read column by column while full-width titles (and anything above a
  full-width rule) come first. Footnotes at the foot of a column move to the end of their
  page, so a sentence running on into the next column is not interrupted.
* Lines of a paragraph are joined with one space; paragraphs and pages are separated by a
  blank line (``"\n\n"``). Table rows end with ``"\n"``; their cells are separated by ``" | "``.
* ``layout`` maps every character that came from a glyph to its page, its line's vertical
  extent and the glyph's left/right x; characters the loader inserted (joining spaces, breaks,
  cell separators) are ``nan``. Coordinates are points on the page as rendered by
  ``page.get_pixmap`` (``page.rect`` space: origin top left, page rotation applied).
* Normalisation, each change counted in ``Document.normalisation`` (no glyph character is
  dropped without being counted): running headers and footers, bare page numbers, repeated
  margin notes and rotated watermarks are removed; words hyphenated at line ends are joined
  (``compli-``/``ance`` -> ``compliance``; ``FAA-``/``approved`` keeps its hyphen); white space
  inside lines is collapsed; control characters and invisible text are dropped (except where
  invisible text is all a page has: an OCR layer under a scanned image is kept).
* Structure: paragraphs, headings (from font size and weight; numbered titles such as
  ``2.1.3.`` nest by their numbers), list items and tables (PyMuPDF's ``find_tables`` on pages
  whose ruling lines form cells, plus row-aligned columns of short text).

Bad input raises :class:`~explorer.errors.DocumentError` with one sentence saying what is wrong
and what to do; no PyMuPDF exception escapes.

The package, by stage (each module's docstring says what it holds):

* :mod:`~explorer.documents.pdf.reader` — :func:`load_pdf`: the stages, page by page;
* :mod:`~explorer.documents.pdf.opening` — :func:`open_pdf` and :data:`MAX_PAGES`;
* :mod:`~explorer.documents.pdf.glyphs` — a page's glyphs as cleaned fragments of text lines;
* :mod:`~explorer.documents.pdf.repeats` — running headers, footers, page numbers, watermarks;
* :mod:`~explorer.documents.pdf.tables` — ruled and framed tables, rows and cells from lines;
* :mod:`~explorer.documents.pdf.order` — reading order: the XY-cut into bands and columns;
* :mod:`~explorer.documents.pdf.paragraphs` — rows, paragraphs, listings, footnotes;
* :mod:`~explorer.documents.pdf.hyphenation` — what joins lines: hyphens, compounds, addresses;
* :mod:`~explorer.documents.pdf.writer` — the text, its layout and blocks, written page by page;
* :mod:`~explorer.documents.pdf.structure` — headings and their levels;
* :mod:`~explorer.documents.pdf.notes` — the normalisation notes;
* :mod:`~explorer.documents.pdf.records` — the records the stages hand on.

The limits are read where they are defined: :data:`MAX_PAGES` in ``opening``,
:data:`MAX_TABLE_CROSSINGS` in ``tables`` and ``MAX_CHARS`` in ``reader`` (patch them there).
"""

from explorer.documents.model import MAX_CHARS as MAX_CHARS
from explorer.documents.pdf.opening import MAX_PAGES, open_pdf
from explorer.documents.pdf.reader import load_pdf
from explorer.documents.pdf.tables import MAX_TABLE_CROSSINGS

__all__ = ["MAX_PAGES", "MAX_TABLE_CROSSINGS", "load_pdf", "open_pdf"]
