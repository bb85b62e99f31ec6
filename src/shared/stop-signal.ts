/**
 * Resolves on the first SIGINT or SIGTERM. Call it before announcing readiness: a signal that
 * arrives before any listener exists takes the default action and kills the process uncleanly,
 * and whoever read "listening" may send one at once.
 */
export function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
