// A poll: task() runs every `ms` after the previous run ends, never two at once. now() runs it
// at once (or again right after a run in flight), stop() ends it for good.

export function poller(ms, task) {
  let timer = 0;
  let busy = false;
  let again = false;
  let stopped = false;
  const run = async () => {
    if (stopped) return;
    if (busy) {
      again = true;
      return;
    }
    clearTimeout(timer);
    busy = true;
    try {
      await task();
    } catch (e) {
      console.warn("poll:", e); // task handles what it expects; this is a bug, not a network error
    } finally {
      busy = false;
    }
    if (stopped) return;
    if (again) {
      again = false;
      run();
    } else {
      timer = setTimeout(run, ms);
    }
  };
  return {
    now: run,
    /** Starts it after `delay` ms. */
    start(delay = 0) {
      timer = setTimeout(run, delay);
      return this;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
