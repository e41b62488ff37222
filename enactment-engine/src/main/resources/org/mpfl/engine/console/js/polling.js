// Repeats an async task every interval while a view is shown; never overlaps two calls.

/** Starts polling; returns a function that stops it. */
export function poll(task, intervalMs) {
  let stopped = false;
  let timer = null;
  const loop = async () => {
    if (stopped) return;
    try {
      await task();
    } catch (e) {
      // the task shows its own errors; keep polling
    }
    if (!stopped) timer = setTimeout(loop, intervalMs);
  };
  loop();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
