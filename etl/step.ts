// The contract every ETL step implements. The orchestrator (etl/build.ts) owns what is common:
// checksumming inputs, skipping unchanged steps, the temporary build directory, the atomic swap,
// progress display and the manifest. A step only reads its inputs and writes its outputs.

export interface ProgressBar {
  increment(n?: number): void;
  stop(): void;
}

export interface StepLogger {
  info(message: string): void;
  warn(message: string): void;
  /** A progress bar on stderr (a no-op outside a terminal or when --quiet). */
  progress(label: string, total: number): ProgressBar;
}

export interface StepContext {
  /** Root of the source tree in the layout documented by ../shared/census/README.md. */
  sourceDir: string;
  /** Directory of the build being written; the step writes only below `${outDir}/<its outputs>`. */
  outDir: string;
  /**
   * The previous complete build, if any. A step may reuse (hard-link or copy) parts of it whose
   * inputs did not change, e.g. unchanged Parquet partitions.
   */
  previousDir: string | undefined;
  /**
   * Input checksums recorded for this step in the previous manifest (relative path → sha256).
   * Empty when the step's version changed since, so nothing is reused across code changes.
   */
  previousInputs: Record<string, string>;
  /** Row counts the previous build recorded for this step (same keys as StepResult.rows). */
  previousRows: Record<string, number>;
  /** Checksums of this run's inputs (relative path → sha256), computed by the orchestrator. */
  inputs: Record<string, string>;
  log: StepLogger;
  /** Set when the build is a synthetic scale build; every output must carry the marker. */
  synthetic: boolean;
}

export interface StepResult {
  /** Row counts per output (e.g. `observations/acs1/2018/state` → 1_234). */
  rows: Record<string, number>;
  /** Human-readable notes for the manifest (gaps found, reused partitions, …). */
  notes?: string[];
  /** Wall milliseconds per phase, for benchmarks (bench:etl); not written to the manifest. */
  timings?: Record<string, number>;
}

export interface EtlStep {
  /** Unique name, also the manifest key. */
  name: string;
  /** Bump when the step's code changes what it writes: forces a rebuild of its outputs. */
  version: number;
  /** Paths (files or directories) relative to the build directory that this step owns. */
  outputs: string[];
  /** Names of steps whose outputs this step reads from `outDir` (they run first). */
  dependsOn?: string[];
  /** Source files this step reads, relative to the source root (used for checksums/provenance). */
  listInputs(sourceDir: string): Promise<string[]>;
  run(ctx: StepContext): Promise<StepResult>;
}

/** A malformed input: the build stops, names the file (and row) and writes nothing. */
export class InputError extends Error {
  constructor(
    readonly file: string,
    message: string,
    readonly row?: number,
  ) {
    super(`${file}${row === undefined ? '' : `, row ${row}`}: ${message}`);
    this.name = 'InputError';
  }
}
