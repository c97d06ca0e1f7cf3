"""FRAMEs as NumPy arrays, from the daemon's JSON or from its binary stream messages.

Units (SI): s, position, radius in m; kappa in 1/m; nu, rho and rotations without unit;
energies in J; t in s. ``rotation[i]`` is point i's rotation matrix R, whose columns are the
directors d1, d2, d3 in the base frame. Binary stream frames carry float32 values (about 7
significant digits), JSON FRAMEs (whole or with chosen fields, REST or stream) 10;
all arrive here as float64 arrays."""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np

#: The FRAME's fields in the order of the binary field mask's bits (bit 0 first).
FIELDS = ("s", "position", "rotation", "rho", "radius", "kappa", "nu", "energy", "volume_change")
_PER_POINT = {"s": 1, "position": 3, "rotation": 9, "rho": 1, "radius": 1, "kappa": 3, "nu": 3}
_SHAPES = {"position": (3,), "rotation": (3, 3), "kappa": (3,), "nu": (3,)}
_HEADER = struct.Struct("<4sHHQdII")


class FrameFormatError(ValueError):
    """A binary message that is not a frame of the documented layout."""


@dataclass
class Frame:
    """One frame of a session: the rod at points base to tip at time ``t``. A field the
    subscription left out is ``None``.

    A model of several rods has ``rods``, a list of one Frame per rod (each with its ``name``
    and per-point fields, in the spec's order; ``frame.rod("arm1")`` finds one by name), and
    no per-point fields of its own; the energies, the volume change and ``extra`` (bodies,
    constraints with the joints' reactions, contacts naming their rod) stay the model's."""

    t: float
    seq: Optional[int] = None
    s: Optional[np.ndarray] = None  # (n,)
    position: Optional[np.ndarray] = None  # (n, 3)
    rotation: Optional[np.ndarray] = None  # (n, 3, 3)
    rho: Optional[np.ndarray] = None  # (n,)
    radius: Optional[np.ndarray] = None  # (n,)
    kappa: Optional[np.ndarray] = None  # (n, 3)
    nu: Optional[np.ndarray] = None  # (n, 3)
    energy: Optional[Dict[str, float]] = None  # kinetic, elastic, gravity (J)
    volume_change: Optional[float] = None
    published: Optional[float] = None  # Unix time the daemon published it (JSON frames)
    extra: Dict[str, Any] = field(default_factory=dict)
    rods: Optional[List["Frame"]] = None  # several rods: one Frame each
    name: Optional[str] = None  # a rod's name, in rods

    @property
    def tip(self) -> np.ndarray:
        """The tip's position (m)."""
        if self.rods is not None:
            raise ValueError("a frame of several rods has a tip per rod: frame.rod(NAME).tip")
        if self.position is None:
            raise ValueError("this frame has no position field")
        return self.position[-1]

    def rod(self, name: str) -> "Frame":
        """The rod called ``name`` of a frame of several rods."""
        for r in self.rods or ():
            if r.name == name:
                return r
        known = ", ".join(r.name or "?" for r in self.rods or ())
        raise KeyError(f"no rod {name!r} in this frame" + (f" (its rods: {known})" if known else " (it has one rod)"))

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Frame":
        """A FRAME as JSON (a dict), as GET .../frame, the streams and NDJSON give it."""
        f = cls(t=float(d["t"]), seq=d.get("seq"), published=d.get("published"))
        for name, width in _PER_POINT.items():
            if name in d:
                a = np.asarray(d[name], dtype=np.float64)
                setattr(f, name, a.reshape((len(a),) + _SHAPES.get(name, ())) if width > 1 else a)
        if "energy" in d:
            f.energy = {k: float(v) for k, v in d["energy"].items()}
        if "volume_change" in d:
            f.volume_change = float(d["volume_change"])
        if "rods" in d:
            f.rods = []
            for r in d["rods"]:
                rf = cls.from_json({**r, "t": d["t"]})
                rf.name = r.get("name")
                rf.extra.pop("name", None)
                f.rods.append(rf)
        skip = ("t", "seq", "published", "op", "rods")
        f.extra = {k: v for k, v in d.items() if k not in FIELDS and k not in skip}
        return f


