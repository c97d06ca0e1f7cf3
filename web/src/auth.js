// The API token: kept in localStorage, entered in the header's token field, which shows only
// when the daemon says (GET /v1 -> {"auth": true}) that it wants one.

const KEY = "rodd.token";

export function loadToken() {
  try {
    return localStorage.getItem(KEY) || "";
  } catch {
    return ""; // storage disabled: the token lives for this page only
  }
}

function saveToken(token) {
  try {
    if (token) localStorage.setItem(KEY, token);
    else localStorage.removeItem(KEY);
  } catch {
    // see loadToken
  }
}

/**
 * Binds the token form. onChange(token) runs after the user saves a new token.
 * Returns { token(), show(authOn, problem) }.
 */
export function mountTokenField(form, input, note, onChange) {
  let token = loadToken();
  input.value = token;
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    token = input.value.trim();
    saveToken(token);
    onChange(token);
  });
  return {
    token: () => token,
    /** authOn: the daemon's GET /v1 answer; problem: why the last request was refused, if it was. */
    show(authOn, problem = "") {
      form.hidden = !authOn;
      note.textContent = problem || (authOn && !token ? "this daemon needs a token" : "");
      form.classList.toggle("wanted", Boolean(authOn && (!token || problem)));
    },
  };
}
