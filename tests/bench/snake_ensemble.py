#!/usr/bin/env python3
"""make bench-ensemble: the snake's cost measured over perturbed variants instead of one run.

The shipped snake's stick-slip gait is chaotic: a change that moves one rounding moves one 4 s
run's evaluations by up to 10 %, so a solver change judged on one run measures that noise. This
runs 23 variants of api/examples/snake-lateral-undulation.json (gravity -9.785 to -9.83, the
muscles' period 0.98 to 1.02, v_eps 0.9e-4 to 1.1e-4, and one with a grain of gravity along the
body), each to the end of every window, and prints the evaluations, the failed tries and the
Newton matrices each window took summed over the variants, and each variant's forward speed
over its last simulated second (the centre of mass along z, the body's axis at rest). With
--vs OTHER_RODD the same for a second binary, and the ratios.

    python3 tests/bench/snake_ensemble.py [--rodd build/rodd] [--vs OTHER] [--windows 0.05,0.3,0.5,1,2,4]
"""
import argparse
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC = os.path.join(TOP, "api/examples/snake-lateral-undulation.json")


def variants():
    out = [[]]
    out += [["environment.gravity=[%g,0,0]" % g] for g in (-9.79, -9.80, -9.82, -9.83)]
    out += [["actuators.0.period=%g" % p] for p in (0.98, 0.99, 1.01, 1.02)]
    out += [["environment.obstacles.0.friction.threshold_velocity=%g" % v] for v in (9e-5, 1.1e-4)]
    out += [["environment.gravity=[%g,0,0]" % g] for g in (-9.785, -9.795, -9.805, -9.815, -9.825)]
    out += [["actuators.0.period=%g" % p] for p in (0.985, 0.995, 1.005, 1.015)]
    out += [["environment.obstacles.0.friction.threshold_velocity=%g" % v] for v in (9.5e-5, 1.05e-4)]
    out += [["environment.gravity=[-9.81,0,1e-4]"]]
    return out


COUNTS = re.compile(r"(\d+) steps, (\d+) RHS evaluations.*?(\d+) Jacobians, (\d+) error-test failures")


def centre_z(frame):
    s, z = frame["s"], [p[2] for p in frame["position"]]
    return sum(0.5 * (z[i] + z[i + 1]) * (s[i + 1] - s[i]) for i in range(len(s) - 1)) / (s[-1] - s[0])


def run(rodd, sets, until, speed):
    args = [rodd, "run", SPEC, "--until", repr(until), "--every", repr(1.0 if speed else until)]
    if speed:
        args += ["--points", "101"]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, capture_output=True, text=True)
    m = COUNTS.search(p.stderr)
    if p.returncode != 0 or not m:
        sys.exit("%s %s: exit %d\n%s" % (rodd, " ".join(sets), p.returncode, p.stderr[-2000:]))
    counts = tuple(int(m.group(i)) for i in (2, 4, 3))  # evaluations, failed tries, matrices
    v = None
    if speed:
        frames = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
        v = centre_z(frames[-1]) - centre_z(frames[-2])
    return counts, v


def measure(rodd, windows, jobs):
    vs = variants()
    tasks = [(sets, t, t == windows[-1]) for sets in vs for t in windows]
    with ThreadPoolExecutor(jobs) as ex:
        results = list(ex.map(lambda a: run(rodd, *a), tasks))
    sums = [[0, 0, 0] for _ in windows]
    speeds = []
    for i in range(len(vs)):
        prev = (0, 0, 0)
        for k in range(len(windows)):
            counts, v = results[i * len(windows) + k]
            for c in range(3):
                sums[k][c] += counts[c] - prev[c]
            prev = counts
            if v is not None:
                speeds.append(v)
    return sums, speeds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rodd", default=os.path.join(TOP, "build/rodd"))
    ap.add_argument("--vs", help="a second rodd to compare against")
    ap.add_argument("--windows", default="0.05,0.3,0.5,1,2,4")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    windows = [float(x) for x in a.windows.split(",")]
    names = ["%g-%g s" % (windows[k - 1] if k else 0, windows[k]) for k in range(len(windows))]
    runs = [(a.rodd, measure(a.rodd, windows, a.jobs))]
    if a.vs:
        runs.append((a.vs, measure(a.vs, windows, a.jobs)))
    for rodd, (sums, speeds) in runs:
        print("%s, %d variants:" % (rodd, len(variants())))
        print("  %-12s %12s %12s %12s" % ("window", "evaluations", "failed tries", "matrices"))
        for k, n in enumerate(names):
            print("  %-12s %12d %12d %12d" % (n, *sums[k]))
        print("  %-12s %12d %12d %12d" % ("total", *(sum(s[c] for s in sums) for c in range(3))))
        print("  forward speed over the last second, L/T: min %.5f, max %.5f" % (min(speeds), max(speeds)))
    if a.vs:
        (_, (sa, va)), (_, (sb, vb)) = runs
        print("ratios (first / second), evaluations by window:",
              " ".join("%s %.3f" % (n, sa[k][0] / sb[k][0]) for k, n in enumerate(names) if sb[k][0]))
        worst = max(abs(x / y - 1) for x, y in zip(va, vb))
        print("forward speeds: the largest relative difference between the two, variant by variant, %.2e" % worst)


if __name__ == "__main__":
    main()
