"""Benchmark: `validator.scale.validate_partition` on a `dask.distributed.LocalCluster` with 1
and 2 worker processes (threads_per_worker=1), decks/s, next to the same decks in-process.

    python bench/bench_dask.py [--decks 20000] [--partitions 16]

Needs `pip install 'deckcheck[dask]'` and the shared data (the full card file's database is
built once and cached, see bench/common.py). Each worker loads the card index once (first
task), which the figures include: a cluster that lives across revalidations pays it once.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import BULK_DECKS, SHARED_DATA, derived_db, render_mtgo_text  # noqa: E402
from perf_worker import load_decks  # noqa: E402

FULL_CARDS = SHARED_DATA / "scryfall" / "oracle-cards-derived-20260822.jsonl.gz"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decks", type=int, default=20000)
    ap.add_argument("--partitions", type=int, default=16)
    ap.add_argument("--db", type=Path)
    args = ap.parse_args()
    if not BULK_DECKS.is_file() or not FULL_CARDS.is_file():
        print(f"shared data not found under {SHARED_DATA}; nothing to measure")
        return 0
    import dask.bag as bag
    from dask.distributed import Client, LocalCluster

    from validator import scale

    db = str(args.db or derived_db(FULL_CARDS))
    rows = [
        {"id": i, "format": fmt, "decklist": render_mtgo_text(d["main"], d["side"])}
        for i, (fmt, d) in enumerate(load_decks(BULK_DECKS, args.decks))
    ]
    print(f"{len(rows)} decks, {args.partitions} partitions, database {db}")
    t0, c0 = time.perf_counter(), time.process_time()
    reference = scale.validate_partition(rows, db)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(
        f"in-process (index load included): {wall:.1f} s, {len(rows) / wall:.0f} decks/s wall, "
        f"{len(rows) / cpu:.0f} decks per CPU-s (load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} CPUs: wall figures depend on what else runs)"
    )
    for workers in (1, 2):
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            ) as cluster,
            Client(cluster) as client,
        ):
            cpu0 = sum(client.run(time.process_time).values())  # workers up, CPU so far
            t0 = time.perf_counter()
            out = (
                bag.from_sequence(rows, npartitions=args.partitions)
                .map_partitions(scale.validate_partition, db)
                .compute()
            )
            wall = time.perf_counter() - t0
            cpu = sum(client.run(time.process_time).values()) - cpu0
            loads = sorted(i["loads"] for i in client.run(scale.cache_info).values())
        same = [r["report"] for r in out] == [r["report"] for r in reference]
        print(
            f"{workers} worker(s): {wall:.1f} s, {len(rows) / wall:.0f} decks/s wall; workers' "
            f"CPU {cpu:.1f} s ({len(rows) / cpu:.0f} decks per CPU-s); index loads "
            f"per worker {loads}; reports identical to in-process: {same}"
        )
        if not same:
            print("FAILED: reports differ")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
