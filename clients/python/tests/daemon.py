"""Starts the real daemon (build/rodd, or $RODD) on free loopback ports for a test."""
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
RODD = os.path.abspath(os.environ.get("RODD", os.path.join(TOP, "build", "rodd")))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    def __init__(self, *args: str, env=None, state_dir=None):
        self.http, self.ws = free_port(), free_port()
        while self.ws == self.http:
            self.ws = free_port()
        self.keep_dir = state_dir is not None  # a state directory given is the caller's
        self.dir = state_dir or tempfile.mkdtemp(prefix="rodd-py-")
        self.url = f"http://127.0.0.1:{self.http}"
        self.proc = subprocess.Popen(
            [RODD, "serve", "--listen", f"127.0.0.1:{self.http}", "--ws-port", str(self.ws),
             "--state-dir", self.dir, *args],
            env={**os.environ, "RODD_WORKERS": "2", "RODD_EXAMPLES_DIR": os.path.join(TOP, "api", "examples"),
                 **(env or {})},
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/readyz", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("the daemon did not become ready")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stderr:
            self.proc.stderr.close()
        if not self.keep_dir:
            shutil.rmtree(self.dir, ignore_errors=True)


class DaemonTestCase(unittest.TestCase):
    """Test classes that share one daemon (cls.d) and one rodd.Client of it (cls.c)."""

    @classmethod
    def setUpClass(cls):
        import rodd  # the test modules put the client's source on sys.path before importing this
        cls.d = Daemon()
        cls.c = rodd.Client(cls.d.url)

    @classmethod
    def tearDownClass(cls):
        cls.d.stop()
