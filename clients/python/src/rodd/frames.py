"""FRAMEs as NumPy arrays, from the daemon's JSON or from its binary stream messages.

Units (SI): s, position, radius in m; kappa in 1/m; nu, rho and rotations without unit;
energies in J; t in s. ``rotation[i]`` is point i's rotation matrix R, whose columns are the
directors d1, d2, d3 in the base frame. Binary stream frames carry float32 values (about 7
significant digits), JSON FRAMEs (whole or with chosen fields, REST or stream) 10;
all arrive here as float64 arrays."""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any, Dict, Optional

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
    subscription left out is ``None``."""

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

    @property
    def tip(self) -> np.ndarray:
        """The tip's position (m)."""
        if self.position is None:
            raise ValueError("this frame has no position field")
        return self.position[-1]

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
        f.extra = {k: v for k, v in d.items() if k not in FIELDS and k not in ("t", "seq", "published", "op")}
        return f


def decode_binary(msg: bytes) -> Frame:
    """Decodes a binary stream message: a 32-byte little-endian header (magic RODF, version 1,
    header size, seq u64, t f64, points u32, field mask u32), then float32 arrays, one per
    bit set in the mask, in bit order."""
    if len(msg) < _HEADER.size:
        raise FrameFormatError(f"a binary frame has at least 32 bytes, this one {len(msg)}")
    magic, version, header_bytes, seq, t, n, mask = _HEADER.unpack_from(msg)
    if magic != b"RODF" or version != 1 or header_bytes < _HEADER.size:
        raise FrameFormatError(f"not a version-1 RODF frame (magic {magic!r}, version {version})")
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
