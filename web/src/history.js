// The last minute of a session in simulated time: the scalars of every frame (for the time
// series) in column ring buffers, and a thinned set of whole frames (at least FRAME_SPACING of
// simulated time apart) so that the view can scrub back through that minute.

import { armLength, tipPosition } from "./frame.js";

export const SERIES = ["t", "arm", "tipx", "tipy", "tipz", "kinetic", "elastic", "gravity", "volume"];

const WINDOW = 60; // simulated seconds kept
const CAPACITY = 60 * 120; // a minute at the daemon's highest stream rate
const FRAME_SPACING = 0.05; // simulated seconds between kept whole frames: at most 1200 of them

export class History {
  constructor({ window = WINDOW, capacity = CAPACITY, frameSpacing = FRAME_SPACING } = {}) {
    this.window = window;
    this.capacity = capacity;
    this.frameSpacing = frameSpacing;
    this.cols = Object.fromEntries(SERIES.map((k) => [k, new Float64Array(capacity)]));
    this.clear();
  }

  clear() {
    this.head = 0; // index of the oldest entry
    this.count = 0;
    this.frames = []; // oldest first
  }

  /** Adds a frame; time going backwards (a reset, a restore from an older checkpoint) starts over. */
  push(f) {
    if (this.count && f.t < this.last("t")) this.clear();
    if (this.count && f.t === this.last("t")) return; // the same instant again (e.g. after resubscribing)
    const tip = tipPosition(f);
    const e = f.energy || {};
    const row = [f.t, armLength(f), tip[0], tip[1], tip[2], e.kinetic, e.elastic, e.gravity, f.volume_change];
    if (this.count === this.capacity) this.#dropOldest();
    const at = (this.head + this.count) % this.capacity;
    SERIES.forEach((k, j) => (this.cols[k][at] = row[j] ?? NaN));
    this.count++;
    const lastKept = this.frames[this.frames.length - 1];
    if (!lastKept || f.t - lastKept.t >= this.frameSpacing) this.frames.push(f);
    while (this.count && this.value("t", 0) < f.t - this.window) this.#dropOldest();
    while (this.frames.length > 1 && this.frames[0].t < f.t - this.window) this.frames.shift();
  }

  #dropOldest() {
    this.head = (this.head + 1) % this.capacity;
    this.count--;
  }

  /** Series k at entry i, 0 the oldest. */
  value(k, i) {
    return this.cols[k][(this.head + i) % this.capacity];
  }

  last(k) {
    return this.value(k, this.count - 1);
  }

  /** The kept frame nearest to simulated time t (null when empty). */
  frameNear(t) {
    const a = this.frames;
    if (!a.length) return null;
    let lo = 0;
    let hi = a.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (a[mid].t <= t) lo = mid;
      else hi = mid;
    }
    return Math.abs(a[lo].t - t) <= Math.abs(a[hi].t - t) ? a[lo] : a[hi];
  }
}
