"""The Corpus page's panels (``app_pages/corpus.py`` reads as their order): the documents it
asks (samples, evaluation documents, uploads, a folder), their overview, the question with its
hits grouped by document, and the retrieval map of a query set. The data they draw is
:mod:`ui.corpus_view`'s; the many-file uploads are :mod:`ui.corpus_uploads`."""
