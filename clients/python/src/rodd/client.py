"""The REST side of rodd (api/openapi.yaml) and its streams, for Python programs."""
from __future__ import annotations

import io
import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

from ._websocket import BACKENDS as WEBSOCKET_BACKENDS
from ._websocket import WebSocket
from .frames import FIELDS, Frame, decode_binary


class RoddError(Exception):
    """An error answer (RFC 9457 problem): ``status``, ``type`` (its last path segment is the
    slug, e.g. ``invalid-spec``), ``detail`` and ``errors`` (each with the JSON pointer ``path``
    of what is wrong and a ``message``)."""

    def __init__(self, status: int, problem: Dict[str, Any]):
        self.status = status
        self.problem = problem
        self.type = problem.get("type", "")
        self.slug = self.type.rsplit("/", 1)[-1]
        self.detail = problem.get("detail", problem.get("title", ""))
        self.errors: List[Dict[str, Any]] = problem.get("errors", [])
        where = "; ".join(f"{e.get('path') or '(document)'}: {e.get('message')}" for e in self.errors)
        super().__init__(f"{status} {self.slug}: {self.detail}" + (f" ({where})" if where else ""))


class Client:
    """A daemon at ``url`` (e.g. ``http://127.0.0.1:8080``, or ``https://...`` behind a TLS
    proxy), with a bearer ``token`` when it has tokens configured; ``ssl_context`` for https
    and wss with a certificate the system does not trust (``ssl.create_default_context(
    cafile=...)``); ``websocket`` picks the streams' WebSocket: "websocket-client" (the
    default where it is installed) or "stdlib" (the package's own, the fallback)."""

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 60.0,
                 ssl_context: Optional["ssl.SSLContext"] = None, websocket: Optional[str] = None):
        if websocket is not None and websocket not in WEBSOCKET_BACKENDS:
            raise ValueError(f"websocket is one of {list(WEBSOCKET_BACKENDS)} here, not {websocket!r}")
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.ssl_context = ssl_context
        self.websocket = websocket

    # ---- plumbing
    def _headers(self, extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
        h = {"Accept": "application/json"}
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        h.update(extra or {})
        return h

    def request_raw(self, method: str, path: str, body: Any = None,
                    headers: Optional[Dict[str, str]] = None) -> "tuple[int, Dict[str, str], bytes]":
        """One request; the status, headers and body bytes. Error statuses raise RoddError."""
        data = None if body is None else json.dumps(body).encode()
        h = self._headers(headers)
        if data is not None:
            h["Content-Type"] = "application/json"
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout, context=self.ssl_context) as r:
                return r.status, dict(r.headers.items()), r.read()
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                problem = json.loads(raw)
            except ValueError:
                problem = {"title": raw.decode(errors="replace")[:200] or e.reason}
            raise RoddError(e.code, problem) from None

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One JSON request; the decoded answer (None for an empty one)."""
        _, _, raw = self.request_raw(method, path, body)
        return json.loads(raw) if raw else None

    # ---- the daemon
    def examples(self) -> List[str]:
        """The names of the example specs the daemon ships."""
        return [e["name"] if isinstance(e, dict) else e for e in self.request("GET", "/v1/examples")["examples"]]

    def example(self, name: str) -> Dict[str, Any]:
        return self.request("GET", f"/v1/examples/{urllib.parse.quote(name, safe='')}")

    def solve(self, spec: Dict[str, Any], points: Optional[int] = None) -> Dict[str, Any]:
        """Static equilibrium: {"converged", "iterations", "residual", "q", "frame"}; the frame
        as a Frame."""
        body: Dict[str, Any] = {"spec": spec}
        if points is not None:
            body["points"] = points
        out = self.request("POST", "/v1/solve", body)
        out["frame"] = Frame.from_json(out["frame"])
        return out

    def sessions(self) -> List["Session"]:
        """Every session, following the pages."""
        out: List[Session] = []
        token = ""
        while True:
            page = self.request("GET", f"/v1/sessions?page_size=1000&page_token={token}")
            out += [Session(self, s) for s in page["sessions"]]
            token = page.get("next_page_token")
            if not token:
                return out

    def session(self, id: str) -> "Session":
        return Session(self, self.request("GET", f"/v1/sessions/{urllib.parse.quote(id, safe='')}"))

    def create(self, spec: Optional[Dict[str, Any]] = None, example: Optional[str] = None,
               checkpoint: Optional[Dict[str, Any]] = None, *, name: Optional[str] = None,
               start: bool = False, pace: Union[float, str, None] = None, until: Optional[float] = None,
               points: Optional[int] = None, **options: Any) -> "Session":
        """A new session from exactly one of ``spec`` (a dict), ``example`` (a name) or
        ``checkpoint``; ``pace`` is a real-time factor or "max"; ``until`` the simulated time
        it stops at; ``points`` per frame. Other keyword options go into the request as is
        (``repeat={"every": T}``: the daemon starts the session again at T, ``recording``)."""
        if sum(x is not None for x in (spec, example, checkpoint)) != 1:
            raise ValueError("give exactly one of spec, example and checkpoint")
        body: Dict[str, Any] = dict(options)
        for k, v in (("spec", spec), ("example", example), ("checkpoint", checkpoint), ("name", name),
                     ("pace", pace), ("until", until), ("points", points)):
            if v is not None:
                body[k] = v
        if start:
            body["start"] = True
        return Session(self, self.request("POST", "/v1/sessions", body))


class Session:
    """One session. ``info`` is its latest description from the daemon (state, t, inputs...),
    refreshed by every call that returns the session."""

    def __init__(self, client: Client, info: Dict[str, Any]):
        self.client = client
        self.info = info
        self.id: str = info["id"]

    def __repr__(self) -> str:
        return f"<rodd.Session {self.id} {self.info.get('state')} t={self.info.get('t')}>"

    @property
    def path(self) -> str:
        return f"/v1/sessions/{urllib.parse.quote(self.id, safe='')}"

    @property
    def state(self) -> str:
        return self.info["state"]

    @property
    def t(self) -> float:
        return self.info["t"]

    def _update(self, info: Dict[str, Any]) -> "Session":
        if info and "id" in info:
            self.info = info
        return self

    def refresh(self) -> "Session":
        return self._update(self.client.request("GET", self.path))

    def start(self) -> "Session":
        return self._update(self.client.request("POST", self.path + ":start"))

    def pause(self) -> "Session":
        return self._update(self.client.request("POST", self.path + ":pause"))

    def reset(self) -> "Session":
        return self._update(self.client.request("POST", self.path + ":reset"))

    def advance(self, by: Optional[float] = None, until: Optional[float] = None) -> "Session":
        """Steps a paused (or created) session by ``by`` simulated seconds, or to ``until``,
        synchronously."""
        if (by is None) == (until is None):
            raise ValueError("give one of by and until")
        body = {"by": by} if by is not None else {"until": until}
        return self._update(self.client.request("POST", self.path + ":advance", body))

    def set(self, **inputs: float) -> Dict[str, Any]:
        """Sets inputs (actuators: N or Pa; loads: a scale) to constants, all at one simulated
        time: ``s.set(LM1=0.2, TM=500)``. The answer says ``applied`` (with ``t``) or
        ``queued``."""
        if not inputs:
            raise ValueError("name at least one input")
        return self.client.request("PATCH", self.path + "/actuators", inputs)

    def step(self, by: float, **inputs: float) -> Frame:
        """Lockstep, for a controller that owns the clock: sets the inputs, advances a paused
        (or created) session by ``by`` simulated seconds and returns the frame there, in one
        request: ``f = s.step(0.01, cable=u)``."""
        body: Dict[str, Any] = {"by": by}
        if inputs:
            body["inputs"] = inputs
        out = self.client.request("POST", self.path + ":step", body)
        self.info = {**self.info, "state": out["state"], "t": out["t"], "failure": out.get("failure")}
        if out["state"] == "failed":
            raise RoddError(409, {"type": "/problems/wrong-state", "detail": out.get("failure") or "failed"})
        return Frame.from_json(out["frame"])

    def inputs(self) -> Dict[str, Any]:
        """Each input's value now, by name."""
        return {a["name"]: a["value"] for a in self.client.request("GET", self.path + "/actuators")["actuators"]}

    def frame(self) -> Frame:
        """The latest frame."""
        return Frame.from_json(self.client.request("GET", self.path + "/frame"))

    def checkpoint(self) -> Dict[str, Any]:
        return self.client.request("GET", self.path + "/checkpoint")

    def update(self, **changes: Any) -> "Session":
        """PATCH the session (``pace``, ``until``, ``name``, ``repeat={"every": T}`` or
        ``repeat=None``)."""
        return self._update(self.client.request("PATCH", self.path, changes))

    def delete(self) -> None:
        self.client.request("DELETE", self.path)

    def recording_info(self) -> Optional[Dict[str, Any]]:
        """What the session records: options, frames, bytes, from/to, state ("recording",
        "off", "full", "failed") and error."""
        return self.refresh().info.get("recording")

    def configure_recording(self, **options: Any) -> Dict[str, Any]:
        """Changes the recording (rate, fields, max_bytes, when_full, enabled); new fields or
        max_bytes start it afresh."""
        return self.client.request("PATCH", self.path + "/recording", options)

    def recording(self, format: str = "numpy", start: Optional[float] = None, stop: Optional[float] = None,
                  path: Optional[str] = None) -> Any:
        """The recorded frames with start <= t <= stop (simulated seconds).

        format "numpy": a Recording of time-major NumPy arrays (read from HDF5 with h5py when
        it is installed, every bit kept; else from NDJSON, 10 significant digits).
        "pandas": a DataFrame of the CSV's long form (one row per frame and point).
        "hdf5", "csv", "ndjson": the file's bytes, or written to ``path`` (then the path)."""
        if format == "numpy":
            try:
                import h5py  # noqa: F401
                raw = self._recording_bytes("hdf5", start, stop)
                return Recording.from_hdf5(raw)
            except ImportError:
                return Recording.from_ndjson(self._recording_bytes("ndjson", start, stop))
        if format == "pandas":
            import pandas as pd
            return pd.read_csv(io.BytesIO(self._recording_bytes("csv", start, stop)))
        if format not in ("hdf5", "csv", "ndjson"):
            raise ValueError(f"format is numpy, pandas, hdf5, csv or ndjson, not {format!r}")
        raw = self._recording_bytes(format, start, stop)
        if path is None:
            return raw
        with open(path, "wb") as f:
            f.write(raw)
        return path

    def _recording_bytes(self, fmt: str, start: Optional[float], stop: Optional[float]) -> bytes:
        q = {"format": fmt}
        if start is not None:
            q["from"] = repr(float(start))
        if stop is not None:
            q["to"] = repr(float(stop))
        _, _, raw = self.client.request_raw("GET", self.path + "/recording?" + urllib.parse.urlencode(q))
        return raw

    def stream(self, rate: Optional[float] = None, fields: Optional[Sequence[str]] = None,
               binary: bool = True) -> "Stream":
        """The session's live frames: ``for f in s.stream(): ...`` (an iterator of Frame,
        latest wins: a slow loop misses frames, never delays the simulation). Binary frames
        carry float32 values; ``binary=False`` gives JSON's 10 digits."""
        return Stream(self, rate=rate, fields=fields, binary=binary)


