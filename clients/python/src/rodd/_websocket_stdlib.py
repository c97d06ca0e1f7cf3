"""A small WebSocket client (RFC 6455) on the standard library: enough for rodd's streams
(text and binary messages, fragmentation, ping/pong, close), over ws:// or wss://. The
fallback of ``_websocket.py`` where websocket-client is not installed; it imports nothing
of the package, so that it can be loaded alone."""
from __future__ import annotations

import base64
import hashlib
import os
import socket
import ssl
import struct
from typing import Dict, Optional, Union
from urllib.parse import urlsplit

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class WebSocketError(ConnectionError):
    """The handshake was refused (``status`` is the HTTP status) or the connection broke."""

    def __init__(self, message: str, status: Optional[int] = None):
        super().__init__(message)
        self.status = status


class WebSocket:
    backend = "stdlib"

    def __init__(self, url: str, headers: Optional[Dict[str, str]] = None, timeout: float = 30.0,
                 subprotocol: str = "rodd-stream", ssl_context: Optional[ssl.SSLContext] = None):
        u = urlsplit(url)
        if u.scheme not in ("ws", "wss"):
            raise ValueError(f"a stream URL is ws:// or wss://, not {url}")
        port = u.port or (443 if u.scheme == "wss" else 80)
        sock = socket.create_connection((u.hostname, port), timeout=timeout)
        if u.scheme == "wss":
            sock = (ssl_context or ssl.create_default_context()).wrap_socket(sock, server_hostname=u.hostname)
        self._sock = sock
        self._buf = b""
        self.closed = False
        self.close_code: Optional[int] = None
        self.close_reason = ""
        key = base64.b64encode(os.urandom(16)).decode()
        path = (u.path or "/") + (f"?{u.query}" if u.query else "")
        host = u.hostname + (f":{u.port}" if u.port else "")
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
                 f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
                 f"Sec-WebSocket-Protocol: {subprotocol}"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = self._read_until(b"\r\n\r\n").decode("latin-1")
        status_line, *header_lines = head.split("\r\n")
        parts = status_line.split(" ", 2)
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        if status != 101:
            self._sock.close()
            raise WebSocketError(f"stream refused: {status_line}", status)
        got = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in header_lines if h)}
        accept = base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest()).decode()
        if got.get("sec-websocket-accept") != accept:
            self._sock.close()
            raise WebSocketError("the server's Sec-WebSocket-Accept does not match")

    def _read_until(self, marker: bytes) -> bytes:
        while marker not in self._buf:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise WebSocketError("the connection closed during the handshake")
            self._buf += chunk
        head, _, self._buf = self._buf.partition(marker)
        return head

    def _read(self, n: int) -> bytes:
        while len(self._buf) < n:
            chunk = self._sock.recv(max(65536, n - len(self._buf)))
            if not chunk:
                raise WebSocketError("the connection closed")
            self._buf += chunk
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        head = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))  # clients always mask
        self._sock.sendall(head + mask + masked)

    def send_text(self, text: str) -> None:
        self._send_frame(0x1, text.encode())

    def recv(self) -> Union[str, bytes, None]:
        """The next message (str for text, bytes for binary), or None once the peer closed."""
        message, opcode = b"", None
        while not self.closed:
            b0, b1 = self._read(2)
            op, fin, n = b0 & 0x0F, b0 & 0x80, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if op == 0x8:  # close: answer it and report the end
                self.close_code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None
                self.close_reason = payload[2:].decode(errors="replace")
                self._close(payload[:2])
                return None
            if op == 0x9:
                self._send_frame(0xA, payload)
                continue
            if op == 0xA:
                continue
            if op in (0x1, 0x2):
                opcode = op
            message += payload
            if fin:
                return message.decode() if opcode == 0x1 else message
        return None

    def _close(self, code: bytes = struct.pack(">H", 1000)) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self._send_frame(0x8, code)
        except OSError:
            pass
        self._sock.close()

    def close(self) -> None:
        self._close()

    def settimeout(self, seconds: Optional[float]) -> None:
        self._sock.settimeout(seconds)

