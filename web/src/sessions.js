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
      row.t.textContent = fmtTime(s.t);
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
