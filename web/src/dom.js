// Small DOM and formatting helpers shared by the views.

/** Creates an element: el("button", {class: "x", onclick: f}, "text", child). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v === true) e.setAttribute(k, "");
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined && c !== false) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** A number for people: 3 significant digits, exponent notation when very large or small. */
export function fmt(x, digits = 3) {
  if (typeof x !== "number" || !Number.isFinite(x)) return "–";
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return x.toExponential(digits - 1);
  return String(Number(x.toPrecision(digits)));
}

/**
 * The clock's text: the simulated time, and after it the session's tip error estimate (m, the
 * description's error_indicator) when it has one, so the time is never read without its error.
 */
export function fmtClock(t, errorEstimate) {
  const time = fmtTime(t);
  if (typeof errorEstimate !== "number" || !Number.isFinite(errorEstimate) || errorEstimate < 0) return time;
  const e = errorEstimate < 0.01 ? `${fmt(errorEstimate * 1e3, 2)} mm` : `${fmt(errorEstimate * 100, 2)} cm`;
  return `${time} · tip error ≈ ${e}`;
}

/** Simulated time in seconds, fixed to centiseconds. */
export function fmtTime(t) {
  return typeof t === "number" && Number.isFinite(t) ? `${t.toFixed(2)} s` : "–";
}
