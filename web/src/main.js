// The viewer's entry point: finds the page's elements, asks the daemon whether it wants a token
// (GET /v1), polls the sessions list, and opens the session that the URL's #/sessions/ID names
// (with no session named, the newest running one, or the only one, on the first visit);
// #/compare/A/B shows two sessions side by side, each in an embedded viewer; #/sessions/ID/replay
// replays a session's recording, #/replay a recording file the user opened.
// URL options: ?rate=N asks the stream for N frames per second (else the last choice, else 30);
// ?embed=1 leaves out the top bar and the sessions list (the compare view's panes).

import { createApi } from "./api.js";
import { mountTokenField } from "./auth.js";
import { Controls } from "./controls.js";
import { CreateDialog } from "./create.js";
import { FrameDisplay } from "./display.js";
import { $ } from "./dom.js";
import { Player } from "./player.js";
import { Plots } from "./plots.js";
import { poller } from "./poller.js";
import { readRecording } from "./recording.js";
import { ReplayView } from "./replayview.js";
import { createRodView } from "./rodview.js";
import { SessionList } from "./sessions.js";
import { SessionView } from "./sessionview.js";
import { StatusBar } from "./statusbar.js";
import { applyTheme, cycleTheme, onThemeChange, themeChoice } from "./theme.js";
import { Timeline } from "./timeline.js";

const LIST_MS = 2000;
const RATE_KEY = "rodd.rate";
const params = new URLSearchParams(location.search);
const embedded = params.get("embed") === "1";
document.body.classList.toggle("embed", embedded);

// ---- the colour theme ----
const themeButton = $("#theme");
const showThemeChoice = () => (themeButton.textContent = `theme: ${themeChoice()}`);
applyTheme();
showThemeChoice();
themeButton.addEventListener("click", () => {
  cycleTheme();
  showThemeChoice();
});

const token = mountTokenField($("#token-form"), $("#token"), $("#auth-note"), () => {
  listPoll.now();
  view.reconnect();
});
const api = createApi(() => token.token());

const status = new StatusBar({
  pill: $("#conn"),
  connection: $("#st-connection"),
  fps: $("#st-fps"),
  dropped: $("#st-dropped"),
  rtf: $("#st-rtf"),
  message: $("#st-message"),
});

const rodView = createRodView($("#view"));
onThemeChange((p) => rodView.setPalette(p));
const controls = new Controls($("#controls"), async (name, value) => {
  const answer = await api.put(`/v1/sessions/${encodeURIComponent(view.id)}/actuators/${encodeURIComponent(name)}`, { value });
  controls.applied(answer?.values);
  return answer;
});

const plots = new Plots($("#plots"));
// the one 3D view and set of plots, which the live session and the replay take turns at
const display = new FrameDisplay({
  rodView,
  plots,
  ui: { field: $("#field"), rod: $("#rod"), legend: { bar: $("#legend-bar"), lo: $("#legend-lo"), hi: $("#legend-hi"), label: $("#legend-label"), gravity: $("#legend-gravity") } },
});

const view = new SessionView(
  {
    api,
    rodView,
    controls,
    status,
    Timeline,
    display,
    ui: {
      root: $("#session"),
      title: $("#s-title"),
      subtitle: $("#s-subtitle"),
      state: $("#s-state"),
      time: $("#s-time"),
      start: $("#b-start"),
      pause: $("#b-pause"),
      reset: $("#b-reset"),
      del: $("#b-delete"),
      pace: $("#s-pace"),
      repeat: $("#s-repeat"),
      repeatAt: $("#s-repeat-t"),
      description: $("#s-desc"),
      warnings: $("#s-warnings"),
      failure: $("#failure"),
      directors: $("#directors"),
      resetView: $("#reset-view"),
      timeline: { pause: $("#tl-pause"), live: $("#tl-live"), slider: $("#tl-slider"), label: $("#tl-label") },
    },
  },
  {
    onChanged: () => listPoll.now(),
    onTime: (id, t) => {
      list.time(id, t);
      // a compare pane tells the page around it, whose sidebar lists the same sessions
      if (embedded && parent !== window) parent.postMessage({ rodd: "time", id, t }, location.origin);
    },
    onGone: (id) => {
      if (location.hash === `#/sessions/${encodeURIComponent(id)}`) location.hash = "";
      listPoll.now();
    },
  },
);

