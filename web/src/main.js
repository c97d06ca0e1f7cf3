// The viewer's entry point: finds the page's elements, asks the daemon whether it wants a token
// (GET /v1), polls the sessions list, and opens the session that the URL's #/sessions/ID names.
// URL options: ?rate=N asks the stream for N frames per second (else the last choice, else 30).

import { createApi } from "./api.js";
import { mountTokenField } from "./auth.js";
import { Controls } from "./controls.js";
import { CreateDialog } from "./create.js";
import { $ } from "./dom.js";
import { Plots } from "./plots.js";
import { poller } from "./poller.js";
import { createRodView } from "./rodview.js";
import { SessionList } from "./sessions.js";
import { SessionView } from "./sessionview.js";
import { StatusBar } from "./statusbar.js";
import { Timeline } from "./timeline.js";

const LIST_MS = 2000;
const RATE_KEY = "rodd.rate";

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
const controls = new Controls($("#controls"), async (name, value) => {
  const answer = await api.put(`/v1/sessions/${encodeURIComponent(view.id)}/actuators/${encodeURIComponent(name)}`, { value });
  controls.applied(answer?.values);
  return answer;
});

const view = new SessionView(
  {
    api,
    rodView,
    controls,
    status,
    Timeline,
    plots: new Plots($("#plots")),
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
      failure: $("#failure"),
      field: $("#field"),
      directors: $("#directors"),
      resetView: $("#reset-view"),
      legend: { bar: $("#legend-bar"), lo: $("#legend-lo"), hi: $("#legend-hi"), label: $("#legend-label"), gravity: $("#legend-gravity") },
      timeline: { pause: $("#tl-pause"), live: $("#tl-live"), slider: $("#tl-slider"), label: $("#tl-label") },
    },
  },
  {
    onChanged: () => listPoll.now(),
    onGone: (id) => {
      if (location.hash === `#/sessions/${encodeURIComponent(id)}`) location.hash = "";
      listPoll.now();
    },
  },
);

new ResizeObserver(() => view.redraw()).observe($("#plots"));

const list = new SessionList($("#sessions"), $("#sessions-error"), (id) => {
  location.hash = `#/sessions/${encodeURIComponent(id)}`;
});

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
  const m = /^#\/sessions\/([^/]+)$/.exec(location.hash);
  const id = m ? decodeURIComponent(m[1]) : null;
  list.select(id);
  $("#empty").hidden = Boolean(id);
  if (id && id !== view.id) view.open(id);
  else if (!id && view.id) view.close();
}
window.addEventListener("hashchange", route);

// ---- the daemon: auth, then the list, polled ----
async function refreshList() {
  try {
    const info = await api.get("/v1");
    token.show(info.auth);
    const { sessions } = await api.get("/v1/sessions?page_size=1000");
    list.update(sessions);
    document.body.dataset.ready = "true"; // the first answer is in (the tests wait for it)
  } catch (e) {
    if (e.status === 401 || e.status === 403) token.show(true, e.status === 401 ? "a token is needed" : "this token may not do that");
    list.showError(e.status === 0 ? `${e.title}; retrying.` : e.message);
  }
}

const listPoll = poller(LIST_MS, refreshList).start();
route();

// A read-only handle for the browser tests, the perf script and the console.
window.__roddViewer = {
  get session() {
    return view.id;
  },
  get frame() {
    return view.latest;
  },
  get shown() {
    return view.shown;
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
  get fps() {
    return status.fps;
  },
  get history() {
    return { entries: view.history.count, frames: view.history.frames.length };
  },
};
