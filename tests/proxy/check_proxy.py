"""Through the TLS proxy only, whose one upstream is the daemon's REST port: REST over https,
the stream over the announced wss:// URL (frames arrive and advance), a cross-site page's
handshake refused as on the daemon itself, a recording downloaded; the certificate checked
against the test's own CA file (no verification turned off)."""
import json
import os
import ssl
import sys

top = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(top, "clients", "python", "src"))
import rodd  # noqa: E402
from rodd._websocket import WebSocket, WebSocketError  # noqa: E402

url, cafile = sys.argv[1], sys.argv[2]
ctx = ssl.create_default_context(cafile=cafile)
c = rodd.Client(url, ssl_context=ctx)
spec = json.load(open(os.path.join(top, "clients", "python", "examples", "cable_arm.json")))
s = c.create(spec=spec, points=5, until=0.5, recording={"rate": 20})
want = url.replace("https://", "wss://") + f"/v1/sessions/{s.id}/stream"
assert s.info["stream_url"] == want, (s.info["stream_url"], want)
print(f"ok   stream_url is the proxy's: {want}")
s.set(cable=0.3)
s.start()
ts = []
with s.stream(rate=60, binary=True) as st:
    for f in st:
        ts.append(f.t)
        if f.t >= 0.5 - 1e-9 or len(ts) > 200:
            break
assert len(ts) >= 3 and ts == sorted(ts) and ts[-1] > ts[0], ts
print(f"ok   {len(ts)} binary frames through wss, t = {ts[0]:.3f} .. {ts[-1]:.3f} s")
with s.stream() as st:  # JSON, the default: hello and description first
    f = next(iter(st))
    assert st.hello and st.description and st.description["session"]["id"] == s.id, st.description
print(f"ok   a JSON stream through wss: hello, description, a frame at t = {f.t:.3f} s")
try:
    WebSocket(s.info["stream_url"], headers={"Origin": "https://evil.example"}, ssl_context=ctx)
    raise SystemExit("FAIL a cross-site page opened a stream through the proxy")
except WebSocketError as e:
    assert e.status == 403, e
    print("ok   a cross-site page's handshake is refused through the proxy (403)")
raw = s.recording("ndjson")
lines = [json.loads(x) for x in raw.splitlines()]
assert len(lines) == 11 and abs(lines[-1]["t"] - 0.5) < 1e-9, len(lines)
print(f"ok   the recording downloads through https ({len(raw)} bytes, {len(lines)} frames)")
s.delete()
try:
    rodd.Client(url).examples()  # the system's trust store does not know the test's CA
    raise SystemExit("FAIL an untrusted certificate was accepted")
except Exception as e:
    assert "CERTIFICATE_VERIFY_FAILED" in str(e) or "certificate" in str(e).lower(), e
    print("ok   an unknown certificate is refused")
print("proxy: all passed")
