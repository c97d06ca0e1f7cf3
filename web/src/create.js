// The "new session" dialog: a spec from a shipped example (GET /v1/examples), pasted, or
// uploaded into the editor; name, output points and whether to start; POST /v1/sessions.
// A refused spec comes back as 422 with errors [{path, message}]: each is listed, and shown on
// the line of the spec that its path names. Request errors (/name, /points) sit by their field.

import { el } from "./dom.js";
import { linesWithPaths, placeErrors } from "./specmap.js";

export class CreateDialog {
  /** ui: the dialog's elements by id; onCreated(session) runs after a 201. */
  constructor(ui, api, onCreated) {
    this.ui = ui;
    this.api = api;
    this.onCreated = onCreated;
    this.examples = null;
    ui.form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.#submit();
    });
    ui.cancel.addEventListener("click", () => ui.dialog.close());
    ui.example.addEventListener("change", () => this.#loadExample(ui.example.value));
    ui.file.addEventListener("change", () => this.#loadFile(ui.file.files?.[0]));
  }

  async open() {
    this.#clearErrors();
    this.ui.dialog.showModal();
    if (!this.examples) await this.#listExamples();
  }

  async #listExamples() {
    const { example, exampleDesc } = this.ui;
    try {
      const { examples } = await this.api.get("/v1/examples");
      this.examples = examples;
      example.replaceChildren(
        el("option", { value: "" }, "— paste or upload a spec —"),
        ...examples.map((x) => el("option", { value: x.name, title: x.description }, x.name)),
      );
      exampleDesc.textContent = "";
    } catch (e) {
      exampleDesc.textContent = `examples unavailable: ${e.message}`;
    }
  }

  async #loadExample(name) {
    const { text, exampleDesc, name: nameField } = this.ui;
    this.#clearErrors();
    if (!name) {
      exampleDesc.textContent = "";
      return;
    }
    exampleDesc.textContent = this.examples?.find((x) => x.name === name)?.description || "";
    try {
      const spec = await this.api.get(`/v1/examples/${encodeURIComponent(name)}`);
      text.value = JSON.stringify(spec, null, 2);
      nameField.value = name;
    } catch (e) {
      this.#showGeneral([e.message]);
    }
  }

  async #loadFile(file) {
    if (!file) return;
    this.#clearErrors();
    this.ui.example.value = "";
    this.ui.exampleDesc.textContent = `from ${file.name}`;
    this.ui.text.value = await file.text();
    if (!this.ui.name.value) this.ui.name.value = file.name.replace(/\.json$/i, "");
  }

  async #submit() {
    const { text, name, points, start, submit } = this.ui;
    this.#clearErrors();
    let spec;
    try {
      spec = JSON.parse(text.value);
    } catch (e) {
      this.#showParseError(e);
      return;
    }
    const body = { spec, start: start.checked };
    if (name.value.trim()) body.name = name.value.trim();
    if (points.value !== "") body.points = Number(points.value);
    submit.disabled = true;
    try {
      const session = await this.api.post("/v1/sessions", body);
      this.ui.dialog.close();
      this.onCreated(session);
    } catch (e) {
      this.#showProblem(e, spec);
    } finally {
      submit.disabled = false;
    }
  }

  /** JSON.parse's message names a position in V8 ("... at position 93 (line 5 column 3)"): go there. */
  #showParseError(e) {
    const { text } = this.ui;
    this.#showGeneral([`not JSON: ${e.message}`]);
    const at = /position (\d+)/.exec(e.message);
    if (at) {
      const pos = Number(at[1]);
      text.focus();
      text.setSelectionRange(pos, Math.min(text.value.length, pos + 1));
    }
  }

  #showProblem(e, spec) {
    const specErrors = [];
    const general = [];
    for (const item of e.errors) {
      const path = item.path || "";
      if (path === "/spec" || path.startsWith("/spec/")) specErrors.push({ ...item, path: path.slice(5), shown: path });
      else if (path === "/name") this.#fieldError(this.ui.nameError, item.message);
      else if (path === "/points") this.#fieldError(this.ui.pointsError, item.message);
      else general.push(path ? `${path}: ${item.message}` : item.message);
    }
    if (!e.errors.length) general.push(e.detail ? `${e.title}: ${e.detail}` : e.message);
    this.#showGeneral(general, e.errors.length ? e.title : "");
    if (specErrors.length) this.#showSpecErrors(spec, specErrors);
  }

  #fieldError(box, message) {
    box.hidden = false;
    box.textContent = message;
  }

  #showGeneral(messages, title = "") {
    const { summary } = this.ui;
    if (!messages.length && !title) return;
    summary.hidden = false;
    summary.replaceChildren(
      title ? el("strong", {}, title) : "",
      messages.length ? el("ul", {}, messages.map((m) => el("li", {}, m))) : "",
    );
  }

  /** The list of paths and messages, then the spec with each message on its path's line. */
  #showSpecErrors(spec, errors) {
    const { specErrors } = this.ui;
    const lines = linesWithPaths(spec);
    const placed = placeErrors(lines, errors);
    const byLine = new Map();
    for (const p of placed) byLine.set(p.line, [...(byLine.get(p.line) || []), p]);
    const list = el(
      "ul",
      { class: "error-list" },
      errors.map((x) => el("li", {}, el("code", {}, x.shown), " ", x.message)),
    );
    const view = el(
      "div",
      { class: "spec-view", role: "list" },
      lines.map((l, i) => {
        const here = byLine.get(i) || [];
        return el(
          "div",
          { class: here.length ? "spec-line has-error" : "spec-line", dataset: { path: l.path }, role: "listitem" },
          el("span", { class: "spec-code" }, l.text),
          here.map((p) => el("span", { class: "spec-error", dataset: { errorPath: p.shown } }, p.message)),
        );
      }),
    );
    specErrors.hidden = false;
    specErrors.replaceChildren(el("p", {}, `${errors.length} problem${errors.length === 1 ? "" : "s"} in the spec:`), list, view);
    view.querySelector(".has-error")?.scrollIntoView({ block: "center" });
  }

  #clearErrors() {
    const { summary, specErrors, nameError, pointsError } = this.ui;
    for (const box of [summary, specErrors, nameError, pointsError]) {
      box.hidden = true;
      box.replaceChildren();
    }
  }
}
