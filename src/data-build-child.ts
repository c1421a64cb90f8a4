// The first-start data build, run as a child process (`etl build`) rather than in the server's own
// heap: the ETL's peak memory (DuckDB's sorts, the parse workers' buffers) goes back to the system
// when the child exits, so a server that built its data holds only what serving needs
// (docs/deployment.md gives the figures).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const THIS_FILE = fileURLToPath(import.meta.url);
// '.ts' when run from source (tsx), '.js' when run compiled (the container image): the ETL's entry
// point sits beside src/ in both layouts.
const ETL_CLI = path.resolve(path.dirname(THIS_FILE), '..', 'etl', `cli${path.extname(THIS_FILE)}`);

export interface ChildBuildOptions {
  sourceDir: string;
  dataDir: string;
}

/**
 * Run `etl build` on the same Node binary with the same loader flags (tsx's, when there are any),
 * progress on this process's stderr. Resolves when the build is live; rejects naming the exit code.
 * A SIGTERM or SIGINT meanwhile stops the child and then this process: nothing listens yet, and a
 * container's PID 1 would otherwise ignore the signal until the build ended.
 */
export function buildDataInChild(o: ChildBuildOptions): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, ETL_CLI, 'build', '--source', o.sourceDir, '--data-dir', o.dataDir], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stop = (signal: NodeJS.Signals) => {
    child.kill(signal);
    child.once('exit', () => process.exit(1));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      if (code === 0) resolve();
      else reject(new Error(`etl build exited with ${signal ?? `code ${code}`}`));
    });
  });
}
