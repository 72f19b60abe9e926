/**
 * A command that starts the bridge through a shell (`npx turnbridge start` runs `sh -c`, as some
 * process managers do) may be signalled itself and exit without passing the signal on: the
 * bridge would live on, orphaned, still answering /healthz. Seeing its parent change, the bridge
 * stops as on SIGTERM. Started by PID 1 (systemd, tini in the image) there is nothing to watch.
 */
export function onParentGone(stop: () => void, everyMs = 500): () => void {
  const parent = process.ppid;
  if (parent === 1) return () => {};
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
