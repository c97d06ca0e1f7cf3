"""Holds the cable arm's tip at a target x with a PI controller that owns the clock: each
control period it sets the cable's tension, advances the simulation by one period and reads
the tip, in one request (:step, lockstep), so the result does not depend on how fast the
machine is.

    python3 pi_tip_control.py http://127.0.0.1:8080 [--target 0.01] [--seconds 3]"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
import rodd  # noqa: E402


def run(url: str, target: float, seconds: float, dt: float = 0.01, token=None):
    c = rodd.Client(url, token=token)
    spec = json.load(open(os.path.join(os.path.dirname(__file__), "cable_arm.json")))
    s = c.create(spec=spec, points=5, name="PI tip control")
    kp, ki = 40.0, 70.0         # N/m, N/(m s): the arm is about 46 mm/N with a 0.55 s lag
    integral, history = 0.0, []
    try:
        f = s.frame()
        for _ in range(round(seconds / dt)):
            x = f.tip[0]
            error = target - x
            integral += error * dt
            tension = max(0.0, kp * error + ki * integral)  # a cable cannot push
            if tension == 0.0 and error < 0:
                integral -= error * dt                      # no wind-up against the limit
            f = s.step(dt, cable=tension)                   # set, advance and read in one request
            history.append((f.t, x, tension))
    finally:
        s.delete()
    return history


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("url")
    p.add_argument("--target", type=float, default=0.01, help="tip x to hold (m)")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--token")
    a = p.parse_args()
    h = run(a.url, a.target, a.seconds, token=a.token)
    for t, x, u in h[::25]:
        print(f"t = {t:5.2f} s   tip x = {1000 * x:7.3f} mm   tension = {u:6.3f} N")
    print(f"final tip x {1000 * h[-1][1]:.3f} mm for a target of {1000 * a.target:.3f} mm")
