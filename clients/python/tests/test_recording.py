"""Recordings against a real daemon: the rate's grid in simulated time, the three formats
read back independently (h5py, csv, json) and agreeing with each other and with the frames
the session published, time ranges, chosen fields, the size cap (ring and stop), a reset,
and a restart of the daemon."""
import csv
import io
import json
import os
import shutil
import sys
import tempfile
import time
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
import rodd  # noqa: E402
from daemon import Daemon, DaemonTestCase  # noqa: E402

ARM = json.load(open(os.path.join(HERE, "..", "examples", "cable_arm.json")))
try:
    import h5py
except ImportError:  # Debian's python3-h5py; deploy/setup.sh installs it
    h5py = None


def run_to_end(s, timeout=60):
    deadline = time.monotonic() + timeout
    while s.refresh().state == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    return s


@unittest.skipIf(h5py is None, "needs h5py (python3-h5py)")
class Recordings(DaemonTestCase):
    def finished(self, **kw):
        s = self.c.create(spec=ARM, points=5, pace="max", start=True, **kw)
        s.set(cable=0.3)
        return run_to_end(s)

    def test_grid_formats_and_the_published_frame(self):
        s = self.finished(until=0.5, recording={"rate": 20})
        self.assertEqual(s.state, "finished")
        info = s.info["recording"]
        self.assertEqual((info["frames"], info["from"], info["to"], info["state"]), (11, 0, 0.5, "recording"))
        self.assertEqual(info["bytes"], 11 * info["frame_bytes"])
        # every field: 8 bytes x (t + 5 points x (1+3+9+1+1+3+3) + 3 energies + volume change)
        self.assertEqual(info["frame_bytes"], 8 * (1 + 5 * 21 + 3 + 1))
        raw = s.recording("hdf5")
        with h5py.File(io.BytesIO(raw), "r") as h:
            t = h["t"][...]
            np.testing.assert_allclose(t, np.arange(11) / 20, rtol=0, atol=1e-12)  # the grid, whatever the pace
            self.assertEqual(h["position"].shape, (11, 5, 3))
            self.assertEqual(h["rotation"].shape, (11, 5, 3, 3))
            self.assertEqual(h["kappa"].attrs["units"], "1/m")
            self.assertEqual(json.loads(h.attrs["spec"])["actuators"][0]["name"], "cable")
            pos, kin = h["position"][...], h["energy/kinetic"][...]
        # the last recorded frame is the state the session ended in: the published frame
        last = s.frame()
        self.assertEqual(last.t, 0.5)
        np.testing.assert_allclose(pos[-1], last.position, rtol=1e-9, atol=1e-15)
        self.assertAlmostEqual(kin[-1], last.energy["kinetic"], delta=1e-9 * abs(last.energy["kinetic"]) + 1e-300)
        # NDJSON and CSV carry the same numbers to their 10 digits
        lines = [json.loads(x) for x in s.recording("ndjson").splitlines()]
        self.assertEqual(len(lines), 11)
        np.testing.assert_allclose([f["position"] for f in lines], pos, rtol=1e-9, atol=1e-15)
        rows = list(csv.DictReader(io.StringIO(s.recording("csv").decode())))
        self.assertEqual(len(rows), 11 * 5)
        np.testing.assert_allclose([[float(r["x"]), float(r["y"]), float(r["z"])] for r in rows],
                                   pos.reshape(-1, 3), rtol=1e-9, atol=1e-15)
        # the NumPy view
        r = s.recording()
        self.assertEqual(len(r), 11)
        np.testing.assert_array_equal(r.position, pos)
        self.assertEqual(r.units["position"], "m")
        s.delete()

    def test_time_range_and_fields(self):
        s = self.finished(until=0.3, recording={"rate": 20, "fields": ["position", "energy"]})
        r = s.recording(start=0.1, stop=0.2)
        np.testing.assert_allclose(r.t, [0.1, 0.15, 0.2], atol=1e-12)
        self.assertIsNotNone(r.position)
        self.assertIsNotNone(r.energy)
        self.assertIsNone(r.rotation)
        line = json.loads(s.recording("ndjson", start=0.3).splitlines()[0])
        self.assertEqual(sorted(line), ["energy", "position", "t"])
        self.assertEqual(s.recording("ndjson", start=1.0), b"")
        # new fields start afresh
        st = s.configure_recording(fields=["rho"])
        self.assertEqual((st["frames"], st["fields"]), (0, ["rho"]))
        s.delete()

    def test_size_cap_ring_and_stop(self):
        frame_bytes = 8 * (1 + 5 * 3)  # t and position at 5 points
        cap = 64 + 4 * frame_bytes     # room for 4 frames
        ring = self.finished(until=0.5, recording={"rate": 20, "fields": ["position"], "max_bytes": cap})
        info = ring.info["recording"]
        self.assertEqual((info["frames"], info["state"]), (4, "recording"))
        self.assertAlmostEqual(info["from"], 0.35, places=12)  # the newest four: 0.35 .. 0.5
        self.assertAlmostEqual(info["to"], 0.5, places=12)
        np.testing.assert_allclose(ring.recording().t, [0.35, 0.4, 0.45, 0.5], atol=1e-12)
        stop = self.finished(until=0.5, recording={"rate": 20, "fields": ["position"], "max_bytes": cap,
                                                   "when_full": "stop"})
        info = stop.info["recording"]
        self.assertEqual((info["frames"], info["state"], info["from"]), (4, "full", 0))
        self.assertIn("max_bytes", info["error"])
        np.testing.assert_allclose(stop.recording().t, [0, 0.05, 0.1, 0.15], atol=1e-12)
        ring.delete()
        stop.delete()

    def test_bad_options_are_named(self):
        with self.assertRaises(rodd.RoddError) as e:
            self.c.create(spec=ARM, points=2001, recording={"rate": 0, "fields": ["spin"], "when_full": "wrap",
                                                            "max_bytes": 4096})
        paths = sorted(x["path"] for x in e.exception.errors)
        self.assertEqual(paths, ["/recording/fields", "/recording/rate", "/recording/when_full"])
        with self.assertRaises(rodd.RoddError) as e:
            self.c.create(spec=ARM, points=2001, recording={"max_bytes": 4096})
        self.assertEqual([x["path"] for x in e.exception.errors], ["/recording/max_bytes"])
        self.assertIn("fewer than 2 frames", str(e.exception))

    def test_off_and_reset(self):
        s = self.finished(until=0.1, recording=False)
        self.assertEqual((s.info["recording"]["state"], s.info["recording"]["frames"]), ("off", 0))
        s.delete()
        s = self.finished(until=0.2, recording={"rate": 10})
        self.assertEqual(s.info["recording"]["frames"], 3)
        s.reset()
        self.assertEqual((s.info["recording"]["frames"], s.info["recording"]["to"]), (1, 0))  # the new t = 0
        s.advance(by=0.1)
        np.testing.assert_allclose(s.recording().t, [0, 0.1], atol=1e-12)
        s.delete()


@unittest.skipIf(h5py is None, "needs h5py (python3-h5py)")
class RecordingsSurviveRestarts(unittest.TestCase):
    def test_restart(self):
        state = tempfile.mkdtemp(prefix="rodd-py-state-")
        try:
            d = Daemon(state_dir=state)
            try:
                c = rodd.Client(d.url)
                s = c.create(spec=ARM, points=5, pace="max", until=0.3, start=True, recording={"rate": 20})
                run_to_end(s)
                before = s.recording("ndjson")
                sid = s.id
            finally:
                d.stop()
            d = Daemon(state_dir=state)
            try:
                s = rodd.Client(d.url).session(sid)
                self.assertEqual(s.recording("ndjson"), before)
                self.assertEqual(s.info["recording"]["frames"], 7)
                s.delete()
                self.assertFalse(os.path.exists(os.path.join(state, "recordings", sid + ".rec")))
            finally:
                d.stop()
        finally:
            shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
