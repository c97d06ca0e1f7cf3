"""Python's websocket-client (Debian python3-websocket): a JSON frame, then a binary one after
asking for them. Prints "json N binary M"; exit 1 when either is missing."""
import json
import sys

import websocket

ws = websocket.create_connection(sys.argv[1], timeout=10)
n_json = n_binary = 0
try:
    while not n_binary:
        opcode, data = ws.recv_data()
        if opcode == websocket.ABNF.OPCODE_TEXT:
            m = json.loads(data)
            if m.get("op") == "frame":
                n_json += 1
                if n_json == 1:
                    ws.send(json.dumps({"op": "subscribe", "format": "binary"}))
        elif opcode == websocket.ABNF.OPCODE_BINARY and data:
            n_binary += 1
finally:
    ws.close()
print(f"json {n_json} binary {n_binary}")
sys.exit(0 if n_json and n_binary else 1)
