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
        # pandas: the CSV's long form as a DataFrame, one row per frame and point
        try:
            import pandas  # noqa: F401
        except ImportError:
            pass  # deploy/setup.sh installs python3-pandas: CI runs this
        else:
            df = s.recording("pandas")
            self.assertEqual(len(df), 11 * 5)
            np.testing.assert_allclose(df[["x", "y", "z"]].to_numpy(), pos.reshape(-1, 3), rtol=1e-9, atol=1e-15)
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


MECHANICS = {  # example: (until, rate, what its frames carry)
    "shaken-rod-with-payload": (0.3, 20, {"base", "bodies"}),
    "free-floating": (0.3, 20, {"base", "bodies"}),
    "euler-column": (0.3, 20, {"constraints"}),
    "octopus-grasp": (1.5, 10, {"contacts"}),  # three contacts, then two, then none
}


def mechanics_of(d):
    """The mechanics of a JSON FRAME flattened to (name, values) pairs, in a fixed order."""
    out = []
    if "base" in d:
        out += [("base.position", d["base"]["position"]), ("base.rotation", d["base"]["rotation"])]
    for n, b in d.get("bodies", {}).items():
        out.append((f"bodies.{n}.position", b["position"]))
    for n, c in d.get("constraints", {}).items():
        out += [(f"constraints.{n}.{k}", v) for k, v in c.items()]
    return out


