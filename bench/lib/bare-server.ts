// The baseline of bench/http-load.ts, in its own process: fastify alone, answering
// GET /constant/<i> with the i-th body of a JSON array file (the very bytes the service sent for
// case i). Prints its port on stdout once listening. The bodies are held as UTF-8 bytes, the
// cheapest way to send them: the service sends kept answers as bytes too, and a baseline that
// encoded a string on every request would flatter it.
import fs from 'node:fs';
import Fastify from 'fastify';

const bodies = (JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as string[]).map((b) => Buffer.from(b));
const app = Fastify({ logger: false });
app.get('/constant/:i', async (req, reply) => reply.type('application/json').send(bodies[Number((req.params as { i: string }).i)]));
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${(app.server.address() as { port: number }).port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
