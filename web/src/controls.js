// One slider and number field per actuator and load of the session. Moving either sends
// PUT /v1/sessions/{id}/actuators/{name} live, at most one request in flight per input (the
// newest value waits and wins); beside each, the value the daemon last reported. While an input
// is left alone, its slider follows the reported value (a profile keeps changing it).

import { el, fmt } from "./dom.js";

const IDLE_MS = 1500; // after the last touch, the slider follows the daemon again

/**
 * The daemon gives no ranges, so the slider's is a guess from the kind of input and its value;
 * the number field takes any value and widens the slider.
 */
function sliderRange(input) {
  const v = Math.abs(input.value) || 0;
  if (input.kind === "load") {
    const m = Math.max(2, 3 * v);
    return [-m, m];
  }
  if (input.kind === "target") {
    // a constraint's target: metres or radians about its value, both ways
    const m = input.unit === "rad" ? Math.max(Math.PI, 2 * v) : Math.max(0.5, 2 * v);
    return [-m, m];
  }
  if (input.type === "transverse") return [0, Math.max(2000, 3 * v)];
  return [0, Math.max(1, 3 * v)]; // cables (N) and anything new
}

class InputRow {
  constructor(input, send) {
    this.name = input.name;
    this.send = send; // (name, value) => Promise
    this.inFlight = false;
    this.pending = null;
    this.touched = 0; // time of the last local change
    const [lo, hi] = sliderRange(input);
    const min = input.kind === "actuator" ? 0 : undefined; // cables pull, muscles squeeze: never < 0
    this.slider = el("input", { type: "range", min: lo, max: hi, step: (hi - lo) / 1000, "aria-label": `${input.name} slider` });
    this.number = el("input", { type: "number", min, step: "any", "aria-label": `${input.name} value` });
    this.reported = el("output", { class: "reported", title: "the value the daemon reports" });
    this.error = el("div", { class: "input-error", hidden: true });
    this.unit = input.unit;
    const badge = input.profile ? el("span", { class: "badge", title: "driven by a profile until set here" }, "profile") : null;
    this.badge = badge;
    this.root = el(
      "div",
      { class: "input-row", dataset: { input: input.name } },
      el("div", { class: "input-head" },
        el("span", { class: "input-name" }, input.name),
        el("span", { class: "input-kind" }, `${input.type}${input.unit ? `, ${input.unit}` : ""}`),
        badge,
        this.reported),
      el("div", { class: "input-edit" }, this.slider, this.number),
      this.error,
    );
    this.slider.addEventListener("input", () => this.#local(Number(this.slider.value), "slider"));
    this.number.addEventListener("change", () => {
      const v = Number(this.number.value);
      if (this.number.value !== "" && Number.isFinite(v)) this.#local(v, "number");
    });
    this.#showValue(input.value);
    this.report(input);
  }

  /** The daemon's view of this input (GET session, stream description, PUT answer). */
  report(input) {
    this.reported.value = `${fmt(input.value, 4)}${this.unit ? ` ${this.unit}` : ""}`;
    if (this.badge) this.badge.hidden = !input.profile;
    const idle = !this.inFlight && this.pending === null && performance.now() - this.touched > IDLE_MS;
    if (idle && document.activeElement !== this.number && document.activeElement !== this.slider) this.#showValue(input.value);
  }

  #showValue(v) {
    if (v > Number(this.slider.max)) this.slider.max = String(v);
    this.slider.value = String(v);
    this.number.value = String(Number(v.toPrecision(6)));
  }

  #local(v, from) {
    this.touched = performance.now();
    if (from === "number") {
      if (v > Number(this.slider.max)) this.slider.max = String(v);
      if (v < Number(this.slider.min)) this.slider.min = String(v);
      this.slider.value = String(v);
    } else {
      this.number.value = String(Number(v.toPrecision(6)));
    }
    if (this.inFlight) {
      this.pending = v;
      return;
    }
    this.#put(v);
  }

  async #put(v) {
    this.inFlight = true;
    try {
      await this.send(this.name, v);
      this.error.hidden = true;
    } catch (e) {
      this.error.hidden = false;
      this.error.textContent = e.errors?.[0]?.message || e.message;
    } finally {
      this.inFlight = false;
      this.touched = performance.now();
    }
    if (this.pending !== null) {
      const next = this.pending;
      this.pending = null;
      this.#put(next);
    }
  }
}

export class Controls {
  /** send(name, value) makes the PUT and resolves with the daemon's answer. */
  constructor(root, send) {
    this.root = root;
    this.send = send;
    this.rows = new Map();
    this.key = "";
  }

  /** inputs: the session's [{name, kind, type, value, profile, unit}]. */
  setInputs(inputs = []) {
    const key = inputs.map((i) => `${i.name}/${i.kind}/${i.type}`).join("|");
    if (key !== this.key) {
      this.key = key;
      this.rows.clear();
      this.root.replaceChildren();
      for (const input of inputs) {
        const row = new InputRow(input, this.send);
        this.rows.set(input.name, row);
        this.root.append(row.root);
      }
      if (!inputs.length) this.root.append(el("p", { class: "muted" }, "This session has no actuators or loads."));
      return;
    }
    for (const input of inputs) this.rows.get(input.name)?.report(input);
  }

  /** A PUT's answer {values: {NAME: v}}: shown at once, before the next poll. */
  applied(values) {
    for (const [name, value] of Object.entries(values || {})) {
      this.rows.get(name)?.report({ value, profile: false });
    }
  }

  clear() {
    this.setInputs([]);
    this.key = "";
  }
}
