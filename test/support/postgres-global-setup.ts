// vitest globalSetup: one PostgreSQL for the whole run (about 1.5 s to start), handed to the test
// workers and to the server processes they spawn through CDS_TEST_POSTGRES_URL. Each test file
// then takes its own database (freshDatabase() in test/support/postgres.ts).
import { startPostgres, type PostgresServer } from './postgres.js';

let server: PostgresServer | undefined;

export async function setup(): Promise<void> {
  if (process.env.CDS_TEST_POSTGRES_URL) return; // an outside server was given
  server = await startPostgres();
  process.env.CDS_TEST_POSTGRES_URL = server.url();
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
