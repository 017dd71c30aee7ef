"""Generated PDFs with one distinct fact per page, for the tests and the benchmark.

matplotlib (a dependency) writes real text PDFs; TrueType fonts (not Type 3) keep the text
extractable, as in a PDF exported from a word processor.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

MATERIALS = ("aluminium 6061", "steel S355", "titanium Ti-6Al-4V", "PEEK", "copper C101")
FILLER = (
    "The test followed the laboratory procedure agreed with the client. Specimens were "
    "conditioned for two days before loading. Measurements were logged every second and the "
    "logs were archived with the report. Deviations from the procedure are listed at the end. "
)


def fact(page: int) -> str:
    """The one statement page `page` (1-based) makes, with a keyword no other page has."""
    material = MATERIALS[page % len(MATERIALS)]
    return (
        f"Specimen SPX{page:04d} made of {material} failed at a load of {1000 + 37 * page} N "
        f"with a measured stiffness of {round(2.5 + page / 10, 1)} kN/mm."
    )


def write_fact_pdf(path: Path, pages: int, filler_repeats: int = 3) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot
    from matplotlib.backends.backend_pdf import PdfPages

    with matplotlib.rc_context({"pdf.fonttype": 42}), PdfPages(path) as pdf:
        for page in range(1, pages + 1):
            figure = pyplot.figure(figsize=(8.27, 11.69))
            body = f"Lab report, page {page}\n\n" + "\n".join(
                textwrap.wrap(fact(page) + " " + FILLER * filler_repeats, 90)
            )
            figure.text(0.08, 0.95, body, va="top", fontsize=9, family="DejaVu Sans")
            pdf.savefig(figure)
            pyplot.close(figure)
    return path
