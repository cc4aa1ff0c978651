/**
 * Runs a benchmark over something it started and closes it afterwards — also when interrupted (Ctrl-C, a CI
 * timeout): then it is closed first and the signal taken as if unhandled, so nothing the benchmark started is left.
 */
export async function closedOnSignal<T>(started: { close(): Promise<void> }, run: () => Promise<T>): Promise<T> {
  const interrupted = (signal: NodeJS.Signals) => {
    void started.close().finally(() => {
      process.removeListener('SIGINT', interrupted);
      process.removeListener('SIGTERM', interrupted);
      process.kill(process.pid, signal);
    });
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    return await run();
  } finally {
    process.removeListener('SIGINT', interrupted);
    process.removeListener('SIGTERM', interrupted);
    await started.close();
  }
}
