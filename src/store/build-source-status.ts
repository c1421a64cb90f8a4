// What /health says about the build source (DATA_SOURCE): kept apart from the follower that
// fills it in (build-follower.ts), so the store registry (src/context/stores.ts) can name it
// without importing the follower, which itself imports the registry.
export interface BuildSourceStatus {
  /** What DATA_SOURCE is (its address stays in the configuration and the log: /health is public). */
  kind: 's3' | 'directory';
  /** DATA_BUILD, when the replica is pinned to one build. */
  pinned: string | null;
  reachable: boolean | null;
  /** The build `latest.json` named at the last successful check. */
  latest: string | null;
  last_check: string | null;
  /** Why the last check or pull failed (a short reason, no internals); null after a success. */
  last_error: string | null;
  switches: number;
}
