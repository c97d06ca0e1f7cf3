// Viridis (matplotlib's perceptually uniform map, sampled at 9 stops) and the colour range of
// the field the rod shows. The range only grows while the field stays the same, so colours do
// not flicker frame to frame; it starts over when the field, the session or its time changes.

const VIRIDIS = [
  [68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
  [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37],
].map((c) => c.map((v) => v / 255));

/** sRGB component to linear light: what three.js expects in vertex colours. */
export const srgbToLinear = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const VIRIDIS_LINEAR = VIRIDIS.map((c) => c.map(srgbToLinear));

/**
 * Writes the colour of x in [0, 1] as r, g, b in [0, 1] into out at offset: sRGB (for canvas
 * and CSS), or linear for WebGL, where three.js converts to sRGB on output.
 */
export function viridis(x, out, offset = 0, linear = false) {
  const table = linear ? VIRIDIS_LINEAR : VIRIDIS;
  const u = Math.min(1, Math.max(0, Number.isFinite(x) ? x : 0)) * (table.length - 1);
  const i = Math.min(table.length - 2, Math.floor(u));
  const w = u - i;
  const a = table[i];
  const b = table[i + 1];
  out[offset] = a[0] + w * (b[0] - a[0]);
  out[offset + 1] = a[1] + w * (b[1] - a[1]);
  out[offset + 2] = a[2] + w * (b[2] - a[2]);
}

/** A CSS linear-gradient of the map, for the legend. */
export function viridisGradient() {
  const stops = VIRIDIS.map((c, i) => `rgb(${c.map((v) => Math.round(255 * v)).join(",")}) ${(100 * i) / (VIRIDIS.length - 1)}%`);
  return `linear-gradient(to right, ${stops.join(", ")})`;
}

export class ColorRange {
  constructor(minSpan) {
    this.reset(minSpan);
  }

  reset(minSpan = this.minSpan) {
    this.minSpan = minSpan;
    this.lo = Infinity;
    this.hi = -Infinity;
  }

  include(values, n = values.length) {
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v < this.lo) this.lo = v;
      if (v > this.hi) this.hi = v;
    }
  }

  /** The shown [min, max]: at least minSpan wide, centred on the data when the data is narrower. */
  bounds() {
    if (!(this.hi >= this.lo)) return [0, 1];
    const span = this.hi - this.lo;
    if (span >= this.minSpan) return [this.lo, this.hi];
    const mid = 0.5 * (this.lo + this.hi);
    return [mid - 0.5 * this.minSpan, mid + 0.5 * this.minSpan];
  }

  /** Where v sits in [0, 1]. */
  normalize(v) {
    const [lo, hi] = this.bounds();
    return (v - lo) / (hi - lo);
  }
}
