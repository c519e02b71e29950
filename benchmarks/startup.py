"""Whole-process time of the commands that answer at the speed of their imports (docs/architecture.md,
performance): `pypto --version` and `pypto compile examples/basic.py`, next to a Python that imports what
pypto cannot do without, `python -c "import numpy, pydantic, pluggy"`.

Each round runs the baseline and every command once, in turns, so that a busy spell on a shared machine
hits them alike; the medians of the rounds are compared (wall time, as a user waits; the CPU time of the
child processes beside it). Targets: `pypto compile examples/basic.py` <= 2.5x the baseline, `pypto --version`
<= 1.5x. One JSON line per command and round.

    python benchmarks/startup.py [--rounds N]

Run it with bytecode caching on (unset PYTHONDONTWRITEBYTECODE): otherwise every pypto module is compiled
from source in every process, which is most of what is measured (the baseline's modules are precompiled).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from targets import Target, report

ROOT = Path(__file__).resolve().parents[1]


def commands() -> dict[str, list[str]]:
    pypto = shutil.which("pypto", path=str(Path(sys.executable).parent)) or "pypto"
    return {
        "baseline": [sys.executable, "-c", "import numpy, pydantic, pluggy"],
        "version": [pypto, "--version"],
        "compile": [pypto, "compile", str(ROOT / "examples" / "basic.py")],
    }


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("note: PYTHONDONTWRITEBYTECODE is set: pypto's modules are compiled from source in every process")
    cmds = commands()
    for argv in cmds.values():  # warm the bytecode caches and the file system
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, check=True)
    wall: dict[str, list[float]] = {name: [] for name in cmds}
    cpu: dict[str, list[float]] = {name: [] for name in cmds}
    for round_ in range(args.rounds):
        for name, argv in cmds.items():
            before = children_cpu()
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, check=True)
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(children_cpu() - before)
            print(json.dumps({"bench": "startup", "kind": "run", "command": name, "round": round_,
                              "wall": round(wall[name][-1], 4), "cpu": round(cpu[name][-1], 4)}))
    base_wall, base_cpu = statistics.median(wall["baseline"]), statistics.median(cpu["baseline"])
    print(f"\nmedians of {args.rounds} rounds taken in turns")
    print(f"  {'command':<10} {'wall ms':>8} {'/ base':>7} {'cpu ms':>8} {'/ base':>7}   {' '.join(cmds['baseline'][1:])}")
    for name in cmds:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        print(f"  {name:<10} {w * 1e3:8.1f} {w / base_wall:6.2f}x {c * 1e3:8.1f} {c / base_cpu:6.2f}x")
    report("startup", [
        Target("pypto compile examples/basic.py / baseline (wall medians)",
               statistics.median(wall["compile"]) / base_wall, 2.5),
        Target("pypto --version / baseline (wall medians)", statistics.median(wall["version"]) / base_wall, 1.5),
    ])


if __name__ == "__main__":
    main()