class Stream:
    """A WebSocket stream of one session's frames; iterate it, close it (or use ``with``).
    ``state`` follows the session's state messages; ``description`` is the session's
    description message."""

    def __init__(self, session: Session, rate: Optional[float], fields: Optional[Sequence[str]], binary: bool):
        unknown = [f for f in fields or () if f not in FIELDS]
        if unknown:
            raise ValueError(f"unknown fields {unknown}; the fields are {list(FIELDS)}")
        self.session = session
        headers = {"Authorization": f"Bearer {session.client.token}"} if session.client.token else {}
        # the subscription goes in the URL, so that the first frame already has its form and
        # no frame comes twice
        q: Dict[str, str] = {"format": "binary" if binary else "json"}
        if rate is not None:
            q["rate"] = repr(float(rate))
        if fields is not None:
            q["fields"] = ",".join(fields)
        url = session.info["stream_url"]
        url += ("&" if "?" in url else "?") + urllib.parse.urlencode(q, safe=",")
        self.ws = WebSocket(url, headers=headers, timeout=session.client.timeout,
                            ssl_context=session.client.ssl_context, backend=session.client.websocket)
        self.state: Optional[str] = session.info.get("state")
        self.description: Optional[Dict[str, Any]] = None
        self.hello: Optional[Dict[str, Any]] = None
        self.subscribed: Optional[Dict[str, Any]] = None  # the daemon's "subscribed" answer
        self.last_seq = 0

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self.ws.close()

    def __iter__(self) -> Iterator[Frame]:
        return self

    def __next__(self) -> Frame:
        while True:
            msg = self.ws.recv()
            if msg is None:
                raise StopIteration
            if isinstance(msg, bytes):
                f = decode_binary(msg)
            else:
                m = json.loads(msg)
                op = m.get("op")
                if op == "state":
                    self.state = m.get("state", self.state)
                elif op == "hello":
                    self.hello = m
                elif op == "description":
                    self.description = m
                elif op == "subscribed":
                    self.subscribed = m
                if op != "frame":
                    continue
                f = Frame.from_json(m)
            if f.seq is not None and f.seq <= self.last_seq:
                continue
            self.last_seq = f.seq or self.last_seq
            return f


