// One session's stream: connect, subscribe, decode, and reconnect with exponential backoff
// (and jitter) whenever the connection drops. Where to connect comes from resolveUrl() before
// every attempt, so a single-use ticket is fetched anew each time the daemon has auth on, and
// a session that no longer exists (404) ends the retries instead of looping.

import { decodeBinaryFrame, decodeJsonFrame } from "./frame.js";

const BACKOFF_MIN = 500; // ms before the first retry; doubles per failed attempt
const BACKOFF_MAX = 8000;
const PING_EVERY = 10000; // ms; the pong proves the connection is alive while no frames flow
const SILENCE_LIMIT = 25000; // ms without any message before the connection counts as dead

/**
 * on: { connection(state, info), frame(f), description(session), state(msg), status(msg) }
 * connection states: connecting, open, reconnecting (info.delay, info.reason), gone, closed.
 */
export class RodStream {
  constructor({ resolveUrl, subscription, on }) {
    this.resolveUrl = resolveUrl;
    this.subscription = subscription;
    this.on = on;
    this.ws = null;
    this.stopped = true;
    this.attempt = 0; // failed attempts since frames last flowed
    this.retryTimer = 0;
    this.pingTimer = 0;
    this.lastMessage = 0;
    this.state = "closed";
    this.generation = 0; // bumped by start/stop/restart: an older attempt still awaiting its URL gives up
  }

  start() {
    this.generation++;
    this.stopped = false;
    this.attempt = 0;
    this.#connect();
  }

  stop() {
    this.generation++;
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.#closeSocket(1000, "viewer closed");
    this.#setState("closed");
  }

  /** Drops the connection now and connects again at once (e.g. a new token). */
  restart() {
    if (this.stopped) return;
    this.generation++;
    clearTimeout(this.retryTimer);
    this.#closeSocket(1000, "reconnecting");
    this.attempt = 0;
    this.#connect();
  }

  /** Changes the subscription (rate, format, fields); sent now if connected. */
  subscribe(changes) {
    this.subscription = { ...this.subscription, ...changes };
    this.#send({ op: "subscribe", ...this.subscription });
  }

  #setState(state, info = {}) {
    this.state = state;
    this.on.connection?.(state, info);
  }

  async #connect() {
    const generation = this.generation;
    this.#setState("connecting", { attempt: this.attempt });
    let url;
    try {
      url = await this.resolveUrl();
    } catch (e) {
      if (this.stopped || generation !== this.generation) return;
      if (e.status === 404) this.#setState("gone", { reason: "the session no longer exists" });
      else this.#retry(e.status === 0 ? e.title : e.message);
      return;
    }
    if (this.stopped || generation !== this.generation) return;
    let ws;
    try {
      ws = new WebSocket(url);
    } catch (e) {
      this.#retry(`bad stream URL: ${e.message}`);
      return;
    }
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    ws.onopen = () => {
      this.lastMessage = performance.now();
      this.#setState("open");
      this.#send({ op: "subscribe", ...this.subscription });
      this.pingTimer = setInterval(() => this.#keepAlive(), PING_EVERY);
    };
    ws.onmessage = (ev) => this.#receive(ev.data);
    ws.onerror = () => {}; // onclose follows, with what there is to know
    ws.onclose = (ev) => {
      if (this.ws !== ws) return; // an old socket we already let go
      this.ws = null;
      clearInterval(this.pingTimer);
      if (this.stopped) return;
      // the daemon says which 1001 this is: a deleted session does not come back
      if (ev.code === 1001 && ev.reason === "session deleted") this.#setState("gone", { reason: "the session was deleted" });
      else this.#retry(ev.reason || `connection closed (${ev.code})`);
    };
  }

  #retry(reason) {
    const delay = Math.min(BACKOFF_MAX, BACKOFF_MIN * 2 ** this.attempt) * (0.8 + 0.4 * Math.random());
    this.attempt++;
    this.#setState("reconnecting", { reason, delay, attempt: this.attempt });
    const generation = this.generation;
    this.retryTimer = setTimeout(() => generation === this.generation && this.#connect(), delay);
  }

  #keepAlive() {
    if (performance.now() - this.lastMessage > SILENCE_LIMIT) {
      // no frame, no pong: the peer is gone without a close (network loss, a frozen daemon)
      const ws = this.ws;
      this.#closeSocket(4000, "silent");
      if (ws && !this.stopped) this.#retry("no message for 25 s");
      return;
    }
    this.#send({ op: "ping" });
  }

  #closeSocket(code, reason) {
    clearInterval(this.pingTimer);
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onclose = ws.onmessage = ws.onopen = null;
      try {
        ws.close(code, reason);
      } catch {
        // already closing
      }
    }
  }

  #send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  #receive(data) {
    this.lastMessage = performance.now();
    if (typeof data !== "string") {
      this.#frame(() => decodeBinaryFrame(data));
      return;
    }
    let m;
    try {
      m = JSON.parse(data);
    } catch {
      this.on.status?.({ level: "error", message: "the daemon sent a message that is not JSON" });
      return;
    }
    switch (m.op) {
      case "frame":
        this.#frame(() => decodeJsonFrame(m));
        break;
      case "description":
        this.on.description?.(m.session);
        break;
      case "state":
        this.on.state?.(m);
        break;
      case "status":
        this.on.status?.(m);
        break;
      default: // hello, subscribed, pong: nothing to do
    }
  }

  #frame(decode) {
    let f;
    try {
      f = decode();
    } catch (e) {
      this.on.status?.({ level: "error", message: e.message });
      return;
    }
    this.attempt = 0; // frames flow: the next drop starts the backoff afresh
    this.on.frame?.(f);
  }
}
