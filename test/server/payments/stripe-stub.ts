import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The form-encoded body as Stripe's API receives it, decoded into key → value. */
  form: Record<string, string>;
  raw: string;
}

export type StubReply = { status: number; body: unknown; headers?: Record<string, string> };

/**
 * A local HTTP server that speaks Stripe's wire format for PaymentIntents: form-encoded requests,
 * JSON objects back, Stripe's error envelope. Tests script the replies (late ones too) and read
 * what it received.
 */
export async function stripeStub(reply: (req: StubRequest) => StubReply | Promise<StubReply> = paymentIntentCreated) {
  const received: StubRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      const r: StubRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        form: Object.fromEntries(new URLSearchParams(raw)),
        raw,
      };
      received.push(r);
      const out = await reply(r); // a slow Stripe answers late
      res.writeHead(out.status, {
        'content-type': 'application/json',
        'request-id': `req_stub${received.length}`,
        'stripe-should-retry': 'false',
        ...out.headers,
      });
      res.end(JSON.stringify(out.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Stripe's answer to POST /v1/payment_intents, built from the parameters it was sent. */
export function paymentIntentCreated(req: StubRequest): StubReply {
  const id = 'pi_3StubIntent0000000000001';
  return {
    status: 200,
    body: {
      id,
      object: 'payment_intent',
      amount: Number(req.form.amount),
      currency: req.form.currency,
      application_fee_amount: Number(req.form.application_fee_amount),
      client_secret: `${id}_secret_StubSecret000000000000001`,
      status: 'requires_payment_method',
      livemode: false,
      metadata: { order_id: req.form['metadata[order_id]'] },
      transfer_data: { destination: req.form['transfer_data[destination]'] },
    },
  };
}

export const cardDeclined: StubReply = {
  status: 402,
  body: {
    error: {
      type: 'card_error',
      code: 'card_declined',
      decline_code: 'generic_decline',
      message: 'Your card was declined.',
      request_log_url: 'https://dashboard.stripe.com/test/logs/req_stub',
    },
  },
};