new ResizeObserver(() => display.redraw()).observe($("#plots"));

// ---- replay: a session's recording, or a file ----
const replayError = $("#replay-error");
const player = new Player(
  { play: $("#pl-play"), back: $("#pl-back"), forward: $("#pl-forward"), slider: $("#pl-slider"), label: $("#pl-label"), speed: $("#pl-speed") },
  { onShow: (i) => replay.show(i) },
);
const replay = new ReplayView({
  api,
  display,
  status,
  player,
  ui: { root: $("#session"), title: $("#s-title"), subtitle: $("#s-subtitle"), state: $("#s-state"), time: $("#s-time"), error: replayError, liveLink: $("#r-live") },
});
$("#b-replay").addEventListener("click", () => {
  if (view.id) location.hash = `#/sessions/${encodeURIComponent(view.id)}/replay`;
});
const fileInput = $("#open-recording");
fileInput.addEventListener("change", async () => {
  const file = fileInput.files?.[0];
  fileInput.value = ""; // the same file again is a change too
  if (!file) return;
  let recording;
  try {
    recording = readRecording(await file.arrayBuffer());
  } catch (e) {
    replayError.textContent = `${file.name} cannot be replayed: ${e.message}`;
    replayError.hidden = false;
    status.message(replayError.textContent, "error");
    return;
  }
  if (view.id) view.close();
  replay.openFile(file.name, recording);
  if (location.hash !== "#/replay") location.hash = "#/replay";
  else route();
});

// ---- camera presets and the screenshot ----
const cameraButtons = [...document.querySelectorAll("[data-camera]")];
function setCamera(preset) {
  rodView.setCamera(preset);
  for (const b of cameraButtons) b.setAttribute("aria-pressed", String(b.dataset.camera === preset));
}
for (const b of cameraButtons) b.addEventListener("click", () => setCamera(b.dataset.camera));
$("#reset-view").addEventListener("click", () => setCamera("default"));
$("#screenshot").addEventListener("click", () => (replay.isOpen ? replay.screenshot() : view.screenshot()));

const list = new SessionList($("#sessions"), $("#sessions-error"), (id) => {
  location.hash = `#/sessions/${encodeURIComponent(id)}`;
});

// ---- compare: this session and another, side by side ----
addEventListener("message", (e) => {
  if (e.origin === location.origin && e.data?.rodd === "time") list.time(e.data.id, e.data.t);
});
const compareSelect = $("#s-compare");
let compareKey = "";
let knownSessions = []; // the latest list, for titles by name
const titleOf = (id) => knownSessions.find((s) => s.id === id)?.name || id;
function updateCompareChoices(sessions) {
  knownSessions = sessions;
  if (!$("#compare").hidden) $("#compare-title").textContent = compareTitle();
  // rebuilt only when the choices change: replacing the options closes an open select
  const key = `${view.id}|${sessions.map((s) => `${s.id}:${s.name}`).join(",")}`;
  if (key === compareKey) return;
  compareKey = key;
  const keep = compareSelect.value;
  const options = [new Option("—", "")];
  for (const s of sessions) if (s.id !== view.id) options.push(new Option(s.name ? `${s.name} (${s.id})` : s.id, s.id));
  compareSelect.replaceChildren(...options);
  compareSelect.value = options.some((o) => o.value === keep) ? keep : "";
}
compareSelect.addEventListener("change", () => {
  if (compareSelect.value) location.hash = `#/compare/${encodeURIComponent(view.id)}/${encodeURIComponent(compareSelect.value)}`;
});
let compared = [];
const compareTitle = () => compared.map(titleOf).join(" and ");
function showCompare(a, b) {
  const pane = (id) => `${location.pathname}?embed=1#/sessions/${encodeURIComponent(id)}`;
  for (const [frame, id] of [[$("#compare-a"), a], [$("#compare-b"), b]]) {
    if (frame.dataset.session !== id) {
      frame.dataset.session = id;
      frame.src = pane(id);
    }
  }
  compared = [a, b];
  $("#compare-title").textContent = compareTitle();
  $("#compare-back").href = `#/sessions/${encodeURIComponent(a)}`;
}

