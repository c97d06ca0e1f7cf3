// One line plot (uPlot): a title with CSV and PNG export, axes whose width follows their tick
// labels (so a minus sign or a long number is never cut), a legend that reads the values under
// the cursor, drag to zoom into x (double-click or "fit" to go back), an optional vertical mark
// at the scrubbed instant. Colours come from the theme and follow it. Data comes as a count
// and accessors, as from the history's ring buffers.

import uPlot from "uplot";
import { el } from "./dom.js";
import { onThemeChange, palette } from "./theme.js";

const FONT = "11px system-ui, sans-serif";
const HEIGHT = 170; // CSS pixels of the plot area with its axes

/**
 * Tick labels with the decimals their step needs and no more: 0.5537, not .553703; exactly
 * "0" at zero (never -2.8e-17); exponent notation only for very large or small steps.
 */
export function tickLabels(splits, step) {
  const big = splits.reduce((m, v) => Math.max(m, Math.abs(v ?? 0)), 0);
  if (big >= 1e5 || (step > 0 && step < 1e-4)) {
    const digits = Math.max(0, Math.min(6, Math.ceil(Math.log10(big / step || 1))));
    return splits.map((v) => (v == null ? "" : Math.abs(v) < step * 1e-6 ? "0" : v.toExponential(digits)));
  }
  const decimals = step > 0 ? Math.max(0, Math.min(8, -Math.floor(Math.log10(step) + 1e-9))) : 0;
  return splits.map((v) => {
    if (v == null) return "";
    const text = v.toFixed(decimals);
    return Number(text) === 0 ? "0" : text;
  });
}

/**
 * A y range around [lo, hi] with a margin, never narrower than 1e-3 of its level nor than
 * floor (the plot's smallest meaningful span: a still, straight rod's curvature is 0, not
 * float noise blown up to fill the plot).
 */
export function yRange(lo, hi, floor = 1e-12) {
  if (!(hi >= lo)) return [0, 1];
  const level = Math.max(Math.abs(lo), Math.abs(hi));
  const minSpan = Math.max(1e-3 * level, floor);
  if (hi - lo < minSpan) {
    const mid = (hi + lo) / 2;
    return [mid - minSpan / 2, mid + minSpan / 2];
  }
  const pad = 0.06 * (hi - lo);
  return [lo - pad, hi + pad];
}

/** Cursor readout: 4 significant digits. */
function readout(v) {
  if (v == null || !Number.isFinite(v)) return "–";
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(3);
  return String(Number(v.toPrecision(4)));
}

/** An axis wide (or tall) enough for its longest tick label. */
function axisSize(u, values, axisIdx, cycleNum) {
  const axis = u.axes[axisIdx];
  if (cycleNum > 1) return axis._size; // uPlot asks again after laying out; keep the first answer
  let size = (axis.ticks?.size ?? 4) + (axis.gap ?? 4) + 4;
  if (axis.side === 2) return size + 12; // x: one line of text
  const longest = (values ?? []).reduce((a, v) => (String(v).length > a.length ? String(v) : a), "");
  u.ctx.font = FONT;
  size += u.ctx.measureText(longest).width;
  return Math.ceil(size);
}

