"""The REST side of rodd (api/openapi.yaml) and its streams, for Python programs."""
from __future__ import annotations

import io
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

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
    """A daemon at ``url`` (e.g. ``http://127.0.0.1:8080``), with a bearer ``token`` when it
    has tokens configured."""

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 60.0):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

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
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
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
        it stops at; ``points`` per frame. Other keyword options go into the request as is."""
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

    def inputs(self) -> Dict[str, Any]:
        """Each input's value now, by name."""
        return {a["name"]: a["value"] for a in self.client.request("GET", self.path + "/actuators")["actuators"]}

    def frame(self) -> Frame:
        """The latest frame."""
        return Frame.from_json(self.client.request("GET", self.path + "/frame"))

    def checkpoint(self) -> Dict[str, Any]:
        return self.client.request("GET", self.path + "/checkpoint")

    def update(self, **changes: Any) -> "Session":
        """PATCH the session (``pace``, ``name``)."""
        return self._update(self.client.request("PATCH", self.path, changes))

    def delete(self) -> None:
        self.client.request("DELETE", self.path)

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
        self.ws = WebSocket(session.info["stream_url"], headers=headers, timeout=session.client.timeout)
        self.state: Optional[str] = session.info.get("state")
        self.description: Optional[Dict[str, Any]] = None
        self.hello: Optional[Dict[str, Any]] = None
        self.last_seq = 0
        self.subscribed = False  # frames count from the subscription's answer on
        sub: Dict[str, Any] = {"op": "subscribe", "format": "binary" if binary else "json"}
        if rate is not None:
            sub["rate"] = rate
        if fields is not None:
            sub["fields"] = list(fields)
        self.ws.send_text(json.dumps(sub))

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
                    self.subscribed = True
                elif op == "status" and m.get("level") == "error" and not self.subscribed:
                    self.close()
                    raise RoddError(422, {"title": "subscription refused", "detail": m.get("message", "")})
                if op != "frame":
                    continue
                f = Frame.from_json(m)
            # the frame sent on connection comes before the subscription's format and fields
            # take effect; the daemon sends the latest frame again in them once subscribed
            if not self.subscribed or (f.seq is not None and f.seq <= self.last_seq):
                continue
            self.last_seq = f.seq or self.last_seq
            return f


def _csv_to_numpy(raw: bytes) -> Any:
    import numpy as np
    return np.genfromtxt(io.BytesIO(raw), delimiter=",", names=True)
