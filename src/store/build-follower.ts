// A replica's link to DATA_SOURCE: pull the published build at start, then follow `latest`.
//
// Start: the named (DATA_BUILD) or latest build is pulled into DATA_DIR and verified, and `current`
// points at it. Source unreachable (or its build refused) with a build already here: that one is
// served and /health says so; with none: data endpoints answer 503 until a poll succeeds.
// Serving: every DATA_POLL_INTERVAL_MS `latest.json` is read; a different build is pulled and
// verified beside the live one, stores are opened on it, and the live stores switch for the next
// request (LiveStores); the old build closes once its requests drained. A failed poll or pull
// changes nothing that is served.
import type { Logger } from 'pino';
import type { LiveStores } from '../context/live-stores.js';
import type { Stores } from '../context/stores.js';
import type { BuildSourceStatus } from './build-source-status.js';
import { readManifest, resolveCurrentBuild } from './data-dir.js';
import { openObjectStore, type ObjectStore } from './object-store/index.js';
import { BuildVerificationError, makeCurrent, prunePulled, pullBuild, readLatest } from './build-pull.js';

export interface FollowerOptions {
  source: string;
  dataDir: string;
  buildId?: string;
  intervalMs: number;
  env?: NodeJS.ProcessEnv;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Opens the data stores of a build directory (src/store/open.ts openDataStores). */
  open: (dir: string) => Promise<{ stores: Stores; close(): void }>;
  /** Test hook: an already opened store. */
  store?: ObjectStore;
}

/** What an operator can act on, without stack traces or addresses beyond the configured source. */
function reasonOf(e: unknown): string {
  if (e instanceof BuildVerificationError) return `refused: ${e.message}`;
  const err = e as { name?: string; code?: string; path?: string; $metadata?: { httpStatusCode?: number } };
  const status = err.$metadata?.httpStatusCode;
  // A file-system error names a path: it is this replica's disk (full, read-only), not the source.
  if (err.path !== undefined && err.code) return `local data directory error (${err.code})`;
  if (status) return `object store answered HTTP ${status} (${err.name ?? 'error'})`;
  return `object store unreachable (${err.code ?? err.name ?? 'error'})`;
}

export class BuildFollower {
  readonly status: BuildSourceStatus;
  private store: ObjectStore | undefined;
  private timer: NodeJS.Timeout | undefined;
  private busy: Promise<void> | undefined;
  private live: LiveStores | undefined;
  private stopped = false;

  constructor(private readonly opts: FollowerOptions) {
    this.store = opts.store;
    this.status = {
      kind: opts.source.startsWith('s3://') ? 's3' : 'directory',
      pinned: opts.buildId ?? null,
      reachable: null,
      latest: null,
      last_check: null,
      last_error: null,
      switches: 0,
    };
  }

  private async objectStore(): Promise<ObjectStore> {
    this.store ??= await openObjectStore(this.opts.source, this.opts.env);
    return this.store;
  }

  private ok(latest: string | null) {
    Object.assign(this.status, { reachable: true, latest, last_check: new Date().toISOString(), last_error: null });
  }

  private failed(e: unknown) {
    const refused = e instanceof BuildVerificationError;
    Object.assign(this.status, { reachable: refused, last_check: new Date().toISOString(), last_error: reasonOf(e) });
  }

  /** The build to follow now: DATA_BUILD, or what latest.json names (undefined: nothing published). */
  private async target(): Promise<string | undefined> {
    if (this.opts.buildId) return this.opts.buildId;
    const latest = await readLatest(await this.objectStore());
    this.status.latest = latest?.build_id ?? null;
    return latest?.build_id;
  }

  /**
   * At start, before the stores open: pull and verify the build, and point `current` at it. Never
   * throws: a failure leaves whatever is already in DATA_DIR to be served (and /health says so).
   */
  async prepare(): Promise<void> {
    try {
      const id = await this.target();
      if (!id) throw new BuildVerificationError(`nothing is published in the data source yet`);
      const pulled = await pullBuild(await this.objectStore(), this.opts.dataDir, { buildId: id });
      await makeCurrent(this.opts.dataDir, pulled.buildId);
      this.ok(this.status.latest ?? id);
      this.opts.log.info(
        {
          build: pulled.buildId,
          source: this.opts.source,
          downloaded: pulled.downloaded,
          bytes: pulled.downloadedBytes,
          linked: pulled.linked,
        },
        'data build pulled and verified',
      );
    } catch (e) {
      this.failed(e);
      const local = resolveCurrentBuild(this.opts.dataDir);
      let serving: string | null = null;
      try {
        serving = local ? readManifest(local).build_id : null;
      } catch {
        // An unreadable manifest is reported by the stores when they open.
      }
      this.opts.log.error(
        { err: e, source: this.opts.source, serving },
        local
          ? 'data source unavailable at start: serving the build already pulled'
          : 'data source unavailable at start and no build pulled yet',
      );
    }
  }

  /** Poll for newer builds and switch `live` to them (no polling when pinned or the interval is 0). */
  start(live: LiveStores): void {
    this.live = live;
    if (this.opts.intervalMs <= 0 || this.stopped) return;
    const tick = () => {
      this.timer = setTimeout(() => void this.check().finally(() => !this.stopped && tick()), this.opts.intervalMs);
      this.timer.unref();
    };
    tick();
  }

  /** One poll, now (also what the timer runs). Resolves when any switch it started has been made. */
  check(): Promise<void> {
    this.busy ??= this.checkOnce().finally(() => (this.busy = undefined));
    return this.busy;
  }

  private async checkOnce(): Promise<void> {
    const live = this.live;
    if (!live) return;
    let id: string | undefined;
    try {
      id = await this.target();
    } catch (e) {
      this.failed(e);
      this.opts.log.warn({ err: e, source: this.opts.source }, 'data source unavailable: serving the loaded build');
      return;
    }
    const serving = live.stores.build?.manifest.build_id;
    // Pinned and served: nothing was asked of the source, so nothing is claimed about it.
    if (id === serving && this.opts.buildId) return;
    if (!id || id === serving) return this.ok(this.status.latest);
    try {
      const pulled = await pullBuild(await this.objectStore(), this.opts.dataDir, { buildId: id });
      const next = await this.opts.open(pulled.dir);
      if (!next.stores.build || !next.stores.observations || !next.stores.catalog) {
        next.close();
        throw new BuildVerificationError(`build ${id} did not open (see the log); still serving ${serving ?? 'nothing'}`);
      }
      if (this.stopped) return next.close();
      const drained = live.switchTo(next.stores, next.close);
      this.status.switches++;
      this.ok(this.status.latest);
      await makeCurrent(this.opts.dataDir, pulled.buildId);
      this.opts.log.info(
        { build: id, previous: serving ?? null, downloaded: pulled.downloaded, linked: pulled.linked },
        'switched to a new data build',
      );
      await drained;
      await prunePulled(this.opts.dataDir, [id]);
    } catch (e) {
      this.failed(e);
      this.opts.log.error({ err: e, build: id, serving: serving ?? null }, 'new data build not switched to: still serving the loaded one');
    }
  }

  /**
   * No more polls. A pull under way is not waited for (it may be gigabytes; shutdown has a grace
   * period): its temporary directory is removed by the next start, and it is never switched to.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
