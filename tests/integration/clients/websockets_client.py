"""Python's websockets (Debian python3-websockets, asyncio): a JSON frame, then a binary one
after asking for them. Prints "json N binary M"; exit 1 when either is missing."""
import asyncio
import json
import sys

import websockets


async def main(url):
    n_json = n_binary = 0
    async with websockets.connect(url, open_timeout=10) as ws:
        while not n_binary:
            data = await asyncio.wait_for(ws.recv(), 10)
            if isinstance(data, str):
                if json.loads(data).get("op") == "frame":
                    n_json += 1
                    if n_json == 1:
                        await ws.send(json.dumps({"op": "subscribe", "format": "binary"}))
            elif data:
                n_binary += 1
    print(f"json {n_json} binary {n_binary}")
    return 0 if n_json and n_binary else 1


sys.exit(asyncio.run(main(sys.argv[1])))
