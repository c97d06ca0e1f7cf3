// Node's own WebSocket (undici; `node --experimental-websocket` on Node 20, built in from 22):
// a JSON frame, then a binary one after asking for them. Prints "json N binary M"; exits 1 on
// an error or when either is missing after 10 s.
const url = process.argv[2];
const ws = new WebSocket(url);
ws.binaryType = "arraybuffer";
let json = 0, binary = 0;
const done = (code, why) => {
  if (why) console.error(why);
  console.log(`json ${json} binary ${binary}`);
  process.exit(code);
};
setTimeout(() => done(1, "timed out"), 10000);
ws.onerror = (e) => done(1, `error: ${e.message ?? e.error?.message ?? "?"}`);
ws.onmessage = (e) => {
  if (typeof e.data === "string") {
    const m = JSON.parse(e.data);
    if (m.op === "frame" && json++ === 0) ws.send(JSON.stringify({ op: "subscribe", format: "binary" }));
  } else if (e.data.byteLength > 0) {
    binary++;
    ws.close();
    done(json ? 0 : 1);
  }
};
