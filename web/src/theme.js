// The colour scheme: the system's (prefers-color-scheme) unless the user picked one with the
// top bar's toggle (kept in localStorage). The page's CSS follows <html data-theme>; the 3D view
// and the plots take their colours from palette() and hear of changes through onThemeChange.

const KEY = "rodd.theme";
const CHOICES = ["auto", "light", "dark"];
const media = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: light)") : null;
const listeners = new Set();

export const PALETTES = {
  dark: {
    name: "dark",
    background: 0x0e141b, // the 3D view's clear colour
    gridMajor: 0x3a4756,
    gridMinor: 0x222c37,
    plotText: "#9fb0c0",
    plotGrid: "#1f2933",
    plotAxis: "#5b6876",
    plotBackground: "#121a23",
    cursor: "#e8eef4",
    series: ["#4cc9f0", "#f9c74f", "#f3722c", "#90be6d"],
  },
  light: {
    name: "light",
    background: 0xf3f5f8,
    gridMajor: 0xa9b4bf,
    gridMinor: 0xd5dbe2,
    plotText: "#36424d",
    plotGrid: "#e1e6ec",
    plotAxis: "#8a96a3",
    plotBackground: "#ffffff",
    cursor: "#26313b",
    series: ["#0072b2", "#b8860b", "#d55e00", "#2e8b3e"],
  },
};

export function themeChoice() {
  const c = globalThis.localStorage?.getItem(KEY);
  return CHOICES.includes(c) ? c : "auto";
}

/** "light" or "dark": the choice, or the system's when the choice is auto. */
export function resolvedTheme(choice = themeChoice()) {
  if (choice === "light" || choice === "dark") return choice;
  return media?.matches ? "light" : "dark";
}

export function palette() {
  return PALETTES[resolvedTheme()];
}

/** Applies the theme to the page and tells the listeners. */
export function applyTheme() {
  const theme = resolvedTheme();
  if (typeof document !== "undefined") document.documentElement.dataset.theme = theme;
  for (const fn of listeners) fn(PALETTES[theme]);
}

/** auto -> light -> dark -> auto; returns the new choice. */
export function cycleTheme() {
  const next = CHOICES[(CHOICES.indexOf(themeChoice()) + 1) % CHOICES.length];
  globalThis.localStorage?.setItem(KEY, next);
  applyTheme();
  return next;
}

export function onThemeChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

media?.addEventListener?.("change", () => {
  if (themeChoice() === "auto") applyTheme();
});
