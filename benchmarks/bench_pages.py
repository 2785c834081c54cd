"""Large PDF pages: ``python -m benchmarks.bench_pages`` (options: ``--sides 6000,14400``).

For each side, in a fresh process: a one-page PDF of that many points a side (a line of text at
the top, a large word halfway down; under 2 KB) is read with ``load_document``, drawn by
``ui.render_pdf.render_pdf_page`` at the app's zoom of 2, and handed to Streamlit's own image
preparation (what ``st.image`` does with a PNG: Pillow opens it and shrinks anything wider than
1,460 px). It prints the image's size, the zoom drawn at, and the growth of peak resident memory
(``VmHWM``) over the reading and over the drawing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from tests.conftest import REPO

SIDES = (792, 6_000, 8_000, 10_000, 14_400, 50_000)

_RUN = """
import json, re, sys
from pathlib import Path

def peak_mb():  # VmHWM: unlike ru_maxrss it does not carry the parent's peak across exec
    status = Path("/proc/self/status").read_text()
    return int(re.search(r"VmHWM:\\s+(\\d+)", status).group(1)) / 1024

import pymupdf
from streamlit.elements.lib.image_utils import _ensure_image_size_and_format
from streamlit.elements.lib.layout_utils import LayoutConfig
from explorer.documents.load import load_document
from tests.test_page_size import big_page_pdf
from ui.render_pdf import render_pdf_page

side = float(sys.argv[1])
data = big_page_pdf(side, side)
base = peak_mb()
doc = load_document(data, name="big.pdf")
read = peak_mb()
try:
    image = render_pdf_page(data, 1, doc, [], zoom=2.0)
    _ensure_image_size_and_format(image.png, LayoutConfig(width="content"), "PNG")
    pix = pymupdf.Pixmap(image.png)
    outcome = f"{pix.width} x {pix.height} px at zoom {image.zoom:.3g}"
except Exception as exc:
    outcome = f"{type(exc).__name__}: {exc}"[:90]
print(json.dumps({"bytes": len(data), "read": read - base, "drawn": peak_mb() - read,
                  "outcome": outcome}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sides", default=",".join(str(s) for s in SIDES))
    args = parser.parse_args()
    print(f"{'side pt':>8s} {'bytes':>6s} {'read MB':>8s} {'drawn MB':>9s}  outcome")
    for side in (int(s) for s in args.sides.split(",")):
        run = subprocess.run(
            [sys.executable, "-c", _RUN, str(side)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        )
        m = json.loads(run.stdout)
        print(f"{side:>8,d} {m['bytes']:>6,d} {m['read']:>8.0f} {m['drawn']:>9.0f}  {m['outcome']}")


if __name__ == "__main__":
    main()
