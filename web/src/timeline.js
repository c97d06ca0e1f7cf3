// Pause and scrub. "Pause view" freezes what is shown, and what is recorded, at the newest
// frame; the slider then picks any instant of the recorded minute, which the 3D view and the
// profiles show while the time series mark it. "Live" goes back to the newest frame; frames
// that came while paused are not in the history (the series show a straight gap).

import { fmtTime } from "./dom.js";

const STEPS = 1000;

export class Timeline {
  /** span() gives the recorded [t0, t1]; onChange(frozen, t) with t the instant to show when frozen. */
  constructor({ pause, live, slider, label }, { span, onChange }) {
    this.ui = { pause, live, slider, label };
    this.span = span;
    this.onChange = onChange;
    this.frozen = false;
    this.t0 = 0;
    this.t1 = 0;
    slider.max = String(STEPS);
    pause.addEventListener("click", () => (this.frozen ? this.resume() : this.freeze()));
    live.addEventListener("click", () => this.resume());
    slider.addEventListener("input", () => {
      if (this.frozen) this.onChange(true, this.selected());
      this.#label();
    });
    this.#sync();
  }

  freeze() {
    [this.t0, this.t1] = this.span();
    this.frozen = true;
    this.ui.slider.value = String(STEPS);
    this.#sync();
    this.onChange(true, this.selected());
  }

  resume() {
    if (!this.frozen) return;
    this.frozen = false;
    this.#sync();
    this.onChange(false);
  }

  /** Moves the scrubbed instant by a fraction of the recorded span (freezing the view first). */
  step(fraction) {
    if (!this.frozen) this.freeze();
    const v = Number(this.ui.slider.value) + Math.round(fraction * STEPS);
    this.ui.slider.value = String(Math.max(0, Math.min(STEPS, v)));
    this.onChange(true, this.selected());
    this.#label();
  }

  selected() {
    return this.t0 + ((this.t1 - this.t0) * Number(this.ui.slider.value)) / STEPS;
  }

  #sync() {
    const { pause, live, slider } = this.ui;
    pause.textContent = this.frozen ? "Resume" : "Pause view";
    pause.setAttribute("aria-pressed", String(this.frozen));
    live.disabled = !this.frozen;
    slider.disabled = !this.frozen;
    this.#label();
  }

  #label() {
    const { label } = this.ui;
    if (!this.frozen) {
      label.textContent = "live";
      return;
    }
    const t = this.selected();
    label.textContent = `${fmtTime(t)} (${(t - this.t1).toFixed(2)} s)`;
  }
}
