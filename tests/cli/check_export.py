"""Reads rodd run's three export formats back without rodd: the NDJSON with json, the CSV
with csv, the HDF5 with h5py; every number must agree with the NDJSON frames to their 10
significant digits, and the HDF5 file must carry the layout README.md documents, the
mechanics included: a moving base's pose, the bodies, the constraints' reactions and the
contacts (a table with a row per contact, its frame and each frame's count).

usage: check_export.py FRAMES.ndjson FRAMES.csv FRAMES.h5 SPEC.json POINTS EVERY [EXPECT]
EXPECT: the mechanics the spec's frames must carry, comma-separated (base, bodies,
constraints, contacts, varying-contacts: the number of contacts changes over the run)."""
import csv
import json
import math
import sys

import h5py
import numpy as np

ndjson_path, csv_path, h5_path, spec_path = sys.argv[1:5]
points, every = int(sys.argv[5]), float(sys.argv[6])
expect = set(filter(None, (sys.argv[7] if len(sys.argv) > 7 else "").split(",")))
frames = [json.loads(line) for line in open(ndjson_path)]
F, N = len(frames), points
assert F >= 3, F
MECH = ("base", "bodies", "constraints", "contacts")
f0 = frames[0]
for key in MECH:
    assert (key in f0) == (key in expect), (key, sorted(f0), expect)
    assert all((key in f) == (key in f0) for f in frames), key  # a model's frames all have the same shape
counts = [len(f.get("contacts", [])) for f in frames]
if "varying-contacts" in expect:
    assert len(set(counts)) > 1 and 0 in counts, counts  # the table must cope with frames of none


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300)


# NDJSON: the FRAME of DESIGN.md, one a line, t = k * every
for k, f in enumerate(frames):
    assert close(f["t"], k * every) or f["t"] == 0 == k, (k, f["t"])
    assert len(f["s"]) == N and len(f["position"]) == N and len(f["rotation"][0]) == 9

# ---- the mechanics of a frame, flattened in the CSV's column order ----
XYZ = "xyz"


def mech_columns(f):
    cols = []
    if "base" in f:
        cols += [f"base.{a}" for a in XYZ] + [f"base.r{a}{b}" for a in (1, 2, 3) for b in (1, 2, 3)]
    for name in f.get("bodies", {}):
        cols += [f"bodies.{name}.{a}" for a in XYZ]
    for name, c in f.get("constraints", {}).items():
        if "pressure" in c:
            cols.append(f"constraints.{name}.pressure")
        else:
            cols += [f"constraints.{name}.{v}_{a}" for v in ("force", "moment", "point", "target") for a in XYZ]
        cols.append(f"constraints.{name}.violation")
    return cols


def mech_values(f):
    vals = []
    if "base" in f:
        vals += f["base"]["position"] + f["base"]["rotation"]
    for b in f.get("bodies", {}).values():
        vals += b["position"]
    for c in f.get("constraints", {}).values():
        if "pressure" in c:
            vals.append(c["pressure"])
        else:
            vals += c["force"] + c["moment"] + c["point"] + c["target"]
        vals.append(c["violation"])
    return vals


CONTACT_COLUMNS = ["contact", "contacts.s", "contacts.x", "contacts.y", "contacts.z",
                   "contacts.force_x", "contacts.force_y", "contacts.force_z"]

# CSV: a header, then per frame one row per point in order and one per contact after them
rows = list(csv.DictReader(open(csv_path)))
assert len(rows) == F * N + sum(counts), (len(rows), F, N, sum(counts))
columns = ["t", "point", "s", "x", "y", "z"] + [f"r{a}{b}" for a in (1, 2, 3) for b in (1, 2, 3)] + \
    ["rho", "radius", "kappa1", "kappa2", "kappa3", "nu1", "nu2", "nu3",
     "e_kinetic", "e_elastic", "e_gravity", "volume_change"]
per_point = columns[2:-4]
frame_columns = columns[-4:] + mech_columns(f0)
columns = columns + mech_columns(f0) + (CONTACT_COLUMNS if "contacts" in f0 else [])
assert list(rows[0].keys()) == columns, list(rows[0].keys())
at = 0
for k, f in enumerate(frames):
    own = [f["energy"]["kinetic"], f["energy"]["elastic"], f["energy"]["gravity"], f["volume_change"]] + mech_values(f)
    for i in range(N):
        r = rows[at]
        at += 1
        assert int(r["point"]) == i and float(r["t"]) == f["t"]
        want = [f["s"][i], *f["position"][i], *f["rotation"][i], f["rho"][i], f["radius"][i],
                *f["kappa"][i], *f["nu"][i]] + own
        got = [float(r[c]) for c in per_point + frame_columns]
        assert got == want, (k, i, got, want)  # the same doubles printed the same way
        assert all(r[c] == "" for c in CONTACT_COLUMNS if c in r), (k, i)
    for j, c in enumerate(f.get("contacts", [])):
        r = rows[at]
        at += 1
        assert r["point"] == "" and all(r[x] == "" for x in per_point), (k, j)
        assert float(r["t"]) == f["t"] and int(r["contact"]) == j, (k, j, r["t"], r["contact"])
        assert [float(r[x]) for x in frame_columns] == own, (k, j)
        assert [float(r[x]) for x in CONTACT_COLUMNS[1:]] == [c["s"], *c["point"], *c["force"]], (k, j)
