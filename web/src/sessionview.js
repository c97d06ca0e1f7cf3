// The open session: its toolbar (state, time, start/pause/reset/delete, pace), its stream into
// the history, the 3D view and the plots, its inputs' controls, and a poll of
// GET /v1/sessions/{id} every second for what the stream does not carry (the real-time factor,
// the inputs' current values).

import { sessionPath, streamUrlForPage } from "./api.js";
import { el, fmtClock } from "./dom.js";
import { History } from "./history.js";
import { poller } from "./poller.js";
import { RodStream } from "./stream.js";

const POLL_MS = 1000;
const OPEN_RETRY_MS = 2000;

export class SessionView {
  /**
   * parts: { api, ui (toolbar and view-tool elements), rodView, display (a FrameDisplay), controls,
   * status, Timeline };
   * events: { onChanged() (refresh the list), onGone(id) }.
   */
  constructor(parts, events) {
    Object.assign(this, parts);
    this.events = events;
    this.id = null;
    this.history = new History();
    this.latest = null; // the newest frame received
    this.shown = null; // the frame on screen (older when scrubbing)
    this.frameCount = 0;
    this.rate = 30;
    this.openings = 0; // counts open() and close() calls
    this.timeline = new parts.Timeline(this.ui.timeline, {
      span: () => (this.history.count ? [this.history.value("t", 0), this.history.last("t")] : [0, 0]),
      onChange: (frozen, t) => this.#scrub(frozen, t),
    });
    this.#bindToolbar();
  }

  /** Shows session id (its stream, history and controls); closes the previous one. */
  async open(id) {
    this.close();
    const gen = ++this.openings; // a later open() or close() makes this one give up
    this.id = id;
    this.ui.root.hidden = false;
    this.ui.title.textContent = id;
    this.ui.subtitle.textContent = "";
    this.status.reset();
    let desc;
    try {
      desc = await this.api.get(sessionPath(id));
    } catch (e) {
      if (gen !== this.openings) return;
      this.status.message(`cannot open ${id}: ${e.message}`, "error");
      if (e.status === 404) this.#gone();
      else this.retryTimer = setTimeout(() => this.reconnect(), OPEN_RETRY_MS); // the daemon is down, or wants a token
      return;
    }
    if (gen !== this.openings) return;
    this.#describe(desc);
    this.display.setModel(desc.model);
    this.#loadSpec(id, gen);
    this.stream = new RodStream({
      resolveUrl: () => this.#streamUrl(id),
      // binary frames are smaller, JSON ones carry constraints, bodies, a moving base's pose
      // and the contact forces
      subscription: { rate: this.rate, format: desc.model?.attachments ? "json" : "binary" },
      on: {
        connection: (state, info) => {
          this.status.connection(state, info);
          if (state === "gone") this.#gone();
        },
        frame: (f) => this.#frame(f),
        description: (s) => this.#describe(s),
        state: (m) => {
          this.#state(m.state, m.failure);
          this.poll?.now();
        },
        status: (m) => this.status.status(m),
      },
    });
    this.stream.start();
    this.poll = poller(POLL_MS, () => this.#refresh(id)).start(POLL_MS);
  }

  close() {
    this.openings++;
    clearTimeout(this.retryTimer);
    this.stream?.stop();
    this.stream = null;
    this.poll?.stop();
    this.poll = null;
    this.id = null;
    this.history.clear();
    this.latest = this.shown = null;
    this.frameCount = 0;
    this.timeline.resume();
    this.display.clear();
    this.controls.clear();
    this.ui.repeat.checked = false; // the next session's own repeat, or its spec's duration
    this.ui.repeatAt.value = "";
    this.specDuration = null;
    this.ui.root.hidden = true;
    this.status.reset();
    this.status.connection("closed");
  }

  /** Frames per second the stream asks for. */
  setRate(rate) {
    this.rate = rate;
    this.stream?.subscribe({ rate });
  }

  /** Reconnects now (a new token); opens the session again if opening it failed. */
  reconnect() {
    if (this.stream) this.stream.restart();
    else if (this.id) this.open(this.id);
  }

  /** Space: pause a running session, start a created or paused one. */
  togglePlay() {
    const state = this.currentState;
    if (state === "running") this.#act("pause");
    else if (state === "created" || state === "paused") this.#act("start");
  }

  /** The 3D view as a PNG file named for the session and the shown time. */
  screenshot() {
    return this.id ? this.display.screenshot(this.desc?.name || this.id) : null;
  }

  // ---- the stream ----

  // The daemon's stream_url: its REST port's stream path at the address this page came from
  // (so a port mapping, a tunnel or a proxy in between changes nothing), or what its operator
  // configured.
  async #streamUrl(id) {
    const info = await this.api.get("/v1");
    const s = await this.api.get(sessionPath(id));
    if (!info.auth) return streamUrlForPage(s.stream_url, location.protocol);
    // a single-use ticket, since a browser cannot put a bearer header on a WebSocket
    // ?session= lets a router in front of several daemons send this to the session's owner
    const ticket = await this.api.post(`/v1/stream-tickets?session=${encodeURIComponent(id)}`, { session: id });
    return streamUrlForPage(ticket.stream_url, location.protocol);
  }

