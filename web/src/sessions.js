// The sessions list: every session the daemon keeps, with its state and simulated time,
// kept current by main.js's polling; a click opens one.

import { el, fmtTime } from "./dom.js";

export class SessionList {
  constructor(root, errorBox, onOpen) {
    this.root = root;
    this.errorBox = errorBox;
    this.onOpen = onOpen;
    this.rows = new Map();
    this.current = null;
    this.streamed = new Map(); // id -> when its stream last gave a time
  }

  /** sessions: GET /v1/sessions's list; rows are updated in place so nothing flickers. */
  update(sessions) {
    this.errorBox.hidden = true;
    const seen = new Set();
    for (const s of sessions) {
      seen.add(s.id);
      let row = this.rows.get(s.id);
      if (!row) {
        row = this.#row(s.id);
        this.rows.set(s.id, row);
      }
      row.name.textContent = s.name || s.id;
      row.id.textContent = s.name ? s.id : "";
      row.state.textContent = s.state;
      row.state.dataset.state = s.state;
      // a streamed session's time comes from its frames; the poll's is up to a period old
      const streamed = performance.now() - (this.streamed.get(s.id) ?? -Infinity) < 3000;
      if (!streamed) row.t.textContent = fmtTime(s.t);
      row.li.title = s.failure ? `failed: ${s.failure}` : "";
      this.root.append(row.li); // keeps the daemon's order
    }
    for (const [id, row] of this.rows) {
      if (!seen.has(id)) {
        row.li.remove();
        this.rows.delete(id);
      }
    }
    if (!sessions.length && !this.root.querySelector(".none")) {
      this.root.append(el("li", { class: "none muted" }, "No sessions yet."));
    } else if (sessions.length) {
      this.root.querySelector(".none")?.remove();
    }
    this.select(this.current);
  }

  /** The open session's time from its stream, between polls (the header's and this agree). */
  time(id, t) {
    this.streamed.set(id, performance.now());
    const row = this.rows.get(id);
    if (row) row.t.textContent = fmtTime(t);
  }

  select(id) {
    this.current = id;
    for (const [rid, row] of this.rows) row.li.classList.toggle("selected", rid === id);
  }

  showError(message) {
    this.errorBox.hidden = false;
    this.errorBox.textContent = message;
  }

  #row(id) {
    const name = el("span", { class: "s-name" });
    const sid = el("span", { class: "s-id" });
    const state = el("span", { class: "state" });
    const t = el("span", { class: "s-time" });
    const button = el("button", { type: "button", class: "s-open", onclick: () => this.onOpen(id) }, name, sid, state, t);
    const li = el("li", { dataset: { session: id } }, button);
    return { li, name, id: sid, state, t };
  }
}