class Recording:
    """Recorded frames, time-major: ``t`` (frames,), ``position`` (frames, points, 3),
    ``rotation`` (frames, points, 3, 3), ``s``/``rho``/``radius`` (frames, points),
    ``kappa``/``nu`` (frames, points, 3), ``energy`` {"kinetic", "elastic", "gravity"} of
    (frames,), ``volume_change`` (frames,); a field not recorded is None. ``spec`` is the
    session's spec (from HDF5), ``units`` each dataset's unit (from HDF5, by its path).

    The mechanics, where the model has them (else None): ``base`` {"position" (frames, 3),
    "rotation" (frames, 3, 3)} of a moving or free base; ``bodies`` {name: {"position"
    (frames, 3)}}; ``constraints`` {name: {"force", "moment", "point", "target" (frames, 3),
    "violation" (frames,)}} for a pose, {name: {"pressure", "violation"}} for a volume;
    ``contacts`` a table of every frame's contacts, one row each: {"count" (frames,), "frame"
    (rows,) the row of ``t`` each belongs to, "s" (rows,), "point", "force" (rows, 3)}.
    ``contacts_at(k)`` gives frame k's rows.

    A model of several rods has ``rods`` {name: Recording} in the spec's order, each with its
    own per-point arrays and ``t`` (``recording.rod(NAME)``) and, where its base moves (a rod
    joined to another's is free), its ``base``; the recording has no per-point arrays of its
    own; its contacts add "rod" (rows,): the rod's name (NDJSON) or index in ``rods`` (HDF5)."""

    def __init__(self) -> None:
        import numpy as np
        self.t = np.zeros(0)
        self.s = self.position = self.rotation = self.rho = self.radius = None
        self.kappa = self.nu = self.volume_change = None
        self.energy: Optional[Dict[str, Any]] = None
        self.base: Optional[Dict[str, Any]] = None
        self.bodies: Optional[Dict[str, Dict[str, Any]]] = None
        self.constraints: Optional[Dict[str, Dict[str, Any]]] = None
        self.contacts: Optional[Dict[str, Any]] = None
        self.spec: Optional[Dict[str, Any]] = None
        self.units: Dict[str, str] = {}
        self.rods: Optional[Dict[str, "Recording"]] = None

    def __len__(self) -> int:
        return len(self.t)

    def rod(self, name: str) -> "Recording":
        """The rod called ``name`` of a recording of several rods."""
        if not self.rods or name not in self.rods:
            known = ", ".join(self.rods or ())
            raise KeyError(f"no rod {name!r} in this recording" + (f" (its rods: {known})" if known else ""))
        return self.rods[name]

    def contacts_at(self, k: int) -> Dict[str, Any]:
        """Frame k's contacts: {"s" (n,), "point", "force" (n, 3)}; n may be 0."""
        if self.contacts is None:
            raise ValueError("this model's frames have no contacts")
        rows = self.contacts["frame"] == k
        return {key: self.contacts[key][rows] for key in ("s", "point", "force")}

    @classmethod
    def from_hdf5(cls, raw: bytes) -> "Recording":
        import h5py
        import numpy as np
        r = cls()

        def group(g: Any) -> Dict[str, Any]:
            out = {}
            for k, v in g.items():
                out[k] = group(v) if isinstance(v, h5py.Group) else np.asarray(v[...])
                if isinstance(v, h5py.Dataset):
                    r.units[v.name.lstrip("/")] = v.attrs["units"]
            return out

        with h5py.File(io.BytesIO(raw), "r") as h:
            r.t = np.asarray(h["t"][...])
            for name in ("s", "position", "rotation", "rho", "radius", "kappa", "nu", "volume_change"):
                if name in h:
                    setattr(r, name, np.asarray(h[name][...]))
                    r.units[name] = h[name].attrs["units"]
            if "energy" in h:
                r.energy = {k: np.asarray(h["energy"][k][...]) for k in ("kinetic", "elastic", "gravity")}
            for name in ("base", "bodies", "constraints", "contacts"):
                if name in h:
                    setattr(r, name, group(h[name]))
            if "rods" in h:  # several rods: rods/NAME/FIELD, in the spec's order (its "order" attribute)
                order = h["rods"].attrs.get("order", ",".join(h["rods"]))
                order = (order.decode() if isinstance(order, bytes) else str(order)).split(",")
                r.rods = {}
                for name in order:
                    rr = cls()
                    rr.t = r.t
                    for k, v in h["rods"][name].items():
                        if isinstance(v, h5py.Group):  # base/: a joined rod's base pose
                            setattr(rr, k, group(v))
                            continue
                        setattr(rr, k, np.asarray(v[...]))
                        r.units[f"rods/{name}/{k}"] = v.attrs["units"]
                    r.rods[name] = rr
            if "spec" in h.attrs:
                r.spec = json.loads(h.attrs["spec"])
        return r

    @classmethod
    def from_ndjson(cls, raw: bytes) -> "Recording":
        import numpy as np
        r = cls()
        lines = [json.loads(line) for line in raw.splitlines() if line.strip()]
        frames = [Frame.from_json(d) for d in lines]
        r.t = np.array([f.t for f in frames])
        if not frames:
            return r
        for name in ("s", "position", "rotation", "rho", "radius", "kappa", "nu"):
            if getattr(frames[0], name) is not None:
                setattr(r, name, np.stack([getattr(f, name) for f in frames]))
        if frames[0].energy is not None:
            r.energy = {k: np.array([f.energy[k] for f in frames]) for k in ("kinetic", "elastic", "gravity")}
        if frames[0].volume_change is not None:
            r.volume_change = np.array([f.volume_change for f in frames])
        if frames[0].rods is not None:
            r.rods = {}
            for i, first_rod in enumerate(frames[0].rods):
                rr = cls()
                rr.t = r.t
                for name in ("s", "position", "rotation", "rho", "radius", "kappa", "nu"):
                    if getattr(first_rod, name) is not None:
                        setattr(rr, name, np.stack([getattr(f.rods[i], name) for f in frames]))
                if "base" in lines[0]["rods"][i]:
                    rr.base = {"position": np.array([d["rods"][i]["base"]["position"] for d in lines], dtype=float),
                               "rotation": np.array([d["rods"][i]["base"]["rotation"] for d in lines],
                                                    dtype=float).reshape(-1, 3, 3)}
                r.rods[first_rod.name] = rr
        first = lines[0]
        if "base" in first:
            r.base = {"position": np.array([d["base"]["position"] for d in lines], dtype=float),
                      "rotation": np.array([d["base"]["rotation"] for d in lines], dtype=float).reshape(-1, 3, 3)}
        if "bodies" in first:
            r.bodies = {n: {"position": np.array([d["bodies"][n]["position"] for d in lines], dtype=float)}
                        for n in first["bodies"]}
        if "constraints" in first:
            r.constraints = {n: {k: np.array([d["constraints"][n][k] for d in lines], dtype=float) for k in c}
                             for n, c in first["constraints"].items()}
        if "contacts" in first:
            flat = [(k, c) for k, d in enumerate(lines) for c in d["contacts"]]
            r.contacts = {"count": np.array([len(d["contacts"]) for d in lines], dtype=np.int64),
                          "frame": np.array([k for k, _ in flat], dtype=np.int64),
                          "s": np.array([c["s"] for _, c in flat], dtype=float),
                          "point": np.array([c["point"] for _, c in flat], dtype=float).reshape(-1, 3),
                          "force": np.array([c["force"] for _, c in flat], dtype=float).reshape(-1, 3)}
            if flat and "rod" in flat[0][1]:
                r.contacts["rod"] = np.array([c["rod"] for _, c in flat])
        return r
