// docker-compose.yml cannot be started here (no Docker engine), so what can drift is checked:
// every setting the compose file gives the service is one the service reads, the load balancer
// points at the replicas the file defines, and the commands it runs exist.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config.js';
import { REPO_ROOT } from '../support/paths.js';

interface Service {
  build?: string;
  image?: string;
  entrypoint?: string[] | string;
  environment?: Record<string, string>;
  networks?: Record<string, { ipv4_address?: string }> | string[];
  depends_on?: Record<string, { condition: string }> | string[];
}

// Compose's own interpolation with no variables set: `${X:-default}` is the default, `$$` a `$`.
const interpolate = (text: string) =>
  text.replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_, _name: string, dflt?: string) => dflt ?? '').replace(/\$\$/g, '$');
const compose = parse(interpolate(fs.readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8')), { merge: true }) as {
  services: Record<string, Service>;
};
const nginx = fs.readFileSync(path.join(REPO_ROOT, 'deploy/nginx.conf'), 'utf8');
const ours = Object.entries(compose.services).filter(([, s]) => s.build === '.');
// Read by the AWS SDK itself, not by our configuration schema.
const AWS_SDK_SETTINGS = new Set(['AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']);
// Read by the ETL CLI (etl/cli.ts options with .env()), not by the server.
const ETL_SETTINGS = new Set(['CENSUS_SOURCE_DIR', 'DATA_DIR']);

describe('docker-compose.yml', () => {
  it('gives the service only settings it reads', () => {
    const known = new Set(Object.keys(configSchema.shape));
    for (const [name, s] of ours) {
      for (const key of Object.keys(s.environment ?? {})) {
        expect(known.has(key) || AWS_SDK_SETTINGS.has(key) || ETL_SETTINGS.has(key), `${name}: ${key}`).toBe(true);
      }
    }
  });

  it('runs replicas the service accepts: parsed by the real configuration schema', () => {
    const replicas = ours.filter(([name]) => name.startsWith('replica-'));
    expect(replicas.length).toBeGreaterThanOrEqual(2);
    for (const [name, s] of replicas) {
      const env = Object.fromEntries(Object.entries(s.environment ?? {}).filter(([k]) => !AWS_SDK_SETTINGS.has(k)));
      const parsed = configSchema.safeParse(env);
      expect(parsed.success, `${name}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      expect(parsed.data?.AUTO_BUILD_DATA).toBe(false);
    }
  });

  it('balances over exactly the replicas it defines, and trusts only the balancer', () => {
    const upstream = [...nginx.matchAll(/server\s+([\w-]+):(\d+)/g)].map((m) => [m[1], m[2]]);
    const replicas = ours.filter(([name]) => name.startsWith('replica-'));
    expect(upstream.map(([host]) => host).sort()).toEqual(replicas.map(([name]) => name).sort());
    for (const [, port] of upstream) expect(port).toBe(replicas[0]![1].environment!.PORT);
    const lb = compose.services.lb!.networks as Record<string, { ipv4_address?: string }>;
    const lbAddress = Object.values(lb)[0]!.ipv4_address;
    for (const [, s] of replicas) expect(s.environment!.TRUSTED_PROXIES).toBe(lbAddress);
  });

  it("runs ETL and admin commands that exist (each one's --help succeeds)", () => {
    const commands = [
      ['etl/cli.ts', 'build', '--help'],
      ['etl/cli.ts', 'publish', '--help'],
      ['src/cli/admin.ts', 'keys', 'create', '--help'],
    ];
    // The image runs the compiled modules (Dockerfile): each is its .ts source, transpiled.
    const publisher = String(compose.services.publisher!.entrypoint);
    expect(publisher).toContain('node etl/cli.js build');
    expect(publisher).toContain('node etl/cli.js publish --to s3://');
    expect(compose.services.admin!.entrypoint).toEqual(['node', 'src/cli/admin.js']);
    for (const args of commands) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
      expect(`${r.stdout}${r.stderr}`, args.join(' ')).toMatch(new RegExp(`Usage: \\S+ ${args.slice(1, -1).join(' ')}`));
    }
  }, 120_000);
});
