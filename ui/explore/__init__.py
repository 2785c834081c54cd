"""The Explore page's panels (``app_pages/explore.py`` reads as their order on the page): the
sidebar's own controls and the uploads, the chunking of the document, the question and its
verdict, the lesson, the ranking, the what-if edits bar, what changed since another version, the
overview and the chunk table with the export. The callbacks that change what the page shows are
:mod:`ui.explore.moves`."""
