#!/usr/bin/env python3
"""Stream churn over real sockets: the daemon's libmicrohttpd and libwebsockets under many
streams that come and go (issue 27 item 4's reproducer and its variants).

One reaching session at pace 0.1; `holders` stream handshakes from 127.0.0.2-21 that never read
(SO_RCVBUF 4096), so the daemon's writes to them stall; just before the idle timeout drops
them, a loop from 127.0.0.1 that opens and closes streams for `churn` seconds, closing each in
turn by a Close frame, by a reset (SO_LINGER 0), by a bare FIN, after a ping flood, or not at
all (refused at the limit when the holders fill max_streams). The daemon must stay up,
answer /livez afterwards, never admit more than max_streams at once, and exit 0 on SIGTERM.

Exit status 0 when all that held, 1 with the reason otherwise. `--runs N` repeats it with a
fresh daemon each time and prints one line per run.
"""
import argparse
import base64
import http.client
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def request(port, method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request(method, path, body=json.dumps(body) if body is not None else None,
              headers={"Content-Type": "application/json"} if body is not None else {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


def handshake(port, path, source="127.0.0.1", rcvbuf=None, timeout=5.0):
    """A stream handshake; (socket, status). The socket is None when it could not connect."""
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
    try:
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head and len(head) < 8192:
            chunk = s.recv(1)  # byte by byte: what follows the head stays in the socket
            if not chunk:
                break
            head += chunk
    except OSError:
        s.close()
        return None, 0
    try:
        status = int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        status = 0
    return s, status


def frame(opcode, payload=b""):
    """A masked client frame."""
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode])
    head += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def close_one(s, how):
    try:
        if how == "close":
            s.sendall(frame(8, struct.pack(">H", 1000)))
            s.settimeout(0.5)
            try:
                while s.recv(65536):
                    pass
            except OSError:
                pass
        elif how == "reset":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif how == "pings":
            s.sendall(b"".join(frame(9, b"p" * 16) for _ in range(200)))
        elif how == "read":
            s.settimeout(0.2)
            try:
                s.recv(65536)
            except OSError:
                pass
    except OSError:
        pass
    s.close()


def count_streams(port):
    try:
        status, body = request(port, "GET", "/metrics")
    except OSError:
        return -1
    for line in body.decode(errors="replace").splitlines():
        if line.startswith("rodd_stream_clients "):
            return int(float(line.split()[1]))
    return -1


def one_run(args, log_path):
    port = free_port()
    state = tempfile.mkdtemp(prefix="rodd-churn-")
    env = dict(os.environ, RODD_STREAM_IDLE_TIMEOUT=str(args.idle), RODD_WORKERS="2")
    argv = [args.rodd, "serve", "--listen", f"127.0.0.1:{port}", "--state-dir", state]
    ws_port = port
    if args.via == "stream":
        ws_port = free_port()
        argv += ["--ws-port", str(ws_port)]
    if args.max_streams:
        argv += ["--config", write_config(state, args.max_streams)]
    wrap = os.environ.get("RODD_WRAP", "").split()
    log = open(log_path, "wb")
    proc = subprocess.Popen(wrap + argv, cwd=TOP, env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        for _ in range(600):
            try:
                if request(port, "GET", "/readyz")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.05)
        status, body = request(port, "POST", "/v1/sessions",
                               {"example": "octopus-reaching", "pace": 0.1, "start": True})
        if status != 201:
            return f"create answered {status}: {body[:200]!r}"
        sid = json.loads(body)["id"]
        path = f"/v1/sessions/{sid}/stream"
        started = time.monotonic()
        holders, admitted, refused = [], 0, 0
        for i in range(args.holders):
            s, st = handshake(ws_port, path, source=f"127.0.0.{2 + i % 20}", rcvbuf=4096)
            if st == 101:
                admitted += 1
                holders.append(s)
            else:
                refused += 1
                if s:
                    s.close()
            if proc.poll() is not None:
                return f"the daemon died while the holders came in ({proc.returncode})"
        wait = started + args.idle - args.lead - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        ways = ["close", "reset", "fin", "pings", "read"]
        opened = churn_refused = most = 0
        end = time.monotonic() + args.churn
        k = 0
        while time.monotonic() < end:
            s, st = handshake(ws_port, path)
            if s is None:
                if proc.poll() is not None:
                    break
                continue
            if st == 101:
                opened += 1
            else:
                churn_refused += 1
            close_one(s, ways[k % len(ways)])
            k += 1
            if k % 25 == 0:
                n = count_streams(port)
                most = max(most, n)
                if args.max_streams and n > args.max_streams:
                    return f"{n} streams open, over max_streams {args.max_streams}"
        for s in holders:
            s.close()
        if proc.poll() is not None:
            return f"the daemon died during the churn (status {proc.returncode})"
        if args.expect_opened and not opened:
            return ("no stream opened during the churn: the silent ones were not dropped at the idle timeout"
                    f" ({args.idle} s)")
        if request(port, "GET", "/livez")[0] != 200:
            return "/livez did not answer 200 after the churn"
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            return "the daemon did not stop within 60 s of SIGTERM"
        if rc != 0:
            return f"the daemon exited {rc} on SIGTERM"
        print(f"  holders admitted {admitted} refused {refused}; churn opened {opened} refused {churn_refused};"
              f" most streams seen {most}", flush=True)
        return None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
        subprocess.run(["rm", "-rf", state])


def write_config(state, max_streams):
    p = os.path.join(state, "churn.json")
    with open(p, "w") as f:
        json.dump({"max_streams": max_streams}, f)
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rodd", default=os.environ.get("RODD", os.path.join(TOP, "build/rodd")))
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--idle", type=float, default=25, help="RODD_STREAM_IDLE_TIMEOUT, s")
    ap.add_argument("--lead", type=float, default=2, help="the churn starts this long before the idle drop, s")
    ap.add_argument("--churn", type=float, default=14, help="s of open-and-close")
    ap.add_argument("--holders", type=int, default=300)
    ap.add_argument("--max-streams", type=int, default=0, help="config max_streams (0: the default)")
    ap.add_argument("--via", choices=["rest", "stream"], default="rest",
                    help="the streams come in on the REST port or on the stream port (--ws-port)")
    ap.add_argument("--expect-opened", action="store_true",
                    help="fail when no churn stream opened (the silent ones fill max_streams until their idle drop)")
    ap.add_argument("--log-dir", default=tempfile.gettempdir())
    args = ap.parse_args()
    failures = 0
    for run in range(1, args.runs + 1):
        log_path = os.path.join(args.log_dir, f"rodd-churn-{os.getpid()}-{run}.log")
        t0 = time.monotonic()
        why = one_run(args, log_path)
        print(f"run {run}: {'ok' if why is None else 'FAILED: ' + why} ({time.monotonic() - t0:.1f} s)", flush=True)
        if why is None:
            os.unlink(log_path)
        else:
            failures += 1
            print(f"  the daemon's log: {log_path}", flush=True)
    print(f"{args.runs} runs, {failures} failed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