  #frame(f) {
    this.latest = f;
    this.frameCount++;
    this.status.frame();
    this.ui.time.textContent = fmtClock(f.t, this.desc?.error_indicator);
    this.events.onTime?.(this.id, f.t);
    if (this.timeline.frozen) return;
    if (this.history.count && f.t < this.history.last("t")) this.display.resetRange(); // reset or restore
    this.history.push(f);
    this.#show(f);
  }

  #show(f) {
    this.shown = f;
    this.display.show(f, this.history, this.timeline.frozen ? f.t : undefined);
  }

  #scrub(frozen, t) {
    const f = frozen ? this.history.frameNear(t) : this.latest;
    if (!frozen && f && (!this.history.count || f.t > this.history.last("t"))) this.history.push(f);
    if (f) this.#show(f);
  }

  // ---- the spec: its description, and its duration to offer as the repeat time ----

  async #loadSpec(id, gen) {
    const { ui } = this;
    ui.description.hidden = true;
    this.specDuration = null;
    let spec;
    try {
      spec = (await this.api.get(sessionPath(id, "/checkpoint")))?.spec;
    } catch {
      return; // a viewer token may not read checkpoints: no description, no default repeat
    }
    if (gen !== this.openings || !spec) return;
    if (typeof spec.description === "string" && spec.description) {
      ui.description.textContent = spec.description;
      ui.description.title = spec.description;
      ui.description.hidden = false;
    }
    if (spec.duration > 0) {
      this.specDuration = spec.duration;
      this.#showRepeat(this.desc?.repeat);
    }
  }

  // ---- repeat: the session's own loop, which the daemon runs ----
  // Watching never changes the session: only a click on the box, or a new time while it is
  // ticked, sends a PATCH (the daemon then starts the session again at that time for every
  // viewer; pages used to reset it each on their own, and two of them fought).

  #showRepeat(repeat) {
    const { ui } = this;
    ui.repeat.checked = !!repeat;
    if (document.activeElement === ui.repeatAt) return;
    if (repeat) ui.repeatAt.value = String(repeat.every);
    else if (!ui.repeatAt.value && this.specDuration) ui.repeatAt.value = String(this.specDuration);
  }

  async #setRepeat() {
    const { ui } = this;
    const every = Number(ui.repeatAt.value);
    if (ui.repeat.checked && !(every > 0)) {
      this.status.message("repeat: give a time > 0 s", "error");
      ui.repeat.checked = false;
      return;
    }
    // a description asked for before this PATCH answered (a poll in flight) still holds the old
    // repeat: it must not tick the box back under the user's click
    this.repeatEdits = (this.repeatEdits || 0) + 1;
    let answer, failure;
    try {
      answer = await this.api.patch(sessionPath(this.id), { repeat: ui.repeat.checked ? { every } : null });
    } catch (e) {
      failure = e;
    }
    this.repeatEdits--;
    this.repeatAnsweredAt = performance.now();
    if (failure) {
      this.status.message(`repeat: ${failure.message}`, "error");
      this.#showRepeat(this.desc?.repeat);
    } else this.#describe(answer);
  }

  // ---- the session's description ----

  async #refresh(id) {
    try {
      const asked = performance.now();
      const s = await this.api.get(sessionPath(id));
      if (this.id === id) this.#describe(s, asked);
    } catch (e) {
      if (this.id === id && e.status === 404) this.#gone();
      // other failures: the stream's state tells the user; the next poll tries again
    }
  }

  /** A session description, from REST or the stream; `asked` is when it was requested. */
  #describe(s, asked = performance.now()) {
    if (!s || s.id !== this.id) return;
    this.desc = s;
    this.ui.title.textContent = s.name || s.id;
    this.ui.subtitle.textContent = s.name ? s.id : "";
    this.ui.time.textContent = fmtClock(this.latest ? this.latest.t : s.t, s.error_indicator);
    this.#state(s.state, s.failure);
    this.controls.setInputs(s.inputs);
    this.status.realTimeFactor(s.stats, s.state);
    if (!this.paceEdits && !(asked < this.paceAnsweredAt)) this.#showPace(s.pace);
    if (!this.repeatEdits && !(asked < this.repeatAnsweredAt)) this.#showRepeat(s.repeat);
    this.#showWarnings(s.warnings);
  }

  /** The spec's warnings (valid but implausible: GET session's `warnings`), path and advice. */
  #showWarnings(warnings) {
    const box = this.ui.warnings;
    if (!Array.isArray(warnings)) return; // a description without them changes nothing
    const list = warnings;
    const key = JSON.stringify(list);
    if (box.dataset.key === key) return; // unchanged: leave the DOM (and any selection) alone
    box.dataset.key = key;
    box.hidden = !list.length;
    box.replaceChildren(
      ...list.map((w) => el("div", { class: "warning" }, el("strong", {}, "warning "), el("code", {}, w.path), `: ${w.message}`)),
    );
  }

  #state(state, failure) {
    const { ui } = this;
    this.currentState = state;
    ui.state.textContent = state;
    ui.state.dataset.state = state;
    ui.start.disabled = !(state === "created" || state === "paused");
    ui.pause.disabled = state !== "running";
    ui.failure.hidden = state !== "failed";
    ui.failure.textContent = state === "failed" ? `The simulation failed: ${failure || "no message"}` : "";
    if (state === "failed") this.status.message(`failed: ${failure || ""}`, "error");
  }

  #showPace(pace) {
    const select = this.ui.pace;
    const value = String(pace);
    if (![...select.options].some((o) => o.value === value)) select.append(el("option", { value }, `${value}×`));
    if (document.activeElement !== select) select.value = value;
  }

  async #setPace() {
    const v = this.ui.pace.value;
    // as for repeat: a description asked for before this PATCH answered holds the old pace and
    // must not turn the select back under the user's choice
    this.paceEdits = (this.paceEdits || 0) + 1;
    let answer, failure;
    try {
      answer = await this.api.patch(sessionPath(this.id), { pace: v === "max" ? "max" : Number(v) });
    } catch (e) {
      failure = e;
    }
    this.paceEdits--;
    this.paceAnsweredAt = performance.now();
    if (failure) {
      this.status.message(`pace: ${failure.message}`, "error");
      if (this.desc) this.#showPace(this.desc.pace);
    } else this.#describe(answer);
  }

  #gone() {
    const id = this.id;
    this.stream?.stop();
    this.poll?.stop();
    this.status.message(`session ${id} no longer exists`, "error");
    this.events.onGone(id);
  }

  // ---- the toolbar ----

  #bindToolbar() {
    const { ui } = this;
    ui.start.addEventListener("click", () => this.#act("start"));
    ui.pause.addEventListener("click", () => this.#act("pause"));
    ui.reset.addEventListener("click", () => {
      this.timeline.resume();
      this.#act("reset");
    });
    let armed = 0;
    ui.del.addEventListener("click", async () => {
      // two clicks within 3 s: a delete is not undone
      if (!armed) {
        ui.del.textContent = "Delete? Click again";
        ui.del.classList.add("armed");
        armed = setTimeout(() => {
          armed = 0;
          ui.del.textContent = "Delete";
          ui.del.classList.remove("armed");
        }, 3000);
        return;
      }
      clearTimeout(armed);
      armed = 0;
      ui.del.textContent = "Delete";
      ui.del.classList.remove("armed");
      const id = this.id;
      try {
        await this.api.del(sessionPath(id));
        this.stream?.stop();
        this.events.onGone(id);
      } catch (e) {
        this.status.message(`delete failed: ${e.message}`, "error");
      }
    });
    ui.pace.addEventListener("change", () => this.#setPace());
    ui.repeat.addEventListener("change", () => this.#setRepeat());
    ui.repeatAt.addEventListener("change", () => {
      if (ui.repeat.checked) this.#setRepeat();
    });
    ui.directors.addEventListener("change", () => this.rodView.setDirectorsVisible(ui.directors.checked));
    ui.resetView.addEventListener("click", () => this.rodView.resetView());
  }

  async #act(verb) {
    try {
      this.#describe(await this.api.post(sessionPath(this.id, `:${verb}`)));
      this.events.onChanged();
    } catch (e) {
      this.status.message(`${verb}: ${e.message}`, "error");
    }
  }
}