function download(name, blob) {
  const a = el("a", { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export class Plot {
  /**
   * root: the figure to fill; key names the files; series: [{label}] (colours from the theme);
   * unit: appended to the title; minSpan: the narrowest y span shown, in the plotted unit.
   */
  constructor(root, { key, title, unit = "", xLabel = "", series, minSpan = 1e-12 }) {
    this.minSpan = minSpan;
    this.key = key;
    this.title = unit ? `${title} (${unit})` : title;
    this.xLabel = xLabel;
    this.seriesDefs = series;
    this.data = [[], ...series.map(() => [])];
    this.xRange = null;
    this.zoom = null; // [x0, x1] the user dragged, else null
    this.mark = undefined;

    const csv = el("button", { type: "button", class: "plot-action", title: "the plotted data as CSV", onclick: () => this.downloadCsv() }, "CSV");
    const png = el("button", { type: "button", class: "plot-action", title: "this plot as a PNG picture", onclick: () => this.downloadPng() }, "PNG");
    this.fitButton = el("button", { type: "button", class: "plot-action", hidden: true, title: "undo the zoom (or double-click the plot)", onclick: () => this.unzoom() }, "fit");
    root.append(el("figcaption", { class: "plot-head" }, el("span", { class: "plot-title" }, this.title), this.fitButton, csv, png));
    this.body = el("div", { class: "plot-body" });
    root.append(this.body);
    this.u = new uPlot(this.#options(), this.data, this.body);
    this.body.addEventListener("dblclick", () => this.unzoom());
    new ResizeObserver(() => this.#resize()).observe(this.body);
    onThemeChange(() => this.u.redraw(false, true));
  }

  #options() {
    const colour = (k) => () => palette().series[k % 4];
    const axis = (side, label) => ({
      side,
      label,
      font: FONT,
      labelFont: FONT,
      labelSize: label ? 16 : 0,
      size: axisSize,
      gap: 4,
      stroke: () => palette().plotText,
      grid: { stroke: () => palette().plotGrid, width: 1 },
      ticks: { stroke: () => palette().plotAxis, width: 1, size: 4 },
      values: (u, splits, axisIdx, space, step) => tickLabels(splits, step),
    });
    return {
      width: 300,
      height: HEIGHT,
      pxAlign: 0,
      scales: {
        x: { time: false, range: (u, lo, hi) => this.zoom ?? this.xRange ?? (hi > lo ? [lo, hi] : [lo - 1, lo + 1]) },
        y: { range: (u, lo, hi) => yRange(lo, hi, this.minSpan) },
      },
      axes: [axis(2, this.xLabel), axis(3, "")],
      series: [
        { label: this.xLabel || "x", value: (u, v) => readout(v) },
        ...this.seriesDefs.map((s, k) => ({ label: s.label, stroke: colour(k), width: 1.5, value: (u, v) => readout(v), points: { show: false } })),
      ],
      cursor: { drag: { x: true, y: false, setScale: false }, points: { size: 5 } },
      legend: { live: true },
      hooks: {
        setSelect: [(u) => {
          if (u.select.width > 4) this.#zoomTo(u.posToVal(u.select.left, "x"), u.posToVal(u.select.left + u.select.width, "x"));
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
        }],
        draw: [(u) => this.#drawMark(u)],
      },
    };
  }

  /**
   * n points; x(i) and ys[k](i) give the values. opts: xRange [lo, hi] (else the data's),
   * cursor (an x to mark), scale (multiplies every y, for % and the like).
   */
  draw(n, x, ys, opts = {}) {
    const scale = opts.scale ?? 1;
    const xs = new Float64Array(n);
    for (let i = 0; i < n; i++) xs[i] = x(i);
    const cols = ys.map((y) => {
      const col = new Array(n);
      for (let i = 0; i < n; i++) {
        const v = y(i) * scale;
        col[i] = Number.isFinite(v) ? v : null; // a gap where the daemon sent null
      }
      return col;
    });
    this.data = [xs, ...cols];
    this.xRange = opts.xRange && opts.xRange[1] > opts.xRange[0] ? opts.xRange : null;
    this.mark = opts.cursor;
    this.u.setData(this.data);
  }

  #zoomTo(a, b) {
    if (!(b > a)) return;
    this.zoom = [a, b];
    this.fitButton.hidden = false;
    this.u.setData(this.data);
  }

  unzoom() {
    this.zoom = null;
    this.fitButton.hidden = true;
    this.u.setData(this.data);
  }

  #drawMark(u) {
    const t = this.mark;
    if (t === undefined || t < u.scales.x.min || t > u.scales.x.max) return;
    const { ctx, bbox } = u;
    const x = Math.round(u.valToPos(t, "x", true)) + 0.5;
    ctx.save();
    ctx.strokeStyle = palette().cursor;
    ctx.setLineDash([3, 3]);
    ctx.beginPath();
    ctx.moveTo(x, bbox.top);
    ctx.lineTo(x, bbox.top + bbox.height);
    ctx.stroke();
    ctx.restore();
  }

  #resize() {
    const width = Math.max(120, Math.floor(this.body.clientWidth));
    if (width !== this.u.width) this.u.setSize({ width, height: HEIGHT });
  }

  /** The plotted data (the zoomed window only, when zoomed) as CSV text. */
  csv() {
    const [xs, ...cols] = this.data;
    const unitless = (label) => `"${String(label).replaceAll('"', '""')}"`;
    const lines = [[this.xLabel || "x", ...this.seriesDefs.map((s) => s.label)].map(unitless).join(",")];
    for (let i = 0; i < xs.length; i++) {
      if (this.zoom && (xs[i] < this.zoom[0] || xs[i] > this.zoom[1])) continue;
      lines.push([xs[i], ...cols.map((c) => (c[i] == null ? "" : c[i]))].join(","));
    }
    return `# ${this.title}\n${lines.join("\n")}\n`;
  }

  downloadCsv() {
    download(`rodd-${this.key}.csv`, new Blob([this.csv()], { type: "text/csv" }));
  }

  /** The plot as drawn, with its title and series names above it, as a PNG canvas. */
  picture() {
    const src = this.u.ctx.canvas;
    const dpr = src.width / this.u.width || 1;
    const head = Math.round(20 * dpr);
    const out = document.createElement("canvas");
    out.width = src.width;
    out.height = src.height + head;
    const ctx = out.getContext("2d");
    const p = palette();
    ctx.fillStyle = p.plotBackground;
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.font = `${Math.round(12 * dpr)}px system-ui, sans-serif`;
    ctx.textBaseline = "middle";
    ctx.fillStyle = p.plotText;
    ctx.fillText(this.title, 6 * dpr, head / 2);
    let x = out.width - 6 * dpr;
    ctx.textAlign = "right";
    for (let k = this.seriesDefs.length - 1; k >= 0 && this.seriesDefs.length > 1; k--) {
      ctx.fillStyle = p.series[k % 4];
      ctx.fillText(this.seriesDefs[k].label, x, head / 2);
      x -= ctx.measureText(this.seriesDefs[k].label).width + 10 * dpr;
    }
    ctx.drawImage(src, 0, head);
    return out;
  }

  downloadPng() {
    this.picture().toBlob((blob) => blob && download(`rodd-${this.key}.png`, blob), "image/png");
  }
}
