// Spec errors next to the JSON path they name: the spec pretty-printed as JSON.stringify(v,
// null, 2) prints it, one entry per line with the JSON Pointer (RFC 6901) of the value the line
// holds or opens, and each error placed on the line of its path (or, for a member that is
// missing, on the line that opens the nearest enclosing value that exists).

const escape = (key) => String(key).replace(/~/g, "~0").replace(/\//g, "~1");
const unescape = (part) => part.replace(/~1/g, "/").replace(/~0/g, "~");

/** [{path, text, closing?}] for value. */
export function linesWithPaths(value) {
  const lines = [];
  const walk = (v, path, depth, prefix, comma) => {
    const pad = "  ".repeat(depth);
    if (v === null || typeof v !== "object") {
      lines.push({ path, text: `${pad}${prefix}${JSON.stringify(v)}${comma}` });
      return;
    }
    const isArray = Array.isArray(v);
    const entries = isArray ? v.map((x, i) => [i, x]) : Object.entries(v);
    const [open, close] = isArray ? ["[", "]"] : ["{", "}"];
    if (!entries.length) {
      lines.push({ path, text: `${pad}${prefix}${open}${close}${comma}` });
      return;
    }
    lines.push({ path, text: `${pad}${prefix}${open}` });
    entries.forEach(([k, x], i) => {
      const key = isArray ? "" : `${JSON.stringify(String(k))}: `;
      walk(x, `${path}/${escape(k)}`, depth + 1, key, i < entries.length - 1 ? "," : "");
    });
    lines.push({ path, text: `${pad}${close}${comma}`, closing: true });
  };
  walk(value, "", 0, "", "");
  return lines;
}

/**
 * errors: [{path, message}] with paths relative to the spec. Returns the errors with `line`
 * (an index into lines) and `message` prefixed by what is missing when the path itself is not
 * in the spec ("strains: is required" on the line of "{").
 */
export function placeErrors(lines, errors) {
  const first = new Map();
  lines.forEach((l, i) => {
    if (!l.closing && !first.has(l.path)) first.set(l.path, i);
  });
  return errors.map((e) => {
    let path = e.path || "";
    while (path !== "" && !first.has(path)) path = path.slice(0, path.lastIndexOf("/"));
    const rest = (e.path || "").slice(path.length + 1);
    const message = rest ? `${rest.split("/").map(unescape).join("/")}: ${e.message}` : e.message;
    return { ...e, line: first.get(path) ?? 0, message };
  });
}
