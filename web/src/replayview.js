// A recording replayed: a session's (GET /v1/sessions/{id}/recording as NDJSON: a finished
// session's whole run, or a running one's so far) or a file the user opened (NDJSON or HDF5).
// Every frame plays and scrubs on the live view's 3D view and plots (the FrameDisplay), the
// time series spanning the whole recording; the Player is the transport.

import { sessionPath } from "./api.js";
import { fmtTime } from "./dom.js";
import { History } from "./history.js";
import { RecordingError, parseNdjson } from "./recording.js";

export class ReplayView {
  /**
   * parts: { api, display (the FrameDisplay), status, player (a Player, whose onShow calls
   * show), ui: { root, title, subtitle, state, time, error, liveLink } }.
   */
  constructor(parts) {
    Object.assign(this, parts);
    this.frames = [];
    this.history = null;
    this.source = null; // { session: id } or { file: name }
    this.shown = null;
    this.openings = 0;
  }

  get isOpen() {
    return this.source !== null;
  }

  /** Replays session id's recording, fetched now. */
  async openSession(id) {
    const gen = this.#begin({ session: id }, id);
    this.ui.liveLink.href = `#/sessions/${encodeURIComponent(id)}`;
    this.ui.liveLink.hidden = false;
    this.ui.state.textContent = "loading the recording…";
    let desc = null;
    let text;
    try {
      [desc, text] = await Promise.all([
        this.api.get(sessionPath(id)).catch(() => null), // the description is a nicety: the title, the model
        this.api.getText(sessionPath(id, "/recording?format=ndjson"), "application/x-ndjson"),
      ]);
      if (gen !== this.openings) return;
      if (!text.trim()) throw new RecordingError("the session has recorded no frames (is its recording off?)");
      this.#load(parseNdjson(text), desc?.model);
    } catch (e) {
      if (gen !== this.openings) return;
      this.#fail(`cannot replay ${id}: ${e.message}`);
      return;
    }
    if (desc?.name) {
      this.ui.title.textContent = `${desc.name}`;
      this.ui.subtitle.textContent = `${id} · recording`;
    }
  }

  /** Replays a recording read from a file (recording.js's { frames, spec }). */
  openFile(name, recording) {
    this.#begin({ file: name }, name);
    this.ui.liveLink.hidden = true;
    const spec = recording.spec;
    const f0 = recording.frames[0];
    const model = {
      length: spec?.rod?.length ?? f0.s[f0.n - 1],
      base_radius: f0.radius[0],
      // without the spec (NDJSON) gravity is unknown; a spec without it has none
      gravity: spec ? (spec.environment?.gravity ?? [0, 0, 0]) : undefined,
    };
    this.#load(recording, model);
  }

  close() {
    if (!this.isOpen) return;
    this.openings++;
    this.player.clear();
    this.display.clear();
    this.frames = [];
    this.history = null;
    this.source = null;
    this.shown = null;
    this.ui.error.hidden = true;
    this.ui.root.hidden = true;
    delete this.ui.root.dataset.mode;
  }

  /** The 3D view as a PNG named for the recording and the shown time. */
  screenshot() {
    if (!this.isOpen) return null;
    return this.display.screenshot(`${this.source.session ?? this.source.file}-replay`);
  }

  /** Shows frame i of the recording (the Player calls this). */
  show(i) {
    const f = this.frames[i];
    if (!f) return;
    this.shown = f;
    this.ui.time.textContent = fmtTime(f.t);
    this.display.show(f, this.history, f.t);
  }

  #begin(source, title) {
    this.close();
    const gen = ++this.openings;
    this.source = source;
    const { ui } = this;
    ui.root.hidden = false;
    ui.root.dataset.mode = "replay";
    ui.title.textContent = title;
    ui.subtitle.textContent = "recording";
    ui.state.textContent = "replay";
    ui.state.dataset.state = "replay";
    ui.time.textContent = "–";
    ui.error.hidden = true;
    this.status.reset();
    this.status.connection("closed");
    return gen;
  }

  #load({ frames }, model) {
    this.frames = frames;
    // every frame in the series, however long the recording: the plots span all of it
    this.history = new History({ window: Infinity, capacity: Math.max(1, frames.length), frameSpacing: 0 });
    for (const f of frames) this.history.push(f);
    this.display.setModel(model);
    this.display.include(frames);
    this.ui.state.textContent = `replay · ${frames.length} frames`;
    this.status.message(`recording: ${frames.length} frames, t = ${fmtTime(frames[0].t)} to ${fmtTime(frames[frames.length - 1].t)}`);
    this.player.load(frames.map((f) => f.t));
  }

  #fail(message) {
    this.ui.error.textContent = message;
    this.ui.error.hidden = false;
    this.ui.state.textContent = "no recording";
    this.status.message(message, "error");
  }
}
