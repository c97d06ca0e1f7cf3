// A small line plot on a canvas: a title, round ticks on both axes, any number of series over
// one x, a legend, an optional vertical cursor. The canvas follows its CSS size times
// devicePixelRatio. Data comes as a count and accessors, so ring buffers need no copying.

const M = { left: 48, right: 10, top: 20, bottom: 20 }; // margins, CSS pixels
const AXIS = "#5b6876";
const TEXT = "#9fb0c0";
const GRID = "#1f2933";

/** A step of 1, 2 or 5 times a power of ten giving about `count` intervals over span. */
function niceStep(span, count) {
  const raw = span / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

function tickLabel(v, step) {
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e4 || a < 1e-3) return v.toExponential(1);
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  return v.toFixed(Math.min(decimals, 6));
}

export class Plot {
  /** series: [{label, color}]; unit: appended to the title. */
  constructor(canvas, { title, unit = "", xLabel = "", series }) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.title = unit ? `${title} (${unit})` : title;
    this.xLabel = xLabel;
    this.series = series;
  }

  /**
   * n points; x(i) and ys[k](i) give the values. opts: xRange [lo, hi], yRange [lo, hi] (else
   * fitted), cursor (an x to mark), scale (multiplies every y, for % and the like).
   */
  draw(n, x, ys, opts = {}) {
    const { ctx, canvas } = this;
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth;
    const h = canvas.clientHeight;
    if (!w || !h) return;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.font = "11px system-ui, sans-serif";
    ctx.fillStyle = TEXT;
    ctx.textBaseline = "top";
    ctx.textAlign = "left";
    ctx.fillText(this.title, M.left, 3);
    this.#legend(w);

    const pw = w - M.left - M.right;
    const ph = h - M.top - M.bottom;
    const scale = opts.scale ?? 1;
    const [x0, x1] = opts.xRange ?? (n ? [x(0), x(n - 1)] : [0, 1]);
    let [y0, y1] = opts.yRange ?? this.#fitY(n, ys, scale);
    if (!(y1 > y0)) {
      const pad = Math.abs(y0) * 0.05 || 1e-3;
      y0 -= pad;
      y1 += pad;
    }
    const xs = x1 > x0 ? pw / (x1 - x0) : 0;
    const px = (v) => M.left + (v - x0) * xs;
    const py = (v) => M.top + ph - ((v - y0) / (y1 - y0)) * ph;

    this.#axes(x0, x1, y0, y1, px, py, pw, ph);
    if (!n) return;
    // about two points per pixel column is all a line can show
    const stride = Math.max(1, Math.floor(n / (2 * pw)));
    ctx.save();
    ctx.beginPath();
    ctx.rect(M.left, M.top, pw, ph);
    ctx.clip();
    ctx.lineWidth = 1.5;
    ys.forEach((y, k) => {
      ctx.strokeStyle = this.series[k].color;
      ctx.beginPath();
      let pen = false;
      for (let i = 0; ; i = Math.min(i + stride, n - 1)) {
        const v = y(i) * scale;
        if (Number.isFinite(v)) {
          if (pen) ctx.lineTo(px(x(i)), py(v));
          else ctx.moveTo(px(x(i)), py(v));
        }
        pen = Number.isFinite(v); // a gap where the daemon sent null
        if (i === n - 1) break;
      }
      ctx.stroke();
    });
    if (opts.cursor !== undefined && opts.cursor >= x0 && opts.cursor <= x1) {
      ctx.strokeStyle = "#e8eef4";
      ctx.setLineDash([3, 3]);
      ctx.beginPath();
      ctx.moveTo(px(opts.cursor), M.top);
      ctx.lineTo(px(opts.cursor), M.top + ph);
      ctx.stroke();
    }
    ctx.restore();
  }

  #fitY(n, ys, scale) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const y of ys) {
      for (let i = 0; i < n; i++) {
        const v = y(i) * scale;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
    }
    if (!(hi >= lo)) return [0, 1];
    const pad = 0.06 * (hi - lo);
    return [lo - pad, hi + pad];
  }

  #legend(w) {
    if (this.series.length < 2) return;
    const { ctx } = this;
    ctx.textAlign = "right";
    let right = w - M.right;
    for (let k = this.series.length - 1; k >= 0; k--) {
      const s = this.series[k];
      ctx.fillStyle = s.color;
      ctx.fillText(s.label, right, 3);
      right -= ctx.measureText(s.label).width + 10;
    }
    ctx.textAlign = "left";
  }

  #axes(x0, x1, y0, y1, px, py, pw, ph) {
    const { ctx } = this;
    ctx.strokeStyle = GRID;
    ctx.fillStyle = TEXT;
    ctx.lineWidth = 1;
    const ys = niceStep(y1 - y0, Math.max(2, Math.floor(ph / 28)));
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (let v = Math.ceil(y0 / ys) * ys; v <= y1 + 1e-9 * ys; v += ys) {
      const y = Math.round(py(v)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(M.left, y);
      ctx.lineTo(M.left + pw, y);
      ctx.stroke();
      ctx.fillText(tickLabel(v, ys), M.left - 4, y);
    }
    if (x1 > x0) {
      const xs = niceStep(x1 - x0, Math.max(2, Math.floor(pw / 70)));
      ctx.textAlign = "center";
      ctx.textBaseline = "top";
      for (let v = Math.ceil(x0 / xs) * xs; v <= x1 + 1e-9 * xs; v += xs) {
        const x = Math.round(px(v)) + 0.5;
        ctx.beginPath();
        ctx.moveTo(x, M.top);
        ctx.lineTo(x, M.top + ph);
        ctx.stroke();
        ctx.fillText(tickLabel(v, xs), x, M.top + ph + 4);
      }
    }
    ctx.strokeStyle = AXIS;
    ctx.strokeRect(M.left + 0.5, M.top + 0.5, pw, ph);
    if (this.xLabel) {
      // in the corner under the y labels, beside the x ticks
      ctx.textAlign = "left";
      ctx.textBaseline = "top";
      ctx.fillText(this.xLabel, 2, M.top + ph + 4);
    }
  }
}