@unittest.skipIf(h5py is None, "needs h5py (python3-h5py)")
class RecordingsCarryMechanics(DaemonTestCase):
    """A moving or free base, bodies, constraints and contacts in every format of a recording,
    agreeing with the NDJSON (the FRAMEs as published) and with the session's last frame."""

    def finished(self, example, points=5, **recording):
        until, rate, _ = MECHANICS[example]
        s = self.c.create(example=example, points=points, pace="max", until=until, start=True,
                          recording={"rate": rate, **recording})
        return run_to_end(s, timeout=120)

    def test_every_format_carries_the_mechanics(self):
        for example, (until, rate, carries) in MECHANICS.items():
            with self.subTest(example=example):
                s = self.finished(example)
                self.assertEqual(s.state, "finished")
                lines = [json.loads(x) for x in s.recording("ndjson").splitlines()]
                self.assertEqual(len(lines), round(until * rate) + 1)
                for key in ("base", "bodies", "constraints", "contacts"):
                    self.assertEqual(all(key in d for d in lines), key in carries, key)
                # the last recorded frame is the published one, mechanics and all
                last = s.frame()
                for (name, want), (_, got) in zip(mechanics_of(last.extra), mechanics_of(lines[-1])):
                    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-15, err_msg=name)
                if "contacts" in carries:
                    self.assertEqual(len(lines[-1]["contacts"]), len(last.extra["contacts"]))
                # HDF5 (every bit) and NDJSON (10 digits) read into the same Recording
                h5, nd = s.recording(), rodd.Recording.from_ndjson(s.recording("ndjson"))
                for key in ("base", "bodies", "constraints", "contacts"):
                    a, b = getattr(h5, key), getattr(nd, key)
                    self.assertEqual(a is None, key not in carries, key)
                    if a is None:
                        continue
                    flat_a = {f"{k}.{j}" if isinstance(v, dict) else k: w
                              for k, v in a.items() for j, w in (v.items() if isinstance(v, dict) else [(None, v)])}
                    flat_b = {f"{k}.{j}" if isinstance(v, dict) else k: w
                              for k, v in b.items() for j, w in (v.items() if isinstance(v, dict) else [(None, v)])}
                    self.assertEqual(sorted(flat_a), sorted(flat_b), key)
                    for name in flat_a:
                        self.assertEqual(flat_a[name].shape, flat_b[name].shape, name)
                        np.testing.assert_allclose(flat_a[name], flat_b[name], rtol=1e-9, atol=1e-15, err_msg=name)
                if h5.base is not None:
                    self.assertEqual(h5.base["rotation"].shape, (len(h5), 3, 3))
                    self.assertEqual(h5.units["base/position"], "m")
                for n, c in (h5.constraints or {}).items():
                    self.assertEqual(h5.units[f"constraints/{n}/force"], "N")
                    self.assertEqual(c["force"].shape, (len(h5), 3))
                # CSV: the mechanics on every row, a row per contact after each frame's points
                rows = list(csv.DictReader(io.StringIO(s.recording("csv").decode())))
                points_rows = [r for r in rows if r["point"] != ""]
                self.assertEqual(len(points_rows), 5 * len(lines))
                self.assertEqual(len(rows) - len(points_rows), sum(len(d.get("contacts", [])) for d in lines))
                for name, want in mechanics_of(lines[-1]):
                    cols = [c for c in rows[0] if c.startswith(name.replace(".position", "."))]
                    if name.endswith((".violation", ".pressure")):
                        cols = [name]
                    elif name.startswith("constraints."):
                        cols = [c for c in rows[0] if c.startswith(name + "_")]
                    elif name == "base.position":
                        cols = ["base.x", "base.y", "base.z"]
                    elif name == "base.rotation":
                        cols = [f"base.r{a}{b}" for a in (1, 2, 3) for b in (1, 2, 3)]
                    got = [float(rows[-1 - sum(len(d.get("contacts", [])) for d in lines[-1:])][c]) for c in cols]
                    np.testing.assert_allclose(got, np.ravel(want), rtol=1e-9, atol=1e-15, err_msg=name)
                s.delete()

    def test_contacts_come_and_go(self):
        s = self.finished("octopus-grasp")
        r = s.recording()
        counts = list(r.contacts["count"])
        self.assertIn(0, counts)
        self.assertGreater(max(counts), 1)
        self.assertEqual(len(r.contacts["frame"]), sum(counts))
        lines = [json.loads(x) for x in s.recording("ndjson").splitlines()]
        for k, d in enumerate(lines):
            at = r.contacts_at(k)
            self.assertEqual(len(at["s"]), len(d["contacts"]))
            np.testing.assert_allclose(at["force"], np.reshape([c["force"] for c in d["contacts"]], (-1, 3)),
                                       rtol=1e-9, atol=1e-15)
        # a time range keeps each frame's own contacts
        part = s.recording(start=0.5, stop=1.0)
        k0 = int(np.argmin(np.abs(r.t - 0.5)))
        np.testing.assert_array_equal(part.contacts["count"], r.contacts["count"][k0:k0 + len(part)])
        np.testing.assert_array_equal(part.contacts["s"], r.contacts["s"][r.contacts["frame"] >= k0][:len(part.contacts["s"])])
        # a reset drops the frames after t = 0, contacts and all; recording goes on from there
        s.reset()
        self.assertEqual(s.info["recording"]["frames"], 1)
        s.advance(by=0.2)
        again = s.recording()
        np.testing.assert_allclose(again.t, [0, 0.1, 0.2], atol=1e-12)
        np.testing.assert_array_equal(again.contacts["count"], r.contacts["count"][:3])
        np.testing.assert_allclose(again.contacts["point"], r.contacts["point"][:sum(counts[:3])], rtol=1e-9, atol=1e-15)
        s.delete()

    def advanced(self, example, **recording):
        """Run by :advance, in one synchronous call: the same pieces whatever the machine's
        load, so two such sessions of one spec give the same frames to the bit."""
        until, rate, _ = MECHANICS[example]
        s = self.c.create(example=example, points=5, recording={"rate": rate, **recording})
        s.advance(by=until)
        return s.refresh()

    def test_a_ring_of_frames_with_contacts(self):
        full = self.advanced("octopus-grasp")
        slot = full.info["recording"]["frame_bytes"]
        # t + 5 points x 21 + energies and volume + the contact count; a frame with contacts
        # takes one more slot (7 values each, 111 to a slot)
        self.assertEqual(slot, 8 * (1 + 5 * 21 + 4 + 1))
        ring = self.advanced("octopus-grasp", max_bytes=64 + 9 * slot)
        info = ring.info["recording"]
        self.assertEqual(info["state"], "recording")
        self.assertLessEqual(info["bytes"], 9 * slot)
        whole, tail = full.recording(), ring.recording()
        self.assertEqual(len(tail), info["frames"])
        self.assertGreater(len(tail), 4)
        k0 = len(whole) - len(tail)
        np.testing.assert_allclose(tail.t, whole.t[k0:], atol=1e-12)  # the newest frames, whole
        np.testing.assert_array_equal(tail.contacts["count"], whole.contacts["count"][k0:])
        np.testing.assert_array_equal(tail.contacts["force"], whole.contacts["force"][whole.contacts["frame"] >= k0])
        # a frame bigger than the whole file is an error, not a silent gap
        with self.assertRaises(rodd.RoddError) as e:
            self.c.create(example="octopus-grasp", points=5, recording={"max_bytes": 64 + slot})
        self.assertEqual([x["path"] for x in e.exception.errors], ["/recording/max_bytes"])
        full.delete()
        ring.delete()


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
                # frames of several slots (contacts) are found again by walking the file
                g = c.create(example="octopus-grasp", points=5, pace="max", until=1.5, start=True,
                             recording={"rate": 10})
                run_to_end(g, timeout=120)
                grasp = (g.id, g.recording("ndjson"), g.info["recording"]["frames"])
            finally:
                d.stop()
            d = Daemon(state_dir=state)
            try:
                s = rodd.Client(d.url).session(sid)
                self.assertEqual(s.recording("ndjson"), before)
                self.assertEqual(s.info["recording"]["frames"], 7)
                s.delete()
                g = rodd.Client(d.url).session(grasp[0])
                self.assertEqual((g.recording("ndjson"), g.info["recording"]["frames"]), grasp[1:])
                g.delete()
                self.assertFalse(os.path.exists(os.path.join(state, "recordings", sid + ".rec")))
            finally:
                d.stop()
        finally:
            shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
