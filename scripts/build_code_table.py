"""Write the problem-code table of docs/report.md from validator/codes.py, the registry.

The table sits between the `<!-- problem-codes:start -->` and `<!-- problem-codes:end -->`
markers; the rest of the page is prose, edited by hand. `--check` writes nothing and exits 1
when the page's table is not the one the registry gives (tests/rules/test_codes.py runs it).

    python scripts/build_code_table.py            # rewrite docs/report.md's table
    python scripts/build_code_table.py --check    # exit 1 when it is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from validator.codes import CODES  # noqa: E402  (the checkout's registry, installed or not)

START, END = "<!-- problem-codes:start -->", "<!-- problem-codes:end -->"
PAGE = ROOT / "docs" / "report.md"


def render() -> str:
    """The table: one row per code, in the registry's order (grouped by area)."""
    rows = ["| code | severity | citation | meaning |", "|---|---|---|---|"]
    for entry in CODES.values():
        severity = entry.severity + "".join(f", {s}" for s in entry.also)
        meaning = entry.meaning
        if entry.undecidable:  # a report whose errors are all such is "unconfirmed"
            meaning += f"; **cannot decide**: settled by {entry.settled_by}"
        meaning = meaning.replace("|", "\\|")
        # The citation as code: `format:<key>` would otherwise be read as an HTML tag.
        rows.append(f"| `{entry.code}` | {severity} | `{entry.citation}` | {meaning} |")
    return "\n".join(rows) + "\n"


def replaced(page: str, table: str) -> str:
    """`page` with the text between the markers replaced by `table`."""
    try:
        head, rest = page.split(START, 1)
        _, tail = rest.split(END, 1)
    except ValueError:
        raise SystemExit(
            f"the page has no {START} ... {END} markers: add them where the table goes"
        ) from None
    return f"{head}{START}\n{table}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=PAGE, help="the page (docs/report.md)")
    parser.add_argument("--check", action="store_true", help="exit 1 when the table is stale")
    args = parser.parse_args(argv)
    page = args.output.read_text(encoding="utf-8")
    new = replaced(page, render())
    if args.check:
        if new != page:
            print(
                f"{args.output}: the problem-code table is stale: run "
                "python scripts/build_code_table.py",
                file=sys.stderr,
            )
            return 1
        return 0
    args.output.write_text(new, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
