// The plots: two profiles along the rod from the shown frame, rho(s) and kappa(s), and four
// time series over the recorded minute: arm length, tip position, energies, volume change.

import { el } from "./dom.js";
import { Plot } from "./plot.js";

export class Plots {
  constructor(root) {
    const make = (key, opts) => {
      const figure = el("figure", { class: "plot-box", dataset: { plot: key } });
      root.append(figure);
      return new Plot(figure, { key, ...opts });
    };
    const along = { xLabel: "s (m)" };
    const over = { xLabel: "t (s)" };
    this.rho = make("rho", { ...along, title: "ρ(s), inflation", minSpan: 1e-3, series: [{ label: "ρ" }] });
    this.kappa = make("kappa", {
      ...along,
      title: "κ(s), curvature",
      unit: "1/m",
      minSpan: 0.1,
      series: [{ label: "κ1" }, { label: "κ2" }, { label: "κ3" }],
    });
    this.arm = make("arm", { ...over, title: "arm length ∫|ν| ds", unit: "m", minSpan: 1e-4, series: [{ label: "length" }] });
    this.tip = make("tip", { ...over, title: "tip position", unit: "m", minSpan: 1e-3, series: [{ label: "x" }, { label: "y" }, { label: "z" }] });
    this.energy = make("energy", {
      ...over,
      title: "energy",
      unit: "J",
      minSpan: 1e-6,
      series: [{ label: "kinetic" }, { label: "elastic" }, { label: "gravity" }],
    });
    this.volume = make("volume", { ...over, title: "volume change ΔV/V₀", unit: "%", minSpan: 1e-3, series: [{ label: "ΔV" }] });
  }

  /** rho and kappa along the rod of frame f, over the reference length [0, L]. */
  drawProfiles(f, length) {
    const s = (i) => f.s[i];
    const xRange = [0, length || f.s[f.n - 1] || 1];
    this.rho.draw(f.n, s, [(i) => f.rho[i]], { xRange });
    this.kappa.draw(f.n, s, [0, 1, 2].map((k) => (i) => f.kappa[3 * i + k]), { xRange });
  }

  /** The time series of history h; cursor marks the shown instant when scrubbing. */
  drawSeries(h, cursor) {
    const n = h.count;
    const t = (i) => h.value("t", i);
    const col = (k) => (i) => h.value(k, i);
    const opts = { cursor, xRange: n > 1 ? [t(0), t(n - 1)] : undefined };
    this.arm.draw(n, t, [col("arm")], opts);
    this.tip.draw(n, t, [col("tipx"), col("tipy"), col("tipz")], opts);
    this.energy.draw(n, t, [col("kinetic"), col("elastic"), col("gravity")], opts);
    this.volume.draw(n, t, [col("volume")], { ...opts, scale: 100 });
  }

  /** Every plot by its key, for the tests and the console. */
  get all() {
    return { rho: this.rho, kappa: this.kappa, arm: this.arm, tip: this.tip, energy: this.energy, volume: this.volume };
  }
}
