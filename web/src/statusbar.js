// The status line and the connection pill: stream connection state (and the retry countdown),
// frames received per second, frames the daemon dropped for this viewer, the simulation's
// real-time factor, and the last message from the daemon.

import { fmt } from "./dom.js";

const LABELS = {
  closed: "no stream",
  connecting: "connecting…",
  open: "live",
  reconnecting: "reconnecting",
  gone: "session gone",
};

export class StatusBar {
  constructor({ pill, connection, fps, dropped, rtf, message }) {
    this.ui = { pill, connection, fps, dropped, rtf, message };
    this.arrivals = []; // receive times of the last second's frames
    this.droppedBefore = 0; // dropped frames on earlier connections
    this.droppedNow = 0;
    this.timer = setInterval(() => this.#tick(), 500);
  }

  connection(state, info = {}) {
    const { pill, connection } = this.ui;
    let text = LABELS[state] || state;
    if (state === "reconnecting") text += ` in ${(info.delay / 1000).toFixed(1)} s`;
    pill.textContent = text;
    pill.dataset.state = state;
    pill.title = info.reason || "";
    connection.textContent = info.reason && state !== "open" ? `${text} (${info.reason})` : text;
    connection.dataset.state = state;
    if (state === "open") {
      // the daemon counts dropped frames per connection
      this.droppedBefore += this.droppedNow;
      this.droppedNow = 0;
    }
  }

  frame() {
    this.arrivals.push(performance.now());
  }

  /** A stream status message: {level, message, dropped?}. */
  status(m) {
    if (typeof m.dropped === "number") this.droppedNow = m.dropped;
    this.ui.dropped.textContent = String(this.droppedBefore + this.droppedNow);
    this.message(m.message, m.level);
  }

  message(text, level = "info") {
    this.ui.message.textContent = text || "";
    this.ui.message.dataset.level = level;
  }

  /**
   * stats of GET /v1/sessions/{id}: real_time_factor is simulated seconds per wall second (1 is
   * real time, above 1 faster); behind_pace when a paced session falls short of its pace.
   */
  realTimeFactor(stats, state) {
    const value = stats?.real_time_factor;
    const running = state === "running";
    this.ui.rtf.textContent = running && value > 0 ? `${fmt(value, 2)}×` : "–";
    const behind = running && Boolean(stats?.behind_pace);
    this.ui.rtf.dataset.behind = String(behind);
    const solver = stats?.solver_real_time_factor;
    this.ui.rtf.title = behind
      ? `behind its pace: the solver manages ${fmt(solver, 2)}× real time on its own`
      : solver > 0
        ? `the solver alone could run ${fmt(solver, 2)}× real time`
        : "";
  }

  reset() {
    this.arrivals = [];
    this.droppedBefore = this.droppedNow = 0;
    this.ui.dropped.textContent = "0";
    this.ui.rtf.textContent = "–";
    this.ui.rtf.dataset.behind = "false";
    this.message("");
  }

  /** Frames per second over the last second. */
  get fps() {
    const now = performance.now();
    while (this.arrivals.length && this.arrivals[0] < now - 1000) this.arrivals.shift();
    return this.arrivals.length;
  }

  #tick() {
    this.ui.fps.textContent = String(this.fps);
  }
}
