// A local stand-in for the three Stripe API endpoints the service calls (customers.create,
// checkout.sessions.create, billingPortal.sessions.create). The real stripe SDK talks to it over
// HTTP via its host/port/protocol options; every request is recorded for assertions.
//
// With `checkout` options it also plays the hosted Checkout page for browser tests: the session
// url points at the stub itself, whose "Pay" button sends the signed webhooks Stripe would send
// (checkout.session.completed, customer.subscription.created) to the service and then returns
// the browser to the session's success_url.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';

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

export interface StubCheckoutOptions {
  /** The service's webhook address, e.g. http://127.0.0.1:1234/v1/billing/webhook. */
  webhookUrl: () => string;
  webhookSecret: string;
}

const sdk = new Stripe('sk_test_stub_signer');

async function sendWebhook(opts: StubCheckoutOptions, event: Record<string, unknown>): Promise<void> {
  const payload = JSON.stringify(event);
  const signature = sdk.webhooks.generateTestHeaderString({ payload, secret: opts.webhookSecret });
  const res = await fetch(opts.webhookUrl(), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: payload,
  });
  if (!res.ok) throw new Error(`webhook ${event.type} answered ${res.status}: ${await res.text()}`);
}

export async function startStripeStub(opts: { checkout?: StubCheckoutOptions } = {}): Promise<StripeStub> {
  const requests: StubRequest[] = [];
  const customersByIdem = new Map<string, string>();
  const sessions = new Map<string, Record<string, string>>();
  let failures = 0;
  let selfUrl = '';
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
      const pay = /^\/c\/pay\/(cs_test_[0-9a-f]+)$/.exec(path);
      if (pay && opts.checkout) {
        const session = sessions.get(pay[1]!);
        if (!session) return send(404, { error: 'no such session' });
        if (req.method === 'GET') {
          const amount = (Number(session['line_items[0][price_data][unit_amount]']) / 100).toFixed(2);
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(
            `<!doctype html><html lang="en"><head><title>Test checkout</title></head><body><main><h1>Test checkout (Stripe stub)</h1><p>${session['line_items[0][price_data][product_data][name]']}: $${amount}</p><form method="post"><button type="submit">Pay</button></form></main></body></html>`,
          );
          return;
        }
        const now = Math.floor(Date.now() / 1000);
        const metadata = {
          account_id: session['metadata[account_id]']!,
          plan: session['metadata[plan]']!,
          interval: session['metadata[interval]']!,
        };
        const subId = rid('sub');
        const interval = session['line_items[0][price_data][recurring][interval]'] ?? 'month';
        void (async () => {
          await sendWebhook(opts.checkout!, {
            id: rid('evt'),
            object: 'event',
            type: 'checkout.session.completed',
            created: now,
            data: {
              object: {
                id: pay[1],
                object: 'checkout.session',
                mode: 'subscription',
                customer: session.customer,
                subscription: subId,
                client_reference_id: session.client_reference_id,
                payment_status: 'paid',
                metadata,
              },
            },
          });
          await sendWebhook(opts.checkout!, {
            id: rid('evt'),
            object: 'event',
            type: 'customer.subscription.created',
            created: now,
            data: {
              object: {
                id: subId,
                object: 'subscription',
                customer: session.customer,
                status: 'active',
                metadata,
                items: { data: [{ id: rid('si'), current_period_end: now + 30 * 86_400, price: { recurring: { interval } } }] },
              },
            },
          });
        })().then(
          () => {
            res.writeHead(303, { location: (session.success_url ?? '').replace('{CHECKOUT_SESSION_ID}', pay[1]!) });
            res.end();
          },
          (e: Error) => {
            res.writeHead(502, { 'content-type': 'text/plain' });
            res.end(e.message);
          },
        );
        return;
      }
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
        sessions.set(id, form);
        return send(200, {
          id,
          object: 'checkout.session',
          mode: form.mode,
          customer: form.customer,
          url: opts.checkout ? `${selfUrl}/c/pay/${id}` : `https://checkout.stripe.com/c/pay/${id}`,
          expires_at: Math.floor(Date.now() / 1000) + 86_400,
          metadata: { account_id: form['metadata[account_id]'], plan: form['metadata[plan]'], interval: form['metadata[interval]'] },
        });
      }
      if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
        const id = rid('bps');
        return send(200, {
          id,
          object: 'billing_portal.session',
          customer: form.customer,
          url: `https://billing.stripe.com/p/session/${id}`,
          return_url: form.return_url,
        });
      }
      return send(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method} ${path})` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  selfUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: selfUrl,
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
