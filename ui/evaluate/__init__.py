"""The Evaluate page's parts (``app_pages/evaluate.py`` reads as their order): its starting
state, the questions to run (the sidebar), and one module per tab — the query set, the A/B, the
sweep — with what the two runs share and the hand-over to the Explore page."""
