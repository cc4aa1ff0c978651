/** Progress of long first-start work: one redrawn line on a terminal, a few log lines otherwise. */

export type ProgressReporter = (done: number, total: number, label: string) => void;

export function progressReporter(title: string, log: (message: string) => void): ProgressReporter {
  const tty = process.stderr.isTTY;
  let lastQuarter = -1;
  return (done, total, label) => {
    const fraction = total === 0 ? 1 : done / total;
    if (tty) {
      const width = 30;
      const filled = Math.round(fraction * width);
      process.stderr.write(`\r${title} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${label}`.padEnd(100));
      if (done === total) process.stderr.write('\n');
      return;
    }
    const quarter = Math.floor(fraction * 4);
    if (quarter !== lastQuarter) {
      lastQuarter = quarter;
      log(`${title}: ${Math.round(fraction * 100)}% (${label})`);
    }
  };
}
