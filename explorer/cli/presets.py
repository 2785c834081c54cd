"""``presets``: the published baselines ``--preset`` names (:mod:`explorer.evaluation.presets`),
with their settings, source and claim."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from explorer.cli.options import Subparsers


def add_presets(sub: Subparsers) -> None:
    presets = sub.add_parser(
        "presets", help="the published baselines --preset names: settings, source and claim"
    )
    presets.add_argument("--json", action="store_true", help="print one JSON list")


def run_presets(args: argparse.Namespace, out: TextIO) -> int:
    from explorer.evaluation import presets

    if args.json:
        out.write(json.dumps(presets.presets_json(), ensure_ascii=False) + "\n")
    else:
        out.write(presets.presets_text())
    return 0
