// What the live session view and the replay share: a frame on the 3D view, coloured by the
// chosen field through a range that only grows (so colours hold still), and the plots: the
// frame's profiles along the rod and a history's time series, the shown instant marked when
// it is not the newest. One instance drives the page's one 3D view and one set of plots.

import { ColorRange, viridisGradient } from "./colormap.js";
import { el, fmt } from "./dom.js";
import { COLOR_FIELDS, fieldValues, rodNames, selectRod, withSelectedRod } from "./frame.js";

const PLOT_MS = 66; // plots redraw at most ~15 times a second; the 3D view takes every frame

export class FrameDisplay {
  /**
   * rodView, plots; ui: { field (the colour select), rod (a model of several rods: the select of
   * the rod coloured and plotted, in a label hidden otherwise; optional), legend: { bar, lo, hi,
   * label, gravity } }.
   */
  constructor({ rodView, plots, ui }) {
    this.rodView = rodView;
    this.plots = plots;
    this.ui = ui;
    this.field = ui.field.value;
    this.range = new ColorRange(COLOR_FIELDS[this.field].minSpan);
    this.values = new Float32Array(0);
    this.length = 0.5;
    this.shown = null;
    this.history = null;
    this.cursor = undefined;
    this.frames = null; // a whole recording's frames, whose values the range covers
    this.plotTimer = 0;
    this.lastPlot = 0;
    ui.legend.bar.style.background = viridisGradient();
    ui.legend.label.textContent = COLOR_FIELDS[this.field].label;
    ui.field.addEventListener("change", () => {
      this.field = ui.field.value;
      this.range.reset(COLOR_FIELDS[this.field].minSpan);
      ui.legend.label.textContent = COLOR_FIELDS[this.field].label;
      if (this.frames) this.include(this.frames);
      if (this.shown) this.show(this.shown, this.history, this.cursor);
    });
    ui.rod?.addEventListener("change", () => {
      selectRod(ui.rod.value);
      this.range.reset(COLOR_FIELDS[this.field].minSpan);
      // the plots start over from the kept frames, now the picked rod's
      const h = this.history;
      const kept = h?.frames ? [...h.frames] : [];
      h?.clear?.();
      for (const f of kept) h.push(withSelectedRod(f));
      if (this.frames) {
        this.frames.forEach(withSelectedRod);
        this.include(this.frames);
      }
      if (this.shown) this.show(withSelectedRod(this.shown), this.history, this.cursor);
    });
  }

  /** The rod select's options: the frame's rods (hidden for one rod). */
  #rodChoices(f) {
    const select = this.ui.rod;
    if (!select) return;
    const names = rodNames(f);
    const label = select.closest("label") || select;
    label.hidden = names.length === 0;
    if (names.join("\n") !== [...select.options].map((o) => o.value).join("\n")) {
      select.replaceChildren(...names.map((n) => el("option", { value: n }, n)));
    }
    if (f.rod && select.value !== f.rod) select.value = f.rod;
  }

  /**
   * The model as a session's description has it ({length, base_radius, gravity, obstacles}; any may be
   * missing): the profiles' s axis, the view's scale and markers, the legend's gravity.
   */
  setModel(model) {
    this.length = model?.length > 0 ? model.length : 0.5;
    const g = model?.gravity;
    const gravity = Array.isArray(g) && g.length === 3 && Math.hypot(...g) > 0 ? g : null;
    const baseRadius = typeof model?.base_radius === "number" ? model.base_radius : undefined;
    this.rodView.setModel({ length: this.length, baseRadius, gravity, obstacles: model?.obstacles });
    const label = this.ui.legend.gravity;
    label.textContent = !Array.isArray(g) ? "gravity: unknown" : gravity ? `gravity (${gravity.map((v) => fmt(v)).join(", ")}) m/s²` : "no gravity";
    label.dataset.on = String(Boolean(gravity));
  }

  /** The colour range starts over (another session, or its time went back). */
  resetRange() {
    this.range.reset();
    this.frames = null;
  }

  /** Widens the colour range over every frame given (a recording: colours that stay put while it plays). */
  include(frames) {
    this.frames = frames;
    for (const f of frames) {
      if (this.values.length < f.n) this.values = new Float32Array(f.n);
      fieldValues(f, this.field, this.values);
      this.range.include(this.values, f.n);
    }
  }

  /** Shows frame f on the 3D view and, soon, in the plots: history's series, cursor (a t) marked. */
  show(f, history, cursor) {
    this.shown = f;
    this.history = history;
    this.cursor = cursor;
    this.#rodChoices(f);
    if (this.values.length < f.n) this.values = new Float32Array(f.n);
    fieldValues(f, this.field, this.values);
    this.range.include(this.values, f.n);
    this.rodView.show(f, this.values, this.range);
    this.#schedulePlots();
  }

  /** Saves the 3D view as a PNG named for what is shown (name) and its time; the file's name. */
  screenshot(name) {
    const url = this.rodView.snapshot();
    if (!url) return null;
    const t = this.shown ? `-t${this.shown.t.toFixed(2)}s` : "";
    const file = `rodd-${name}${t}.png`.replace(/[^\w.-]+/g, "_");
    const a = el("a", { href: url, download: file });
    document.body.append(a);
    a.click();
    a.remove();
    return file;
  }

  /** Draws the plots again (their size changed). */
  redraw() {
    if (this.shown) this.#schedulePlots();
  }

  /** Forgets what was shown (the plots keep their last picture until the next frame). */
  clear() {
    clearTimeout(this.plotTimer);
    this.plotTimer = 0;
    this.shown = this.history = null;
    this.cursor = undefined;
    this.resetRange();
    this.rodView.clear();
  }

  #schedulePlots() {
    if (this.plotTimer) return;
    const wait = Math.max(0, PLOT_MS - (performance.now() - this.lastPlot));
    this.plotTimer = setTimeout(() => {
      requestAnimationFrame(() => {
        this.plotTimer = 0;
        this.lastPlot = performance.now();
        this.#drawPlots();
      });
    }, wait);
  }

  #drawPlots() {
    const f = this.shown;
    if (!f) return;
    this.plots.drawProfiles(f, this.length);
    if (this.history) this.plots.drawSeries(this.history, this.cursor);
    const [lo, hi] = this.range.bounds();
    const { unit } = COLOR_FIELDS[this.field];
    this.ui.legend.lo.textContent = fmt(lo);
    this.ui.legend.hi.textContent = `${fmt(hi)}${unit ? ` ${unit}` : ""}`;
  }
}
