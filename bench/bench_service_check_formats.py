"""Benchmark: the size and memory of a `POST /v1/check-formats` answer for a hostile list.

    python bench/bench_service_check_formats.py                # the hostile request
    python bench/bench_service_check_formats.py --lines 1000 --db cards.sqlite3

A hostile request to a running server: a decklist of 4,999 lines `1 <190 random
letters>` (969 KB of JSON), every line an unknown card. Each unknown name is a problem in every
format's report (22 formats), and the answer listed each twice per format (in `formats` and in
`reports`): 114 MB. This judges the deck once against the full-size derived card database
(the service's in-memory snapshot, loaded first) and then builds the answer both ways, in the
same run:

* baseline: the answer before the cap (`check_formats_dict` + every format's whole report);
* now: `app.check_formats_answer` (each format's problems capped, `problems_omitted`).

For each it prints the answer's bytes (orjson, as the service sends it) and the peak Python
memory (tracemalloc) of building and serializing it, and the ratios now / baseline.
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import time
import tracemalloc
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import derived_db  # noqa: E402


def hostile_list(lines: int, length: int = 190, seed: int = 1) -> str:
    rng = random.Random(seed)
    letters = string.ascii_lowercase + " "
    return "\n".join(
        "1 " + "".join(rng.choice(letters) for _ in range(length)) for _ in range(lines)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", help="card database (default: the cached full-size derived one)")
    parser.add_argument("--lines", type=int, default=4999)
    args = parser.parse_args()

    from validator.report import check_formats_dict
    from validator.service import app as service_app
    from validator.service.app import Service, ServiceConfig
    from validator.service.models import CheckFormatsRequest

    db = args.db or str(derived_db())
    started = time.perf_counter()
    service = Service(ServiceConfig(db=db, poll_seconds=0))
    service.holder.load()
    print(f"card data loaded in {time.perf_counter() - started:.1f} s from {db}")
    decklist = hostile_list(args.lines)
    body = orjson.dumps({"decklist": decklist})
    print(f"request: {args.lines} lines of unknown names, {len(body):,} bytes of JSON")
    options = CheckFormatsRequest(decklist=decklist)

    def baseline(reports, source, provenance=None):
        answer = check_formats_dict(reports, source)
        answer["reports"] = [r.to_dict() for r in reports]
        return answer

    results = {}
    for label, build in (("baseline", baseline), ("now", service_app.check_formats_answer)):
        service_app.check_formats_answer = build
        tracemalloc.start()
        started = time.perf_counter()
        size = len(orjson.dumps(service.check_formats(options, decklist)))
        seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        results[label] = (size, peak)
        print(
            f"{label:>8}: answer {size / 1e6:8.2f} MB   peak Python memory {peak / 1e6:8.1f} MB"
            f"   ({seconds:.2f} s with tracemalloc on)"
        )
    (size0, peak0), (size1, peak1) = results["baseline"], results["now"]
    print(
        f"   ratio: answer {size1 / size0:.4f}   peak memory {peak1 / peak0:.3f}  (now / baseline)"
    )
    service.holder.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
