import cliProgress from 'cli-progress';
import type { ProgressBar, StepLogger } from './step.js';

/** Logger for ETL steps: messages and progress bars on stderr, silent when quiet. */
export function createStepLogger(opts: { quiet?: boolean } = {}): StepLogger {
  const quiet = opts.quiet ?? false;
  const tty = process.stderr.isTTY === true;
  return {
    info: (m) => {
      if (!quiet) process.stderr.write(`${m}\n`);
    },
    warn: (m) => {
      process.stderr.write(`warning: ${m}\n`);
    },
    progress(label: string, total: number): ProgressBar {
      if (quiet || !tty) {
        // Outside a terminal a bar would spam the log: print the start only.
        if (!quiet) process.stderr.write(`${label}: ${total} items\n`);
        return { increment: () => {}, stop: () => {} };
      }
      const bar = new cliProgress.SingleBar(
        { format: `${label.padEnd(28)} [{bar}] {percentage}% {value}/{total} {eta_formatted}`, stream: process.stderr, hideCursor: true },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, 0);
      return { increment: (n = 1) => bar.increment(n), stop: () => bar.stop() };
    },
  };
}
