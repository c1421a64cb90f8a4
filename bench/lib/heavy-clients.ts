// The heavy half of bench/heavy.ts, in its own process so that reading ~15 MB answers at full speed
// does not slow the light probe's own event loop (which would be measured as server latency).
// argv: port, concurrency, comma-separated keys. Runs until stdin closes, then prints one JSON
// line: outcomes by status, the largest body, and the 200s' durations.
import http from 'node:http';
import { heavyPath } from './heavy-request.js';
import { timedGet } from './timed-get.js';

const [port, concurrency, keyList] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]!.split(',')];

let stop = false;
process.stdin.on('end', () => (stop = true));
process.stdin.resume();
const outcomes: Record<string, number> = {};
const ms: number[] = [];
let bytes = 0;
await Promise.all(
  Array.from({ length: concurrency }, async (_, i) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let n = i;
    while (!stop) {
      const r = await timedGet(port, heavyPath(n++), keyList[i % keyList.length]!, agent);
      outcomes[r.status] = (outcomes[r.status] ?? 0) + 1;
      if (r.status === 200) {
        bytes = Math.max(bytes, r.bytes);
        ms.push(r.ms);
      } else await new Promise((res) => setTimeout(res, 500)); // Retry-After: back off
    }
    agent.destroy();
  }),
);
process.stdout.write(`${JSON.stringify({ outcomes, bytes, ms })}\n`);