const create = new CreateDialog(
  {
    dialog: $("#create-dialog"),
    form: $("#create-form"),
    example: $("#c-example"),
    exampleDesc: $("#c-example-desc"),
    file: $("#c-file"),
    text: $("#c-spec"),
    name: $("#c-name"),
    nameError: $("#c-name-error"),
    points: $("#c-points"),
    pointsError: $("#c-points-error"),
    start: $("#c-start"),
    summary: $("#c-summary"),
    specErrors: $("#c-spec-errors"),
    submit: $("#c-submit"),
    cancel: $("#c-cancel"),
  },
  api,
  (session) => {
    listPoll.now();
    location.hash = `#/sessions/${encodeURIComponent(session.id)}`;
  },
);
$("#new-session").addEventListener("click", () => create.open());

// ---- the stream rate ----
const rateSelect = $("#rate");
const rate = Number(new URLSearchParams(location.search).get("rate")) || Number(localStorage.getItem(RATE_KEY)) || 30;
if (![...rateSelect.options].some((o) => Number(o.value) === rate)) rateSelect.append(new Option(`${rate} Hz`, String(rate)));
rateSelect.value = String(rate);
view.setRate(rate);
rateSelect.addEventListener("change", () => {
  localStorage.setItem(RATE_KEY, rateSelect.value);
  view.setRate(Number(rateSelect.value));
});

// ---- routing: #/sessions/ID opens a session ----
function route() {
  const cmp = /^#\/compare\/([^/]+)\/([^/]+)$/.exec(location.hash);
  const rec = /^#\/sessions\/([^/]+)\/replay$/.exec(location.hash);
  const file = location.hash === "#/replay";
  $("#compare").hidden = !cmp;
  replayError.hidden = true; // a new place: an old error no longer applies
  if (rec || file) {
    if (view.id) view.close();
    list.select(rec ? decodeURIComponent(rec[1]) : null);
    if (rec && replay.source?.session !== decodeURIComponent(rec[1])) replay.openSession(decodeURIComponent(rec[1]));
    $("#empty").hidden = replay.isOpen;
    if (!replay.isOpen) $("#empty-text").textContent = "Open a recording file with Open recording… on the left";
    return;
  }
  replay.close();
  if (cmp) {
    if (view.id) view.close();
    list.select(null);
    $("#empty").hidden = true;
    showCompare(decodeURIComponent(cmp[1]), decodeURIComponent(cmp[2]));
    return;
  }
  const m = /^#\/sessions\/([^/]+)$/.exec(location.hash);
  const id = m ? decodeURIComponent(m[1]) : null;
  list.select(id);
  $("#empty").hidden = Boolean(id);
  if (id && id !== view.id) view.open(id);
  else if (!id && view.id) view.close();
  compareSelect.value = "";
}

/**
 * The session to show on a first visit that names none: the newest running one, else the only
 * one. Later visits to "/" (after closing or deleting one) stay empty.
 */
let firstList = true;
function autoOpen(sessions) {
  if (!firstList) return;
  firstList = false;
  if (location.hash || embedded || $("#create-dialog").open) return;
  const running = sessions.filter((s) => s.state === "running");
  const newest = running.reduce((a, s) => (!a || s.created >= a.created ? s : a), null);
  const pick = newest || (sessions.length === 1 ? sessions[0] : null);
  if (pick) location.hash = `#/sessions/${encodeURIComponent(pick.id)}`;
  else if (sessions.length) $("#empty-text").textContent = "No session is running: open one on the left, or create one with New…";
}
window.addEventListener("hashchange", route);

// ---- the daemon: auth, then the list, polled ----
async function refreshList() {
  try {
    const info = await api.get("/v1");
    token.show(info.auth);
    const { sessions } = await api.get("/v1/sessions?page_size=1000");
    list.update(sessions);
    updateCompareChoices(sessions);
    autoOpen(sessions);
    document.body.dataset.ready = "true"; // the first answer is in (the tests wait for it)
  } catch (e) {
    if (e.status === 401 || e.status === 403) token.show(true, e.status === 401 ? "a token is needed" : "this token may not do that");
    list.showError(e.status === 0 ? `${e.title}; retrying.` : e.message);
  }
}

const listPoll = poller(LIST_MS, refreshList).start();
route();

