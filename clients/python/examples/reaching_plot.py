"""The octopus arm's reach (the paper's Sec. 5.2, api/examples/octopus-reaching.json) run on a
daemon, its recording saved as NumPy arrays (reaching.npz: t, the centreline, the tip, the
volume change) and, when matplotlib is installed, plotted (reaching.png: the tip's path and the
arm every 0.5 s).

    python3 reaching_plot.py http://127.0.0.1:8080 [--out DIR]"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
import rodd  # noqa: E402


def run(url: str, out: str, seconds: float = 3.5, token=None):
    import numpy as np

    c = rodd.Client(url, token=token)
    s = c.create(example="octopus-reaching", name="reaching, saved and plotted")
    try:
        s.advance(until=seconds)          # synchronous: the whole reach, however fast the machine
        rec = s.recording(format="numpy")
    finally:
        s.delete()
    tip = rec.position[:, -1, :]
    path = os.path.join(out, "reaching.npz")
    np.savez(path, t=rec.t, position=rec.position, tip=tip, volume_change=rec.volume_change)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return path, None
    fig, ax = plt.subplots(figsize=(5, 6))
    for k in range(0, len(rec.t), max(1, round(0.5 / (rec.t[1] - rec.t[0])))):
        ax.plot(100 * rec.position[k, :, 0], 100 * rec.position[k, :, 2], color="0.7", lw=1)
    ax.plot(100 * tip[:, 0], 100 * tip[:, 2], label="tip")
    ax.set_xlabel("x (cm)")
    ax.set_ylabel("z (cm)")
    ax.set_aspect("equal")
    ax.legend()
    png = os.path.join(out, "reaching.png")
    fig.savefig(png, dpi=120)
    return path, png


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("url")
    p.add_argument("--out", default=".")
    p.add_argument("--token")
    a = p.parse_args()
    npz, png = run(a.url, a.out, token=a.token)
    print(f"saved {npz}" + (f" and {png}" if png else " (install matplotlib for the plot)"))
