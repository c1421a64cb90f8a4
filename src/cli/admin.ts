// Admin CLI (`npm run --silent admin -- <command>`). It opens the same accounts store as the
// server (DATABASE_URL when set, else DATABASE_PATH) and calls the same verbs. Logs go to stderr so stdout carries only the
// result: `keys create` prints the key alone, for `KEY=$(npm run --silent admin -- keys create …)`.
import { randomUUID } from 'node:crypto';
import { Command, CommanderError } from 'commander';
import pino from 'pino';
import { ConfigError, loadConfig } from '../config.js';
import { isAppError } from '../domain/errors.js';
import { openAccountsStore, type AccountsStore } from '../store/accounts/index.js';
import { PathSettingError } from '../store/fs-check.js';
import { adminIssueKey } from '../verbs/account-admin-issue-key.js';
import { adminRevokeKey } from '../verbs/account-admin-revoke-key.js';
import { adminSetPlan } from '../verbs/account-admin-set-plan.js';
import { inviteCreate } from '../verbs/account-invite-create.js';
import { retentionRun } from '../verbs/account-retention-run.js';
import { tosPublish } from '../verbs/account-tos-publish.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';

/** Any verb, called with its options as the command line gave them: the verb parses them (`option → plan`). */
type AnyVerb = { invoke(args: { ctx: VerbContext; input?: unknown }): Promise<VerbResult<unknown>> };

export async function main(argv: string[], io = { out: process.stdout, err: process.stderr }): Promise<number> {
  let store: AccountsStore | undefined;
  const exec = async (verb: AnyVerb, input: unknown) => {
    const config = loadConfig();
    store ??= openAccountsStore(config);
    const log = pino({ level: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, redact: ['key', '*.key'] }, pino.destination(2));
    const ctx: VerbContext = {
      requestId: randomUUID(),
      caller: null,
      stores: { accounts: store },
      config,
      now: () => new Date(),
      log,
      via: 'cli',
    };
    return (await verb.invoke({ ctx, input })).data;
  };
  const json = (v: unknown): void => {
    io.out.write(`${JSON.stringify(v, null, 2)}\n`);
  };

  const program = new Command('admin')
    .description('Census Data Service administration (accounts, keys, plans, retention, terms)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.err.write(s), writeErr: (s) => io.err.write(s) });

  const keys = program.command('keys').description('API keys');
  keys
    .command('create')
    .description('Create a key (and the account if needed, with the given plan); prints the key alone')
    .requiredOption('--email <email>', 'account e-mail')
    .requiredOption('--plan <plan>', 'free | pioneer | pro | business | enterprise')
    .option('--name <name>', 'key name', 'admin-issued')
    .action(async (o: { email: string; plan: string; name: string }) => {
      const r = (await exec(adminIssueKey, o)) as { key: string };
      io.out.write(`${r.key}\n`);
    });
  keys
    .command('revoke <key>')
    .description('Revoke a key by id (key_…) or by the full key')
    .action(async (key: string) => json(await exec(adminRevokeKey, { key })));

  program
    .command('accounts')
    .description('Accounts')
    .command('set-plan')
    .requiredOption('--account <email|id>', 'account e-mail or id')
    .requiredOption('--plan <plan>', 'free | pioneer | pro | business | enterprise')
    .action(async (o: { account: string; plan: string }) => json(await exec(adminSetPlan, o)));

  program
    .command('retention')
    .description('Data retention')
    .command('run')
    .description('Purge deleted accounts (30 days), request logs (24 months); anonymize IPs (12 months)')
    .action(async () => json(await exec(retentionRun, {})));

  program
    .command('tos')
    .description('Terms of service')
    .command('publish')
    .requiredOption('--version <version>', 'document version, e.g. 2026-04')
    .option('--effective <iso-datetime>', 'when it takes effect (default now)')
    .option('--url <url>', 'where the document is published')
    .action(async (o: { version: string; effective?: string; url?: string }) =>
      json(await exec(tosPublish, { version: o.version, effective_at: o.effective, url: o.url })),
    );

  program
    .command('invites')
    .description('Private-beta invite codes')
    .command('create')
    .option('--plan <plan>', 'plan granted on activation')
    .option('--expires-days <n>', 'days until the code expires', '14')
    .action(async (o: { plan?: string; expiresDays: string }) =>
      json(await exec(inviteCreate, { plan: o.plan, expires_days: o.expiresDays })),
    );

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    if (e instanceof PathSettingError || e instanceof ConfigError) {
      io.err.write(`error: invalid configuration: ${e.message}\n`);
      return 2;
    }
    if (isAppError(e)) {
      io.err.write(`error: ${e.detail}\n`);
      return e.status === 404 ? 3 : e.status < 500 ? 2 : 1;
    }
    io.err.write(`error: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await store?.close();
  }
}

const isEntry = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntry) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
