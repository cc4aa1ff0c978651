/**
 * The issuer's calls to the brokerage partner: the mint and redeem callbacks and the poll of a redemption's record,
 * under the issuer's own account at the broker (`BROKER_ACCOUNT_ID`) with the issuer's basic-auth credential. Each
 * call carries an `Idempotency-Key` derived from the request, so a retry after a lost answer has one effect.
 * Any answer but a 2xx throws `BrokerCallFailed`: a refusal (`refused`: a 4xx other than 408, 409, 425 and 429) the
 * broker will give again to the same call, anything else (5xx, those four, no answer) a failure worth retrying.
 */
import { brokerCalls } from '../metrics/metrics';

export interface BrokerConnection {
  /** e.g. `http://127.0.0.1:8090` */
  url: string;
  /** The issuer's own account id at the broker: callbacks and reads go under it. */
  accountId: string;
  key: string;
  secret: string;
  /** Per call, default 10 s. */
  timeoutMs?: number;
}

/** The broker the BROKER_* variables name: all four, or none (undefined); some but not all is a configuration error. */
export function configuredBroker(config: { BROKER_URL?: string; BROKER_ACCOUNT_ID?: string; BROKER_KEY?: string; BROKER_SECRET?: string }): BrokerConnection | undefined {
  const { BROKER_URL: url, BROKER_ACCOUNT_ID: accountId, BROKER_KEY: key, BROKER_SECRET: secret } = config;
  if (url && accountId && key && secret) return { url, accountId, key, secret };
  if (url || accountId || key || secret) throw new Error('invalid configuration: BROKER_URL, BROKER_ACCOUNT_ID, BROKER_KEY and BROKER_SECRET go together');
  return undefined;
}

/** 4xx answers that say "not now" rather than "no": timeout, conflict (e.g. shares not journalled yet), too early, too many. */
const TRANSIENT_CLIENT_ERRORS = new Set([408, 409, 425, 429]);

export class BrokerCallFailed extends Error {
  override readonly name = 'BrokerCallFailed';
  constructor(
    message: string,
    readonly status: number | undefined,
    /** The broker's answer (its first 500 characters), when it answered. */
    readonly answer?: string,
  ) {
    super(message);
  }

  /** The broker refused the call as such: sending it again unchanged gets the same answer. */
  get refused(): boolean {
    return this.status !== undefined && this.status >= 400 && this.status < 500 && !TRANSIENT_CLIENT_ERRORS.has(this.status);
  }
}

export interface MintCallback {
  tokenization_request_id: string;
  client_id: string;
  wallet_address: string;
  tx_hash: string;
  network: string;
}

export interface RedeemCallback {
  issuer_request_id: string;
  underlying_symbol: string;
  token_symbol: string;
  client_id: string;
  qty: string;
  network: string;
  wallet_address: string;
  tx_hash: string;
}

/** The fields of a broker record the issuer reads back. */
export interface BrokerRecord {
  tokenization_request_id: string;
  status: 'pending' | 'completed' | 'rejected';
  issuer_request_id: string | null;
  reason?: string | null;
}

export interface NewBrokerOrder {
  symbol: string;
  qty: string;
  side: 'buy' | 'sell';
  type: 'market';
  client_order_id: string;
}

/** An order as the broker's trading interface answers it. */
export interface BrokerOrder {
  id: string;
  client_order_id: string;
  symbol: string;
  qty: string;
  side: 'buy' | 'sell';
  status: 'new' | 'partially_filled' | 'filled' | 'canceled' | 'rejected';
  filled_qty: string;
  filled_avg_price: string | null;
  reason?: string | null;
  submitted_at: string;
  filled_at: string | null;
}

/** The error code in a broker's refusal body (`{code, message}`), if it has one. */
export function brokerErrorCode(failure: BrokerCallFailed): string | undefined {
  try {
    return (JSON.parse(failure.answer ?? '') as { code?: string }).code;
  } catch {
    return undefined;
  }
}

export class BrokerClient {
  constructor(private readonly connection: BrokerConnection) {}

  private async call(method: 'GET' | 'POST', path: string, options: { body?: unknown; idempotencyKey?: string; trading?: boolean } = {}): Promise<unknown> {
    const { url, accountId, key, secret, timeoutMs = 10_000 } = this.connection;
    const target = `${url.replace(/\/+$/, '')}/v1/${options.trading ? 'trading/' : ''}accounts/${encodeURIComponent(accountId)}${path}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(target, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`,
          accept: 'application/json',
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      brokerCalls.inc({ outcome: 'unreachable' });
      throw new BrokerCallFailed(`${method} ${target} failed: ${(error as Error).message}`, undefined);
    }
    brokerCalls.inc({ outcome: response.status >= 500 ? 'server_error' : response.status >= 400 ? 'refused' : 'ok' });
    if (response.status < 200 || response.status >= 300) {
      throw new BrokerCallFailed(`${method} ${target} answered ${response.status}: ${text.slice(0, 300)}`, response.status, text.slice(0, 500));
    }
    return text === '' ? undefined : JSON.parse(text);
  }

  /** Tells the broker the tokens of a mint are in the wallet. */
  async mintCallback(issuerRequestId: string, body: MintCallback): Promise<void> {
    await this.call('POST', '/tokenization/callback/mint', { body, idempotencyKey: `mint-callback-${issuerRequestId}` });
  }

  /** Tells the broker tokens were burnt: it records the redemption and journals the shares back. */
  async redeemCallback(body: RedeemCallback): Promise<void> {
    await this.call('POST', '/tokenization/callback/redeem', { body, idempotencyKey: `redeem-callback-${body.issuer_request_id}` });
  }

  /** Places an order for the issuer's own account; the same `client_order_id` again answers the first order. */
  async placeOrder(order: NewBrokerOrder): Promise<BrokerOrder> {
    return (await this.call('POST', '/orders', { body: { ...order, time_in_force: 'day' }, trading: true })) as BrokerOrder;
  }

  async getOrder(orderId: string): Promise<BrokerOrder> {
    return (await this.call('GET', `/orders/${encodeURIComponent(orderId)}`, { trading: true })) as BrokerOrder;
  }

  /** The issuer account's share positions. */
  async positions(): Promise<{ symbol: string; qty: string }[]> {
    return (await this.call('GET', '/positions', { trading: true })) as { symbol: string; qty: string }[];
  }

  /** The broker's record of the issuer's request, if it has one. */
  async findByIssuerRequestId(issuerRequestId: string, type: 'mint' | 'redeem'): Promise<BrokerRecord | undefined> {
    const records = (await this.call('GET', `/tokenization/requests?type=${type}&issuer_request_id=${encodeURIComponent(issuerRequestId)}`)) as BrokerRecord[];
    return records.find((record) => record.issuer_request_id === issuerRequestId);
  }
}