// ---- keyboard shortcuts (the help dialog lists them) ----
const help = $("#help-dialog");
$("#help-button").addEventListener("click", () => help.showModal());
const CAMERA_KEYS = { 1: "front", 2: "side", 3: "top", 4: "tip" };
document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
  const target = e.target;
  // typing in a field, or a dialog open: the keys are theirs
  const typing = "textarea, select, [contenteditable], input:not([type=checkbox]):not([type=radio]):not([type=button])";
  if (target.closest?.(typing) || document.querySelector("dialog[open]")) {
    if (e.key === "?" && help.open) help.close();
    return;
  }
  const open = Boolean(view.id);
  let done = true;
  if (replay.isOpen && e.key !== "?" && e.key !== "t" && !CAMERA_KEYS[e.key] && e.key !== "r") {
    if (e.key === " ") player.toggle();
    else if (e.key === "ArrowLeft") player.step(e.shiftKey ? -10 : -1);
    else if (e.key === "ArrowRight") player.step(e.shiftKey ? 10 : 1);
    else if (e.key === "Home") player.step(-player.count);
    else if (e.key === "s") replay.screenshot();
    else if (e.key === "End") player.step(player.count);
    else done = false;
    if (done) e.preventDefault();
    return;
  }
  if (e.key === "?") help.showModal();
  else if (e.key === " " && open) view.togglePlay();
  else if (e.key === "ArrowLeft" && open) view.timeline.step(e.shiftKey ? -0.1 : -0.01);
  else if (e.key === "ArrowRight" && open) view.timeline.step(e.shiftKey ? 0.1 : 0.01);
  else if (e.key === "End" && open) view.timeline.resume();
  else if (CAMERA_KEYS[e.key] && (open || replay.isOpen)) setCamera(CAMERA_KEYS[e.key]);
  else if (e.key === "r" && (open || replay.isOpen)) setCamera("default");
  else if (e.key === "s" && open) view.screenshot();
  else if (e.key === "n" && !embedded) create.open();
  else if (e.key === "t") themeButton.click();
  else done = false;
  if (done) e.preventDefault(); // no page scroll on space or arrows, no button press
});

// A read-only handle for the browser tests, the perf script and the console.
window.__roddViewer = {
  get session() {
    return view.id;
  },
  get frame() {
    return view.latest;
  },
  get shown() {
    return replay.isOpen ? replay.shown : view.shown;
  },
  /** The replay: what it plays (a session's recording or a file), its frames and where it is. */
  get replay() {
    if (!replay.isOpen) return null;
    return { source: replay.source, frames: replay.frames.length, index: player.index, t: player.t, playing: player.playing, speed: player.speed };
  },
  get frames() {
    return view.frameCount;
  },
  get connection() {
    return view.stream?.state || "closed";
  },
  get renders() {
    return rodView.renders;
  },
  /** The frame the 3D view last drew: its t and tip, as the tube has it. */
  get drawn() {
    const f = rodView.lastFrame;
    if (!f) return null;
    const i = 3 * (f.n - 1);
    return { t: f.t, n: f.n, tip: [f.position[i], f.position[i + 1], f.position[i + 2]] };
  },
  /** A model of several rods: the rod coloured and plotted, the others drawn (grey) and the menu's rods. */
  get rods() {
    const f = rodView.lastFrame;
    const menu = [...document.querySelectorAll("#rod option")].map((o) => o.value);
    return { selected: f?.rod ?? null, others: rodView.otherRods ?? 0, menu, menuHidden: document.getElementById("rod-pick").hidden };
  },
  /** What the view draws besides the rod: attached bodies and constraint targets (with arrows). */
  get attached() {
    return rodView.attached?.children.length ?? 0;
  },
  /** Obstacles drawn (from the description) and contact force arrows shown (from the frames). */
  get obstacles() {
    return rodView.obstacles?.children.length ?? 0;
  },
  get contactArrows() {
    return rodView.contactArrows ?? 0;
  },
  get fps() {
    return status.fps;
  },
  get history() {
    return { entries: view.history.count, frames: view.history.frames.length };
  },
  get camera() {
    const c = rodView.camera;
    return c ? { preset: rodView.preset, position: c.position.toArray(), target: rodView.controls.target.toArray() } : null;
  },
  get timeline() {
    return { frozen: view.timeline.frozen, t: view.timeline.frozen ? view.timeline.selected() : null };
  },
  plots,
};
