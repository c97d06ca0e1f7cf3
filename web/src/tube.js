// The rod's surface as a triangle mesh: around every centreline point a ring of SEG vertices
// in the cross-section, which for a Cosserat rod is the plane of the directors d1, d2 (the first
// two columns of the rotation; with shear it is not normal to the centreline), at the deformed
// radius; a flat cap closes each end. Buffers are allocated once per point count and rewritten
// in place every frame.

export const SEG = 20;

/** Vertices for n points: n rings, and a centre plus a ring for each cap. */
export function vertexCount(n) {
  return n * SEG + 2 * (SEG + 1);
}

/** Triangle indices for n points; counter-clockwise seen from outside. */
export function tubeIndex(n) {
  const idx = [];
  for (let i = 0; i + 1 < n; i++) {
    for (let j = 0; j < SEG; j++) {
      const a = i * SEG + j;
      const b = i * SEG + ((j + 1) % SEG);
      const c = a + SEG;
      const d = b + SEG;
      idx.push(a, b, d, a, d, c);
    }
  }
  const base = n * SEG;
  const tip = base + SEG + 1;
  for (let j = 0; j < SEG; j++) {
    const k = (j + 1) % SEG;
    idx.push(base, base + 1 + k, base + 1 + j); // faces -d3
    idx.push(tip, tip + 1 + j, tip + 1 + k); // faces +d3
  }
  return new Uint32Array(idx);
}

const COS = Float32Array.from({ length: SEG }, (_, j) => Math.cos((2 * Math.PI * j) / SEG));
const SIN = Float32Array.from({ length: SEG }, (_, j) => Math.sin((2 * Math.PI * j) / SEG));

/**
 * Fills pos, nrm, col (Float32Arrays of 3 * vertexCount(n)) from frame f; rgb holds 3 colour
 * components per centreline point.
 */
export function writeTube(f, rgb, pos, nrm, col) {
  const { n, position: p, rotation: R, radius: r } = f;
  for (let i = 0; i < n; i++) {
    const q = 9 * i;
    for (let j = 0; j < SEG; j++) {
      // radial unit vector cos(theta) d1 + sin(theta) d2; d1 = (R00, R10, R20), d2 = (R01, R11, R21)
      const ux = COS[j] * R[q] + SIN[j] * R[q + 1];
      const uy = COS[j] * R[q + 3] + SIN[j] * R[q + 4];
      const uz = COS[j] * R[q + 6] + SIN[j] * R[q + 7];
      const v = 3 * (i * SEG + j);
      pos[v] = p[3 * i] + r[i] * ux;
      pos[v + 1] = p[3 * i + 1] + r[i] * uy;
      pos[v + 2] = p[3 * i + 2] + r[i] * uz;
      nrm[v] = ux;
      nrm[v + 1] = uy;
      nrm[v + 2] = uz;
      col[v] = rgb[3 * i];
      col[v + 1] = rgb[3 * i + 1];
      col[v + 2] = rgb[3 * i + 2];
    }
  }
  writeCap(f, rgb, 0, -1, n * SEG, pos, nrm, col);
  writeCap(f, rgb, n - 1, 1, n * SEG + SEG + 1, pos, nrm, col);
}

/** The cap at point i: its centre, then a copy of that ring with the normal sign * d3. */
function writeCap(f, rgb, i, sign, first, pos, nrm, col) {
  const q = 9 * i;
  const d3 = [sign * f.rotation[q + 2], sign * f.rotation[q + 5], sign * f.rotation[q + 8]];
  const put = (v, x, y, z) => {
    pos[3 * v] = x;
    pos[3 * v + 1] = y;
    pos[3 * v + 2] = z;
    nrm.set(d3, 3 * v);
    col.set(rgb.subarray(3 * i, 3 * i + 3), 3 * v);
  };
  put(first, f.position[3 * i], f.position[3 * i + 1], f.position[3 * i + 2]);
  for (let j = 0; j < SEG; j++) {
    const v = 3 * (i * SEG + j);
    put(first + 1 + j, pos[v], pos[v + 1], pos[v + 2]);
  }
}
