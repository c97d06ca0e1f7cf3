"""Reads rodd run's three export formats back without rodd: the NDJSON with json, the CSV
with csv, the HDF5 with h5py; every number must agree with the NDJSON frames to their 10
significant digits, and the HDF5 file must carry the layout README.md documents.

usage: check_export.py FRAMES.ndjson FRAMES.csv FRAMES.h5 SPEC.json POINTS EVERY"""
import csv
import json
import math
import sys

import h5py
import numpy as np

ndjson_path, csv_path, h5_path, spec_path = sys.argv[1:5]
points, every = int(sys.argv[5]), float(sys.argv[6])
frames = [json.loads(line) for line in open(ndjson_path)]
F, N = len(frames), points
assert F >= 3, F


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300)


# NDJSON: the FRAME of DESIGN.md, one a line, t = k * every
for k, f in enumerate(frames):
    assert close(f["t"], k * every) or f["t"] == 0 == k, (k, f["t"])
    assert len(f["s"]) == N and len(f["position"]) == N and len(f["rotation"][0]) == 9

# CSV: a header, then one row per frame and point in order
rows = list(csv.DictReader(open(csv_path)))
assert len(rows) == F * N, (len(rows), F, N)
columns = ["t", "point", "s", "x", "y", "z"] + [f"r{a}{b}" for a in (1, 2, 3) for b in (1, 2, 3)] + \
    ["rho", "radius", "kappa1", "kappa2", "kappa3", "nu1", "nu2", "nu3",
     "e_kinetic", "e_elastic", "e_gravity", "volume_change"]
assert list(rows[0].keys()) == columns, list(rows[0].keys())
for k, f in enumerate(frames):
    for i in range(N):
        r = rows[k * N + i]
        assert int(r["point"]) == i and float(r["t"]) == f["t"]
        want = [f["s"][i], *f["position"][i], *f["rotation"][i], f["rho"][i], f["radius"][i],
                *f["kappa"][i], *f["nu"][i], f["energy"]["kinetic"], f["energy"]["elastic"],
                f["energy"]["gravity"], f["volume_change"]]
        got = [float(r[c]) for c in columns[2:]]
        assert got == want, (k, i, got, want)  # the same doubles printed the same way

# HDF5: float64 datasets, time-major, units on each, the spec on the root
with h5py.File(h5_path, "r") as h:
    shapes = {"t": (F,), "s": (F, N), "position": (F, N, 3), "rotation": (F, N, 3, 3), "rho": (F, N),
              "radius": (F, N), "kappa": (F, N, 3), "nu": (F, N, 3), "energy/kinetic": (F,),
              "energy/elastic": (F,), "energy/gravity": (F,), "volume_change": (F,)}
    units = {"t": "s", "s": "m", "position": "m", "rotation": "1", "rho": "1", "radius": "m",
             "kappa": "1/m", "nu": "1", "energy/kinetic": "J", "energy/elastic": "J",
             "energy/gravity": "J", "volume_change": "1"}
    for name, shape in shapes.items():
        d = h[name]
        assert d.shape == shape and d.dtype == np.float64, (name, d.shape, d.dtype)
        assert d.attrs["units"] == units[name], (name, d.attrs["units"])
        assert len(d.attrs["description"]) > 10, name
    assert h.attrs["format"] == "rodd frames" and h.attrs["format_version"] == 1
    assert h.attrs["points"] == N
    assert h.attrs["fields"] == "t,s,position,rotation,rho,radius,kappa,nu,energy,volume_change"
    spec = json.loads(h.attrs["spec"])
    given = json.load(open(spec_path))
    assert spec["rod"]["length"] == given["rod"]["length"], spec["rod"]
    assert [a["name"] for a in spec["actuators"]] == [a["name"] for a in given["actuators"]]

    def agree(name, want):
        got = np.asarray(h[name][...]).ravel()
        want = np.asarray(want, dtype=float).ravel()
        assert got.shape == want.shape, (name, got.shape, want.shape)
        bad = [(a, b) for a, b in zip(got, want) if not close(a, b)]
        assert not bad, (name, bad[:3])

    agree("t", [f["t"] for f in frames])
    for field in ["s", "position", "rotation", "rho", "radius", "kappa", "nu"]:
        agree(field, [f[field] for f in frames])  # rotation[k, i, a, b] = R_ab, row-major
    for e in ["kinetic", "elastic", "gravity"]:
        agree("energy/" + e, [f["energy"][e] for f in frames])
    agree("volume_change", [f["volume_change"] for f in frames])
    # float64 kept: the directors are orthonormal to rounding, which float32 (or 10 digits) is not
    R = h["rotation"][...]
    err = np.abs(np.einsum("kiab,kiac->kibc", R, R) - np.eye(3)).max()
    assert err < 1e-12, err
print(f"exports agree: {F} frames x {N} points in NDJSON, CSV and HDF5")
