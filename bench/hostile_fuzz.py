"""The hostile-tree fuzzer's long run: many generated hostile repositories (tests/testkit/hostile.py),
every read-only command of the registry as a real CLI process on each, and a table of what it saw.

    python bench/hostile_fuzz.py --examples 200

The test suite runs the same trees a few at a time (tests/security/test_hostile_tree_fuzz.py,
`LW_FUZZ_EXAMPLES`); this run prints, per command, the slowest answer and the highest peak memory over
all trees, and every failure (a marker file, the canary in an answer, an internal error, past 5 s
or 300 MB) with the plants that caused it. Exit 1 if anything failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from testkit import hostile  # noqa: E402

command_lines = hostile.command_lines


def problems(code: int, out: str, err: str, seconds: float, rss_kib: int) -> list[str]:
    found = []
    if code == -9 or seconds >= hostile.SECONDS:
        found.append(f"{seconds:.1f} s")
    if rss_kib >= hostile.PEAK_MIB * 1024:
        found.append(f"{rss_kib // 1024} MB")
    if hostile.CANARY in out or hostile.CANARY in err:
        found.append("canary in the answer")
    if "Traceback" in err or "internal_error" in err or "internal_error" in out:
        found.append("internal error")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=100, help="generated trees (default 100)")
    args = parser.parse_args()
    worst: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])  # seconds, MB, runs
    failures: list[str] = []
    trees = [0]
    began = time.monotonic()

    @settings(max_examples=args.examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(planted=hostile.plants())
    def one_tree(planted):
        trees[0] += 1
        with tempfile.TemporaryDirectory(prefix="lw-fuzz-") as tmp:
            base = Path(tmp)
            root, marks = hostile.build(base, planted)
            env = hostile.environment(base)
            for line in command_lines():
                label = " ".join(line)
                code, out, err, seconds, rss_kib = hostile.run_measured(line, root, env)
                row = worst[label]
                row[0], row[1], row[2] = max(row[0], seconds), max(row[1], rss_kib / 1024), row[2] + 1
                failures.extend(f"{label}: {p} on {[str(x) for x in planted]}"
                                for p in problems(code, out, err, seconds, rss_kib))
                ran = sorted(marks.rglob(f"{hostile.MARK}*"))
                if ran:
                    failures.append(f"{label}: ran {[p.name for p in ran]} on {[str(x) for x in planted]}")
                    for p in ran:
                        p.unlink()
            try:
                hostile.files_hold_no_canary(root, base / "cache", base / "config")
            except AssertionError as exc:
                failures.append(f"{exc} on {[str(x) for x in planted]}")

    one_tree()
    print(f"{trees[0]} generated trees, {sum(r[2] for r in worst.values())} command runs, "
          f"{time.monotonic() - began:.0f} s\n")
    print(f"{'command':<24} {'runs':>5} {'slowest s':>10} {'peak MB':>8}")
    for label, (seconds, mib, runs) in sorted(worst.items(), key=lambda kv: -kv[1][0]):
        print(f"{label:<24} {runs:>5} {seconds:>10.2f} {mib:>8.0f}")
    print(f"\nlimits: {hostile.SECONDS:g} s, {hostile.PEAK_MIB} MB; failures: {len(failures)}")
    for line in failures[:50]:
        print("  " + line)
    print(json.dumps({"trees": trees[0], "failures": len(failures)}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