def _per_point(msg: bytes, at: int, n: int, mask: int, f: "Frame") -> int:
    """Reads the per-point float32 arrays of n points at byte at into f; returns the end."""
    for bit, name in enumerate(FIELDS):
        width = _PER_POINT.get(name, 0)
        if not (mask & (1 << bit)) or not width:
            continue
        end = at + 4 * width * n
        if end > len(msg):
            raise FrameFormatError(f"a binary frame ends inside {name} ({len(msg)} bytes)")
        part = np.frombuffer(msg, dtype="<f4", count=width * n, offset=at).astype(np.float64)
        setattr(f, name, part.reshape((n,) + _SHAPES.get(name, ())) if width > 1 else part)
        at = end
    return at


def _decode_rods(msg: bytes, header_bytes: int, seq: int, t: float, nrods: int, mask: int) -> Frame:
    """Version 2: per rod u32 points, u32 name bytes, the name padded to 4 bytes, its arrays;
    then energy and volume_change once."""
    f = Frame(t=t, seq=seq, rods=[])
    at = header_bytes
    for _ in range(nrods):
        if at + 8 > len(msg):
            raise FrameFormatError(f"a binary frame ends inside a rod's header ({len(msg)} bytes)")
        n, k = struct.unpack_from("<II", msg, at)
        at += 8
        name = msg[at:at + k].decode("utf-8")
        at += (k + 3) // 4 * 4
        r = Frame(t=t, name=name)
        at = _per_point(msg, at, n, mask, r)
        f.rods.append(r)
    tail = (3 if mask & (1 << 7) else 0) + (1 if mask & (1 << 8) else 0)
    if len(msg) != at + 4 * tail:
        raise FrameFormatError(f"a frame of {nrods} rods with mask {mask:#x} has {at + 4 * tail} bytes, not {len(msg)}")
    v = np.frombuffer(msg, dtype="<f4", count=tail, offset=at).astype(np.float64)
    if mask & (1 << 7):
        f.energy = {"kinetic": float(v[0]), "elastic": float(v[1]), "gravity": float(v[2])}
    if mask & (1 << 8):
        f.volume_change = float(v[-1])
    return f


def decode_binary(msg: bytes) -> Frame:
    """Decodes a binary stream message: a 32-byte little-endian header (magic RODF, version,
    header size, seq u64, t f64, points u32, field mask u32), then float32 arrays, one per
    bit set in the mask, in bit order. Version 2 (a model of several rods) counts rods in the
    header and gives each its points, name and arrays before the energies (frames.Frame.rods)."""
    if len(msg) < _HEADER.size:
        raise FrameFormatError(f"a binary frame has at least 32 bytes, this one {len(msg)}")
    magic, version, header_bytes, seq, t, n, mask = _HEADER.unpack_from(msg)
    if magic == b"RODF" and version == 2 and header_bytes >= _HEADER.size:
        return _decode_rods(msg, header_bytes, seq, t, n, mask)
    if magic != b"RODF" or version != 1 or header_bytes < _HEADER.size:
        raise FrameFormatError(f"not a version-1 or 2 RODF frame (magic {magic!r}, version {version})")
    counts = []
    for bit, name in enumerate(FIELDS):
        if mask & (1 << bit):
            counts.append((name, _PER_POINT.get(name, 0) * n or (3 if name == "energy" else 1)))
    want = header_bytes + 4 * sum(c for _, c in counts)
    if len(msg) != want:
        raise FrameFormatError(f"a frame of {n} points with mask {mask:#x} has {want} bytes, not {len(msg)}")
    values = np.frombuffer(msg, dtype="<f4", offset=header_bytes).astype(np.float64)
    f = Frame(t=t, seq=seq)
    at = 0
    for name, count in counts:
        part = values[at:at + count]
        at += count
        if name == "energy":
            f.energy = {"kinetic": float(part[0]), "elastic": float(part[1]), "gravity": float(part[2])}
        elif name == "volume_change":
            f.volume_change = float(part[0])
        else:
            setattr(f, name, part.reshape((n,) + _SHAPES.get(name, ())) if count > n else part)
    return f
