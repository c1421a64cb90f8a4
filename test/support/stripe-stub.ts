// A local stand-in for the three Stripe API endpoints the service calls (customers.create,
// checkout.sessions.create, billingPortal.sessions.create). The real stripe SDK talks to it over
// HTTP via its host/port/protocol options; every request is recorded for assertions.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export interface StubRequest {
  method: string;
  path: string;
  /** Flat form fields as sent (`line_items[0][price_data][unit_amount]`). */
  form: Record<string, string>;
  headers: http.IncomingHttpHeaders;
}

export interface StripeStub {
  url: string;
  requests: StubRequest[];
  /** Make the next N requests fail with HTTP 500 (after the SDK's retries too). */
  failNext(n: number): void;
  close(): Promise<void>;
}

const rid = (p: string) => `${p}_${randomBytes(8).toString('hex')}`;

export async function startStripeStub(): Promise<StripeStub> {
  const requests: StubRequest[] = [];
  const customersByIdem = new Map<string, string>();
  let failures = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      const path = (req.url ?? '').split('?')[0]!;
      requests.push({ method: req.method ?? '', path, form, headers: req.headers });
      const send = (status: number, obj: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': rid('req') });
        res.end(JSON.stringify(obj));
      };
      if (failures > 0) {
        failures--;
        return send(500, { error: { type: 'api_error', message: 'stub failure' } });
      }
      if (!/^Bearer sk_/.test(String(req.headers.authorization ?? ''))) {
        return send(401, { error: { type: 'invalid_request_error', message: 'No API key provided' } });
      }
      if (req.method === 'POST' && path === '/v1/customers') {
        const idem = String(req.headers['idempotency-key'] ?? '');
        const id = (idem && customersByIdem.get(idem)) || rid('cus');
        if (idem) customersByIdem.set(idem, id);
        return send(200, { id, object: 'customer', email: form.email ?? null, metadata: { account_id: form['metadata[account_id]'] } });
      }
      if (req.method === 'POST' && path === '/v1/checkout/sessions') {
        const id = rid('cs_test');
        return send(200, {
          id,
          object: 'checkout.session',
          mode: form.mode,
          customer: form.customer,
          url: `https://checkout.stripe.com/c/pay/${id}`,
          expires_at: Math.floor(Date.now() / 1000) + 86_400,
          metadata: { account_id: form['metadata[account_id]'], plan: form['metadata[plan]'], interval: form['metadata[interval]'] },
        });
      }
      if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
        const id = rid('bps');
        return send(200, { id, object: 'billing_portal.session', customer: form.customer, url: `https://billing.stripe.com/p/session/${id}`, return_url: form.return_url });
      }
      return send(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method} ${path})` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    failNext: (n) => {
      failures = n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
