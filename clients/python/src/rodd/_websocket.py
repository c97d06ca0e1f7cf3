"""The WebSocket under ``Stream``: websocket-client (``pip install websocket-client``, Debian's
python3-websocket) where it is installed, else the package's own standard-library one
(``_websocket_stdlib.py``). Both give the same surface: ``recv()`` returns a text message as
str, a binary one as bytes and None once the peer closed; a refused handshake raises
``WebSocketError`` with its HTTP ``status``."""
from __future__ import annotations

import ssl
from typing import Dict, Optional, Union

from . import _websocket_stdlib
from ._websocket_stdlib import WebSocketError

try:
    import websocket as _wsc  # websocket-client
    BACKENDS = ("websocket-client", "stdlib")
except ImportError:  # the optional dependency is missing: the fallback serves
    _wsc = None
    BACKENDS = ("stdlib",)

__all__ = ["BACKENDS", "WebSocket", "WebSocketError"]


class _WebSocketClient:
    """websocket-client's connection with the fallback's surface."""

    backend = "websocket-client"

    def __init__(self, url: str, headers: Dict[str, str], timeout: float, subprotocol: str,
                 ssl_context: Optional[ssl.SSLContext]):
        if not url.startswith(("ws://", "wss://")):
            raise ValueError(f"a stream URL is ws:// or wss://, not {url}")
        sslopt = {"context": ssl_context or ssl.create_default_context()}
        try:
            # no Origin of its own making (it would send http://HOST for wss too): a program
            # is no page; one given in headers goes as given
            self._ws = _wsc.create_connection(url, timeout=timeout, subprotocols=[subprotocol], sslopt=sslopt,
                                              header=dict(headers), suppress_origin=True)
        except _wsc.WebSocketBadStatusException as e:
            raise WebSocketError(f"stream refused: {e}", e.status_code) from None
        except _wsc.WebSocketException as e:
            raise WebSocketError(str(e)) from None
        self.closed = False
        self.close_code: Optional[int] = None
        self.close_reason = ""

    def send_text(self, text: str) -> None:
        self._ws.send(text)

    def recv(self) -> Union[str, bytes, None]:
        if self.closed:
            return None
        try:
            opcode, frame = self._ws.recv_data_frame()  # answers pings itself
        except _wsc.WebSocketTimeoutException as e:
            raise TimeoutError(str(e)) from None
        except _wsc.WebSocketConnectionClosedException:
            self.closed = True
            return None
        if opcode == _wsc.ABNF.OPCODE_CLOSE:  # it has answered the close
            data = frame.data or b""
            self.close_code = int.from_bytes(data[:2], "big") if len(data) >= 2 else None
            self.close_reason = data[2:].decode(errors="replace")
            self.closed = True
            self._ws.shutdown()
            return None
        return frame.data.decode() if opcode == _wsc.ABNF.OPCODE_TEXT else frame.data

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._ws.close(timeout=1)

    def settimeout(self, seconds: Optional[float]) -> None:
        self._ws.settimeout(seconds)


def WebSocket(url: str, headers: Optional[Dict[str, str]] = None, timeout: float = 30.0,
              subprotocol: str = "rodd-stream", ssl_context: Optional[ssl.SSLContext] = None,
              backend: Optional[str] = None):
    """A connection to a stream URL (ws:// or wss://) through ``backend``, one of BACKENDS
    (default: the first, websocket-client when it is installed); ``.backend`` says which."""
    backend = backend or BACKENDS[0]
    if backend not in BACKENDS:
        raise ValueError(f"WebSocket backend {backend!r} is not available here; these are: {list(BACKENDS)}")
    if backend == "stdlib":
        return _websocket_stdlib.WebSocket(url, headers=headers, timeout=timeout, subprotocol=subprotocol,
                                           ssl_context=ssl_context)
    return _WebSocketClient(url, headers or {}, timeout, subprotocol, ssl_context)
