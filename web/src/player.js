// Replay's transport: play and pause at a speed (simulated seconds per wall second), a scrub
// bar over every frame of the recording, and stepping frame by frame. It holds only the
// frames' times; onShow(i) draws frame i. Playing shows, at each animation frame, the last
// frame at or before the played time, and stops at the end.

import { fmtTime } from "./dom.js";

export class Player {
  /** ui: { play, back, forward, slider, label, speed } elements; onShow(i). */
  constructor(ui, { onShow }) {
    this.ui = ui;
    this.onShow = onShow;
    this.times = new Float64Array(0);
    this.index = 0;
    this.playing = false;
    this.speed = Number(ui.speed.value) || 1;
    this.raf = 0;
    ui.play.addEventListener("click", () => this.toggle());
    ui.back.addEventListener("click", () => this.step(-1));
    ui.forward.addEventListener("click", () => this.step(1));
    ui.slider.addEventListener("input", () => this.seek(Number(ui.slider.value), { keepPlaying: true }));
    ui.speed.addEventListener("change", () => this.setSpeed(Number(ui.speed.value)));
  }

  /** A recording's frame times (not decreasing): shows its first frame, paused. */
  load(times) {
    this.pause();
    this.times = Float64Array.from(times);
    this.ui.slider.min = "0";
    this.ui.slider.max = String(Math.max(0, this.times.length - 1));
    this.ui.slider.step = "1";
    this.seek(0);
  }

  get count() {
    return this.times.length;
  }

  get t() {
    return this.times[this.index];
  }

  /** Shows frame i (clamped); pauses unless keepPlaying (a scrub while playing goes on from there). */
  seek(i, { keepPlaying = false } = {}) {
    if (!this.times.length) return;
    this.index = Math.max(0, Math.min(this.times.length - 1, Math.round(i)));
    if (this.playing && keepPlaying) this.#restartClock();
    else if (this.playing) this.pause();
    this.ui.slider.value = String(this.index);
    this.#label();
    this.onShow(this.index);
  }

  /** k frames on (or back), paused. */
  step(k) {
    this.pause();
    this.seek(this.index + k);
  }

  play() {
    if (this.playing || this.times.length < 2) return;
    if (this.index === this.times.length - 1) this.seek(0); // from the start again
    this.playing = true;
    this.#restartClock();
    this.#sync();
    const tick = (now) => {
      if (!this.playing) return;
      const t = this.t0 + ((now - this.wall0) / 1000) * this.speed;
      const i = this.#indexAt(t);
      if (i !== this.index) {
        this.index = i;
        this.ui.slider.value = String(i);
        this.#label();
        this.onShow(i);
      }
      if (i === this.times.length - 1) this.pause();
      else this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  pause() {
    if (!this.playing) return;
    this.playing = false;
    cancelAnimationFrame(this.raf);
    this.#sync();
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  /** Simulated seconds per wall second. */
  setSpeed(x) {
    if (!(x > 0)) return;
    this.speed = x;
    if (String(x) !== this.ui.speed.value) this.ui.speed.value = String(x);
    if (this.playing) this.#restartClock();
  }

  /** Stops and forgets the recording. */
  clear() {
    this.pause();
    this.times = new Float64Array(0);
    this.index = 0;
    this.ui.label.textContent = "";
  }

  #restartClock() {
    this.t0 = this.times[this.index];
    this.wall0 = performance.now();
  }

  /** The last frame at or before t (the first when t is before it). */
  #indexAt(t) {
    const a = this.times;
    let lo = 0;
    let hi = a.length - 1;
    if (t >= a[hi]) return hi;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (a[mid] <= t) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  #sync() {
    this.ui.play.textContent = this.playing ? "Pause" : "Play";
    this.ui.play.setAttribute("aria-pressed", String(this.playing));
  }

  #label() {
    const n = this.times.length;
    this.ui.label.textContent = n ? `${fmtTime(this.t)} of ${fmtTime(this.times[n - 1])} · frame ${this.index + 1}/${n}` : "";
  }
}