assert at == len(rows)

# HDF5: float64 datasets, time-major, units on each, the spec on the root
with h5py.File(h5_path, "r") as h:
    shapes = {"t": (F,), "s": (F, N), "position": (F, N, 3), "rotation": (F, N, 3, 3), "rho": (F, N),
              "radius": (F, N), "kappa": (F, N, 3), "nu": (F, N, 3), "energy/kinetic": (F,),
              "energy/elastic": (F,), "energy/gravity": (F,), "volume_change": (F,)}
    units = {"t": "s", "s": "m", "position": "m", "rotation": "1", "rho": "1", "radius": "m",
             "kappa": "1/m", "nu": "1", "energy/kinetic": "J", "energy/elastic": "J",
             "energy/gravity": "J", "volume_change": "1"}
    M = sum(counts)
    if "base" in f0:
        shapes.update({"base/position": (F, 3), "base/rotation": (F, 3, 3)})
        units.update({"base/position": "m", "base/rotation": "1"})
    for name in f0.get("bodies", {}):
        shapes[f"bodies/{name}/position"] = (F, 3)
        units[f"bodies/{name}/position"] = "m"
    for name, c in f0.get("constraints", {}).items():
        g = f"constraints/{name}"
        if "pressure" in c:
            shapes.update({g + "/pressure": (F,), g + "/violation": (F,)})
            units.update({g + "/pressure": "Pa", g + "/violation": "1"})
        else:
            for v, u in (("force", "N"), ("moment", "N m"), ("point", "m"), ("target", "m")):
                shapes[f"{g}/{v}"] = (F, 3)
                units[f"{g}/{v}"] = u
            shapes[g + "/violation"] = (F,)
            units[g + "/violation"] = "m or rad"
        assert h[g].attrs["kind"] == ("volume" if "pressure" in c else "pose"), g
    if "contacts" in f0:
        shapes.update({"contacts/count": (F,), "contacts/frame": (M,), "contacts/s": (M,),
                       "contacts/point": (M, 3), "contacts/force": (M, 3)})
        units.update({"contacts/count": "1", "contacts/frame": "1", "contacts/s": "m",
                      "contacts/point": "m", "contacts/force": "N"})
    integer = {"contacts/count", "contacts/frame"}
    for name, shape in shapes.items():
        d = h[name]
        want_type = np.int64 if name in integer else np.float64
        assert d.shape == shape and d.dtype == want_type, (name, d.shape, d.dtype)
        assert d.attrs["units"] == units[name], (name, d.attrs["units"])
        assert len(d.attrs["description"]) > 10, name
    datasets = []
    h.visititems(lambda name, obj: datasets.append(name) if isinstance(obj, h5py.Dataset) else None)
    assert sorted(datasets) == sorted(shapes), sorted(set(datasets) ^ set(shapes))  # nothing more, nothing less
    assert h.attrs["format"] == "rodd frames" and h.attrs["format_version"] == 1
    assert h.attrs["points"] == N
    want_fields = ["t", "s", "position", "rotation", "rho", "radius", "kappa", "nu", "energy", "volume_change"]
    want_fields += [m for m in MECH if m in f0]
    assert h.attrs["fields"] == ",".join(want_fields), h.attrs["fields"]
    spec = json.loads(h.attrs["spec"])
    given = json.load(open(spec_path))
    assert spec["rod"]["length"] == given["rod"]["length"], spec["rod"]
    assert [a["name"] for a in spec.get("actuators", [])] == [a["name"] for a in given.get("actuators", [])]

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
    if "base" in f0:
        agree("base/position", [f["base"]["position"] for f in frames])
        agree("base/rotation", [f["base"]["rotation"] for f in frames])  # [k, a, b] = R_ab
    for name in f0.get("bodies", {}):
        agree(f"bodies/{name}/position", [f["bodies"][name]["position"] for f in frames])
    for name, c0 in f0.get("constraints", {}).items():
        for key in c0:
            agree(f"constraints/{name}/{key}", [f["constraints"][name][key] for f in frames])
    if "contacts" in f0:
        assert list(h["contacts/count"][...]) == counts, (list(h["contacts/count"][...]), counts)
        assert list(h["contacts/frame"][...]) == [k for k, n in enumerate(counts) for _ in range(n)]
        flat = [c for f in frames for c in f["contacts"]]
        agree("contacts/s", [c["s"] for c in flat])
        agree("contacts/point", [c["point"] for c in flat])
        agree("contacts/force", [c["force"] for c in flat])
        # a frame's rows by its index, as a reader selects them
        k = max(range(F), key=lambda i: counts[i])
        rows_k = np.flatnonzero(h["contacts/frame"][...] == k)
        assert len(rows_k) == counts[k] and close(h["contacts/s"][rows_k[0]], frames[k]["contacts"][0]["s"])
    # float64 kept: the directors are orthonormal to rounding, which float32 (or 10 digits) is not
    R = h["rotation"][...]
    err = np.abs(np.einsum("kiab,kiac->kibc", R, R) - np.eye(3)).max()
    assert err < 1e-12, err
print(f"exports agree: {F} frames x {N} points in NDJSON, CSV and HDF5"
      + (f" with {', '.join(m for m in MECH if m in f0)} ({sum(counts)} contacts)" if expect else ""))
