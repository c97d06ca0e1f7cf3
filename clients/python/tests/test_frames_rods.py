"""Frames and recordings of a model of several rods (issue 29), without a daemon: the JSON
FRAME with "rods" and the binary stream's version 2, built here as server/io/frame_codec.c
writes them, read into Frame.rods / frame.rod(name) and Recording.rods."""
import json
import os
import struct
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
import rodd  # noqa: E402
from rodd.frames import Frame, FrameFormatError, decode_binary  # noqa: E402
from daemon import DaemonTestCase  # noqa: E402

TWO_RODS = json.load(open(os.path.join(HERE, "..", "..", "..", "tests", "cli", "rods.json")))
TWO_RODS.pop("duration")


def rod_json(name, i, n, t):
    return {"name": name, "s": [k / 10 for k in range(n)], "position": [[i, k, 0.5 * t] for k in range(n)],
            "rotation": [[1, 0, 0, 0, 1, 0, 0, 0, 1]] * n, "rho": [1 + i / 10] * n,
            "radius": [0.01] * n, "kappa": [[0, 0, 0]] * n, "nu": [[0, 0, 1]] * n}


def frame_json(t, contacts=True):
    d = {"t": t, "rods": [rod_json("arm1", 0, 3, t), rod_json("arm2", 1, 4, t)],
         "energy": {"kinetic": 1.5, "elastic": 0.25, "gravity": -2}, "volume_change": 0,
         "bodies": {"hub": {"position": [0, 0, -0.1]}},
         "constraints": {"arm2.base": {"force": [3, 0, 0], "moment": [0, -0.5, 0], "point": [0, 0, 0],
                                       "target": [0, 0, 0], "violation": 1e-9}}}
    if contacts:
        d["contacts"] = [{"rod": "arm2", "s": 0.1, "point": [1, 1, 0], "force": [-1, 0, 0]}]
    return d


def binary_v2(seq, t, rods, mask, energy):
    """rods: [(name, points, {field: flat array})]"""
    out = bytearray(struct.pack("<4sHHQdII", b"RODF", 2, 32, seq, t, len(rods), mask))
    order = ("s", "position", "rotation", "rho", "radius", "kappa", "nu")
    for name, n, fields in rods:
        raw = name.encode()
        out += struct.pack("<II", n, len(raw)) + raw + b"\0" * ((4 - len(raw) % 4) % 4)
        for bit, key in enumerate(order):
            if mask & (1 << bit):
                out += np.asarray(fields[key], dtype="<f4").tobytes()
    if mask & (1 << 7):
        out += np.asarray(energy, dtype="<f4").tobytes()
    if mask & (1 << 8):
        out += np.asarray([0.0], dtype="<f4").tobytes()
    return bytes(out)


class FramesOfSeveralRods(unittest.TestCase):
    def test_json_frame_has_its_rods_by_name(self):
        f = Frame.from_json(frame_json(0.5))
        self.assertEqual([r.name for r in f.rods], ["arm1", "arm2"])
        self.assertIsNone(f.position)
        a2 = f.rod("arm2")
        self.assertEqual(a2.position.shape, (4, 3))
        self.assertEqual(a2.rotation.shape, (4, 3, 3))
        np.testing.assert_array_equal(a2.tip, [1, 3, 0.25])
        self.assertEqual(a2.t, 0.5)
        self.assertNotIn("name", a2.extra)
        self.assertNotIn("rods", f.extra)
        self.assertEqual(f.extra["constraints"]["arm2.base"]["force"], [3, 0, 0])
        self.assertEqual(f.energy["gravity"], -2)
        with self.assertRaises(KeyError) as e:
            f.rod("arm3")
        self.assertIn("arm1, arm2", str(e.exception))
        with self.assertRaises(ValueError):
            f.tip

    def test_one_rod_frames_are_as_before(self):
        f = Frame.from_json({"t": 0, "position": [[0, 0, 0], [0, 0, 1]]})
        self.assertIsNone(f.rods)
        np.testing.assert_array_equal(f.tip, [0, 0, 1])

    def test_binary_version_2(self):
        pos1 = np.arange(9.0).reshape(3, 3)
        pos2 = np.arange(12.0).reshape(4, 3) / 8
        mask = (1 << 1) | (1 << 3) | (1 << 7) | (1 << 8)
        msg = binary_v2(5, 0.25, [("arm1", 3, {"position": pos1.ravel(), "rho": [1, 1, 1]}),
                                   ("a2", 4, {"position": pos2.ravel(), "rho": [2, 2, 2, 2]})], mask, [1.5, 0.25, -2])
        f = decode_binary(msg)
        self.assertEqual(f.seq, 5)
        self.assertEqual([r.name for r in f.rods], ["arm1", "a2"])
        np.testing.assert_array_equal(f.rod("arm1").position, pos1)
        np.testing.assert_array_equal(f.rod("a2").position, pos2)
        np.testing.assert_array_equal(f.rod("a2").rho, [2, 2, 2, 2])
        self.assertIsNone(f.rod("a2").kappa)
        self.assertEqual(f.energy, {"kinetic": 1.5, "elastic": 0.25, "gravity": -2.0})
        self.assertEqual(f.volume_change, 0.0)
        with self.assertRaises(FrameFormatError):
            decode_binary(msg[:-4])
        with self.assertRaises(FrameFormatError):
            decode_binary(msg + b"\0\0\0\0")

    def test_ndjson_recording_has_rods(self):
        raw = "\n".join(json.dumps(frame_json(t)) for t in (0, 0.5, 1)).encode()
        r = rodd.Recording.from_ndjson(raw)
        self.assertEqual(list(r.rods), ["arm1", "arm2"])
        self.assertIsNone(r.position)
        self.assertEqual(r.rod("arm2").position.shape, (3, 4, 3))
        np.testing.assert_array_equal(r.rod("arm2").position[:, -1, 2], [0, 0.25, 0.5])
        np.testing.assert_array_equal(r.contacts["rod"], ["arm2"] * 3)
        np.testing.assert_array_equal(r.constraints["arm2.base"]["force"][:, 0], [3, 3, 3])
        with self.assertRaises(KeyError):
            r.rod("arm9")


class SeveralRodsAgainstTheDaemon(DaemonTestCase):
    def test_rest_json_and_binary_stream_frames_hold_the_rods(self):
        s = self.c.create(spec=TWO_RODS, points=5)
        s.advance(by=0.01)
        want = s.frame()
        self.assertEqual([r.name for r in want.rods], ["upper", "lower"])
        np.testing.assert_allclose(want.rod("upper").tip, want.rod("lower").position[0], atol=1e-6)
        self.assertIn("lower.base", want.extra["constraints"])
        with s.stream(binary=True) as st:
            got = next(iter(st))
        self.assertEqual([r.name for r in got.rods], ["upper", "lower"])
        for name in ("upper", "lower"):
            a, b = got.rod(name).position, want.rod(name).position
            np.testing.assert_allclose(a, b, rtol=0, atol=2 ** -24 * max(1e-30, np.abs(b).max()) * 1.01)
        with s.stream(binary=False, fields=["rho"]) as st:
            j = next(iter(st))
        self.assertIsNone(j.rod("lower").position)
        self.assertEqual(len(j.rod("lower").rho), 5)
        s.delete()


if __name__ == "__main__":
    unittest.main()
