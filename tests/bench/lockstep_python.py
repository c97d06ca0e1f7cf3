"""The Python lane of make bench-lockstep: Session.step with by = 0.01 s on the reaching arm,
STEPS times, through the Python client; prints one JSON line.
    python3 tests/bench/lockstep_python.py URL STEPS"""
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python" / "src"))
import rodd  # noqa: E402

url, steps = sys.argv[1], int(sys.argv[2])
s = rodd.Client(url).create(example="octopus-reaching", recording=False)
s.advance(by=0.05)
ms = []
for k in range(steps):
    t0 = time.perf_counter()
    s.step(0.01, TM=700 + 100 * math.sin(k / 10))
    ms.append(1000 * (time.perf_counter() - t0))
s.delete()
ms.sort()
pick = lambda p: ms[min(steps - 1, int(p * steps))]  # noqa: E731
print(json.dumps({"way": "python Session.step", "steps": steps, "round_trip_p50_ms": round(pick(0.5), 2),
                  "round_trip_p90_ms": round(pick(0.9), 2)}))
