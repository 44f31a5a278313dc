import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import type { Metrics } from '../../../application/ports/metrics.ts';
import type {
  ItemSubscriptions,
  Subscription,
  SubscriptionEnd,
} from '../../../application/realtime/item-subscriptions.ts';
import type { Accountability } from '../../../domain/accountability.ts';
import { DomainError, invalidPayload } from '../../../domain/errors.ts';
import { describeTextPath, findTextFlaw } from '../../../domain/well-formed-text.ts';
import { sharedWhilePending } from '../../shared-while-pending.ts';
import { databaseWorkOf, shareKeyOf } from '../authenticated.ts';
import { urlToken } from '../bearer-token.ts';
import type { CallerConcurrencyLimit } from '../caller-concurrency-limit.ts';
import { clientAddress } from '../client-address.ts';
import { answerRawError } from '../client-error-answer.ts';
import { databaseFailureOf } from '../database-failure.ts';
import { errorResponse } from '../error-response.ts';
import { serveIgnoringUpgrade } from '../upgrade-ignored.ts';
import { WriteRounds } from '../write-rounds.ts';
import { subscriptionMessage, uidMember } from './subscription-message.ts';

/** Why an `auth` message's token was not taken (docs/api.md §12). */
type AuthRefusal = 'TOKEN_EXPIRED' | 'AUTH_FAILED';

/** The close codes of /websocket (docs/api.md §12). */
export const CLOSE = {
  normal: 1000,
  shutdown: 1001,
  tooLarge: 1009,
  authTimeout: 4001,
  authFailed: 4003,
  slowConsumer: 4008,
  tooMany: 4029,
} as const;

export type WebSocketLimits = {
  readonly connectionsPerUser: number;
  readonly connectionsPerAddress: number;
  readonly subscriptionsPerConnection: number;
  readonly messageMaxBytes: number;
  /** Bytes queued in the socket past which the client is a slow consumer and is disconnected. */
  readonly sendBufferMaxBytes: number;
  /** How long a connection without a credential or a subscription may stay idle before 4001. */
  readonly authTimeoutMs: number;
  /** The period of the server's `ping`; a peer that sent nothing for a whole period is dropped. 0 = off. */
  readonly heartbeatMs: number;
};

export type WebSocketOptions = {
  readonly subscriptions: ItemSubscriptions;
  /** The caller a token stands for now; null (or a throw) when it no longer holds. null token = public. */
  readonly authenticate: (token: string | null) => Promise<Accountability | null>;
  readonly limits: WebSocketLimits;
  readonly path?: string;
  /** The shortest time between two rounds of writes (`realtime.writeInterval`, WriteRounds); unset: 0. */
  readonly writeIntervalMs?: number;
  /** `auth.allowQueryToken`: whether the upgrade's URL may carry `?access_token=`; unset: true. */
  readonly allowQueryToken?: boolean;
  /** `http.trustProxy`: whether the client address is the one a proxy forwarded (clientAddress); unset: false. */
  readonly trustProxy?: boolean;
  /** Where a subscription's database failure is counted, as every request's is (docs/api.md §11); unset: nowhere. */
  readonly metrics?: Metrics;
  /**
   * The callers' shares of the work served at once, the HTTP routes' own (`limits.perCaller`, §4a): a subscribe
   * runs its `init` list within its caller's share, as the event stream's does. Unset: no share.
   */
  readonly callerLimit?: CallerConcurrencyLimit;
};

type Message = Readonly<Record<string, unknown>>;

/** The events a subscription may be narrowed to with Directus's `event` member (docs/api.md §12). */
const SUBSCRIBABLE_EVENTS: ReadonlySet<string> = new Set(['create', 'update', 'delete']);

/**
 * A message's `uid`: a string or a number, as Directus's message schema takes it, echoed in the answers as
 * given. Subscriptions are keyed by its text, so `8` and `"8"` name the same one.
 */
type Uid = string | number;

/**
 * /websocket in the Directus realtime protocol (docs/api.md §12): upgrades on the API's own HTTP server.
 * Returns the shutdown, which closes every socket with a reason.
 */
export function attachWebSocket(server: Server, options: WebSocketOptions): () => void {
  const path = options.path ?? '/websocket';
  // No permessage-deflate (ws's default, said here because it matters): a message is then the same bytes for
  // every socket, built once per event (subscription-message.ts), and no socket holds a compressor's memory.
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.limits.messageMaxBytes,
    perMessageDeflate: false,
  });
  const rounds = new WriteRounds(options.writeIntervalMs);
  const perAddress = new Map<string, number>();
  const perUser = new Map<string, number>();
  const connections = new Set<Connection>();
  // Every connection's subscriptions re-ask their credential together (the hub's recheck): alike ones share it.
  const connectionOptions = { ...options, authenticate: sharedWhilePending(options.authenticate) };
  const heartbeat =
    options.limits.heartbeatMs > 0
      ? setInterval(() => {
          for (const connection of connections) connection.heartbeat();
        }, options.limits.heartbeatMs).unref()
      : null;
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (
      url.pathname !== path ||
      request.method !== 'GET' ||
      request.headers.upgrade?.toLowerCase() !== 'websocket'
    ) {
      serveIgnoringUpgrade(server, request, socket as Socket, head);
      return;
    }
    const malformed = malformedHandshake(request);
    if (malformed) {
      refuseUpgrade(socket, malformed);
      return;
    }
    const address = clientAddress(request, options.trustProxy ?? false);
    if ((perAddress.get(address) ?? 0) >= options.limits.connectionsPerAddress) {
      refuseUpgrade(
        socket,
        new DomainError(
          'TOO_MANY_REQUESTS',
          'Too many WebSocket connections from this address; close one first.',
          // A place frees when one of them closes, which nothing here foresees: 1 s, as the other quotas.
          { reason: 'TOO_MANY_CONNECTIONS', retryAfter: 1 },
        ),
      );
      return;
    }
    let token: string | null;
    try {
      token = urlToken(queryStringOf(request.url), options.allowQueryToken ?? true);
    } catch (error) {
      refuseUpgrade(socket, error);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      count(perAddress, address, 1);
      const connection = new Connection(ws, socket, connectionOptions, rounds, perUser, token, address);
      connections.add(connection);
      ws.once('close', () => {
        count(perAddress, address, -1);
        connections.delete(connection);
      });
      void connection.start();
    });
  };
  server.on('upgrade', onUpgrade);
  return () => {
    server.off('upgrade', onUpgrade);
    if (heartbeat) clearInterval(heartbeat);
    for (const client of wss.clients) client.close(CLOSE.shutdown, 'Server shutting down');
    wss.close();
  };
}

/** The raw query string of a request line's target, as the HTTP routes read it (not re-encoded by URL). */
function queryStringOf(target: string | undefined): string {
  const question = target?.indexOf('?') ?? -1;
  return question === -1 ? '' : target!.slice(question + 1);
}

/**
 * What `ws` would refuse in a handshake, refused first in the contract's error shape (`ws` answers such a
 * handshake with an HTML page): a key that is not 16 bytes in base64, a protocol version other than 13 or 8.
 */
function malformedHandshake(request: IncomingMessage): DomainError | null {
  const key = request.headers['sec-websocket-key'];
  if (key === undefined || !/^[+/0-9A-Za-z]{22}==$/.test(key)) {
    return invalidPayload('A WebSocket handshake needs a Sec-WebSocket-Key of 16 bytes in base64.');
  }
  const version = request.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') {
    return invalidPayload('This server speaks WebSocket version 13 (Sec-WebSocket-Version: 13).');
  }
  return null;
}

/**
 * An upgrade whose URL token the HTTP routes would refuse (given twice or in a bracket form, or while
 * `auth.allowQueryToken` is off) is refused the same way, with the same 400 error body, before any socket
 * exists: never run as the public caller.
 */
function refuseUpgrade(socket: Duplex, error: unknown) {
  const { status, headers, body } = errorResponse(error, '');
  answerRawError(socket, status, headers, body);
}

function count(counts: Map<string, number>, key: string, delta: number): number {
  const next = (counts.get(key) ?? 0) + delta;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
  return next;
}

/** One client: its credential, its subscriptions by uid. */
class Connection {
  private token: string | null = null;
  private caller: Accountability | null = null;
  private user: string | null = null;
  /**
   * By `keyOf` the uid: a subscription with a uid is the one of that uid (`8` and `"8"` alike, as Directus keys
   * them); each without one is a subscription of its own, as Directus keeps them.
   */
  private readonly subscriptions = new Map<string, Subscription | null>();
  private withoutUid = 0;
  /** The messages received and not yet handled, handled in order (see `start`). */
  private inbox: Promise<void> = Promise.resolve();
  private pending = 0;
  private authTimer: NodeJS.Timeout | null = null;
  /** Set by each heartbeat's ping, cleared by any message from the client. */
  private silent = false;

  constructor(
    private readonly ws: WebSocket,
    /** The connection's TCP socket, the one `ws` writes its frames to. */
    private readonly socket: Duplex,
    private readonly options: WebSocketOptions,
    private readonly rounds: WriteRounds,
    private readonly perUser: Map<string, number>,
    private readonly urlToken: string | null,
    /** The client's address, as `http.trustProxy` reads it: an anonymous caller's share. */
    private readonly address: string,
  ) {}

  async start(): Promise<void> {
    // One message at a time, the socket paused meanwhile: a subscribe runs a list query for its `init`, and a
    // client sending faster than they finish must wait on TCP, not pile queries (or queued messages) up here.
    this.ws.on('message', (data, binary) => {
      this.silent = false;
      this.ws.pause();
      this.pending += 1;
      this.inbox = this.inbox
        .then(() => this.receive(data, binary))
        .catch(() => undefined)
        .finally(() => {
          this.pending -= 1;
          // Also while closing: the peer's answer to a close sent meanwhile (4029, 4008, 4003) must be read, or
          // the handshake waits out ws's 30 s close timeout, holding the connection's slots all along.
          if (this.pending === 0) this.ws.resume();
        });
    });
    this.ws.on('close', () => this.closeAll());
    this.ws.on('error', () => this.ws.terminate());
    // Messages wait for the connection's credential: a subscribe sent as soon as the socket opens must be
    // judged as the URL token's user (or the public caller), not as a caller still unknown.
    const credential = this.credential();
    this.inbox = credential.catch(() => undefined);
    await credential;
  }

  /** The URL token's caller (a bad token closes the socket), or the public caller and the auth timeout. */
  private async credential(): Promise<void> {
    if (this.urlToken !== null) {
      if ((await this.authenticate(this.urlToken)) !== null)
        this.ws.close(CLOSE.authFailed, 'Authentication failed');
      return;
    }
    // Without a credential the connection acts as the public caller, but one that neither authenticates nor
    // subscribes within the auth timeout is only holding a socket open, and is closed.
    this.caller = await this.options.authenticate(null).catch(() => null);
    this.authTimer = setTimeout(() => {
      this.error('auth', 'AUTH_TIMEOUT', 'No auth message arrived in time.', undefined);
      this.ws.close(CLOSE.authTimeout, 'Authentication timed out');
    }, this.options.limits.authTimeoutMs);
    this.authTimer.unref();
  }

  /**
   * One beat of the server's heartbeat (Directus's `ping`, which its SDK answers with `pong`): a peer that sent
   * nothing since the previous ping is gone or hung and is terminated — a close handshake would wait on it —
   * unless its own message is still being handled (its socket is paused meanwhile).
   */
  heartbeat(): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    if (this.silent && this.pending === 0) {
      this.ws.terminate();
      return;
    }
    this.silent = true;
    this.send({ type: 'ping' });
  }

  private async receive(data: RawData, binary: boolean): Promise<void> {
    let message: Message;
    try {
      const parsed: unknown = JSON.parse(binary ? '' : String(data));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not an object');
      message = parsed as Message;
    } catch {
      this.malformed('Messages are JSON objects.');
      return;
    }
    // Only what can be echoed as it came: an object's text would be "[object Object]" whatever it held.
    if (message.type !== undefined && typeof message.type !== 'string') {
      this.malformed('"type" is a string.');
      return;
    }
    if (!isUid(message.uid)) {
      this.malformed('"uid" is a string or a number.');
      return;
    }
    const type = message.type ?? '';
    const uid = message.uid;
    switch (type) {
      case 'ping':
        this.send({ type: 'pong', ...(uid === undefined ? {} : { uid }) });
        return;
      case 'pong':
        return;
      case 'auth':
        await this.authMessage(message, uid);
        return;
      case 'subscribe':
        await this.subscribe(message, uid);
        return;
      case 'unsubscribe':
        this.unsubscribe(uid);
        return;
      default:
        this.error(type || 'error', 'INVALID_PAYLOAD', `Unknown message type "${type}".`, uid);
    }
  }

  private async authMessage(message: Message, uid: Uid | undefined): Promise<void> {
    const token = typeof message.access_token === 'string' ? message.access_token : null;
    if (token === null) {
      this.error(
        'auth',
        'INVALID_PAYLOAD',
        'Send "access_token" (refresh tokens are exchanged over HTTP).',
        uid,
      );
      return;
    }
    const refusal = await this.authenticate(token);
    if (refusal === null) this.send({ type: 'auth', status: 'ok', ...(uid === undefined ? {} : { uid }) });
    else if (refusal === 'TOKEN_EXPIRED') this.error('auth', refusal, 'The token has expired.', uid);
    else this.error('auth', refusal, 'The token is not valid.', uid);
  }

  /**
   * Null once the token is this connection's credential, else why not: an expired token is TOKEN_EXPIRED, as
   * Directus answers (the client may refresh and send `auth` again), any other refusal AUTH_FAILED.
   */
  private async authenticate(token: string): Promise<AuthRefusal | null> {
    let refusal: AuthRefusal = 'AUTH_FAILED';
    const caller = await this.options.authenticate(token).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === 'TOKEN_EXPIRED') refusal = 'TOKEN_EXPIRED';
      return null;
    });
    if (caller === null) return refusal;
    if (caller.user !== this.user) {
      if (
        caller.user !== null &&
        count(this.perUser, caller.user, 1) > this.options.limits.connectionsPerUser
      ) {
        count(this.perUser, caller.user, -1);
        this.ws.close(CLOSE.tooMany, 'Too many connections for this user');
        return 'AUTH_FAILED';
      }
      if (this.user !== null) count(this.perUser, this.user, -1);
      this.user = caller.user;
    }
    this.token = token;
    this.caller = caller;
    if (this.authTimer) clearTimeout(this.authTimer);
    // The new credential holds from its answer on: nothing sent after `auth` ok is judged with the old one's
    // rights, which the next periodic recheck would only catch up with a second later.
    await Promise.all([...this.subscriptions.values()].map((subscription) => subscription?.recheck()));
    return null;
  }

  private async subscribe(message: Message, uid: Uid | undefined): Promise<void> {
    const key = uid === undefined ? `no uid ${this.withoutUid++}` : keyOf(uid);
    // Subscribed again under its uid, a subscription is replaced, as Directus replaces it: the old one stops
    // here (nothing of it follows), and the new one's init or refusal comes next. One without a uid is added.
    this.stop(key);
    if (typeof message.collection !== 'string') {
      this.error('subscribe', 'INVALID_PAYLOAD', 'Name the "collection" to subscribe to.', uid);
      return;
    }
    if (this.subscriptions.size >= this.options.limits.subscriptionsPerConnection) {
      this.error('subscribe', 'LIMIT_EXCEEDED', 'Too many subscriptions on this connection.', uid);
      return;
    }
    // A query that is not an object is malformed, not absent: read as none, it would answer every row.
    const { query = {} } = message;
    if (typeof query !== 'object' || query === null || Array.isArray(query)) {
      this.error('subscribe', 'INVALID_PAYLOAD', '"query" is an object of list parameters.', uid);
      return;
    }
    // docs/api.md §4a, as the query string and bodies are checked at the HTTP edge: a JSON escape in a message
    // can make text PostgreSQL cannot hold (NUL) or would silently alter (a lone surrogate becomes U+FFFD).
    const flawed = findTextFlaw(query);
    if (flawed) {
      const place = describeTextPath(flawed.path);
      const what = flawed.inKey ? 'The key' : 'The value of';
      this.error('subscribe', 'INVALID_QUERY', `${what} "${place}" contains ${flawed.flaw}.`, uid);
      return;
    }
    // Directus's one-item subscription: read as absent it would deliver every row, so it is refused.
    if (message.item !== undefined) {
      this.error(
        'subscribe',
        'INVALID_PAYLOAD',
        'Subscribing to one item ("item") is not supported: filter the subscription on its key.',
        uid,
      );
      return;
    }
    const only = message.event;
    if (only !== undefined && (typeof only !== 'string' || !SUBSCRIBABLE_EVENTS.has(only))) {
      this.error('subscribe', 'INVALID_PAYLOAD', '"event" is "create", "update" or "delete".', uid);
      return;
    }
    this.subscriptions.set(key, null);
    const collection = message.collection;
    const withUid = uid === undefined ? {} : { uid };
    const member = uidMember(uid);
    try {
      const caller = this.caller;
      const share = caller === null ? null : shareKeyOf(caller, () => this.address);
      const subscribe = () =>
        this.options.subscriptions.subscribe(
          {
            collection,
            query: query as Message,
            caller: () => this.currentCaller(),
            ...(caller && share ? { work: databaseWorkOf(caller, share, true) } : {}),
          },
          {
            send: (event) => {
              if (only === undefined || event.event === only)
                this.sendRaw(subscriptionMessage(event, member));
            },
            end: (end) => this.ended(key, end, uid),
          },
        );
      const { callerLimit } = this.options;
      const subscription = await (callerLimit && share ? callerLimit.run(share, subscribe) : subscribe());
      if (!this.subscriptions.has(key) || this.ws.readyState !== WebSocket.OPEN) {
        subscription.close();
        return;
      }
      this.subscriptions.set(key, subscription);
      if (this.authTimer) clearTimeout(this.authTimer);
      this.sendRaw(`{"type":"subscription","event":"init","data":${subscription.init ?? '[]'}${member}}`);
    } catch (error) {
      this.subscriptions.delete(key);
      const failure = databaseFailureOf(error);
      if (failure) this.options.metrics?.databaseFailed(failure);
      const { code, message: text } =
        error instanceof DomainError ? error : { code: 'INTERNAL', message: 'The subscription failed.' };
      this.send({ type: 'subscribe', status: 'error', error: { code, message: text }, ...withUid });
    }
  }

  /** The caller as the credential says now: null once it no longer holds (invalid, suspended), so the end says so. */
  private async currentCaller(): Promise<Accountability | null> {
    if (this.token === null) return this.caller;
    try {
      return await this.options.authenticate(this.token);
    } catch (error) {
      if (error instanceof DomainError && error.code !== 'TOKEN_EXPIRED') return null;
      throw error;
    }
  }

  /**
   * Stops the uid's subscription (without a uid, all of them) and confirms it as Directus does, with a
   * `subscription` message whose event is `unsubscribe` — also for a uid that names none (already ended, never
   * subscribed): the answer says what holds now, that nothing is subscribed under it. `@directus/sdk`'s
   * iterator yields that message as its last one before it ends.
   */
  private unsubscribe(uid: Uid | undefined): void {
    if (uid === undefined) this.closeAll();
    else this.stop(keyOf(uid));
    this.sendRaw(`{"type":"subscription","event":"unsubscribe"${uidMember(uid)}}`);
  }

  /** Stops the subscription of `key`, if any: nothing of it is sent after. */
  private stop(key: string): void {
    this.subscriptions.get(key)?.close();
    this.subscriptions.delete(key);
  }

  private ended(key: string, end: SubscriptionEnd, uid: Uid | undefined): void {
    this.subscriptions.delete(key);
    this.send({
      type: 'subscribe',
      status: 'error',
      error: { code: end.reason, message: end.message },
      ...(uid === undefined ? {} : { uid }),
    });
  }

  private error(type: string, code: string, message: string, uid: Uid | undefined): void {
    this.send({ type, status: 'error', error: { code, message }, ...(uid === undefined ? {} : { uid }) });
  }

  /** The answer to a message that is not one of the protocol's: no `type` or `uid` of its own to echo. */
  private malformed(message: string): void {
    this.send({ type: 'error', status: 'error', error: { code: 'INVALID_PAYLOAD', message } });
  }

  private send(message: Message): void {
    this.sendRaw(JSON.stringify(message));
  }

  /**
   * A client that does not read its socket is cut off rather than buffered for. What is sent in one round (a
   * round of the hub's events, at least) leaves in one write (WriteRounds).
   */
  private sendRaw(message: string | Buffer): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const { sendBufferMaxBytes } = this.options.limits;
    const queued = () => this.ws.bufferedAmount;
    if (this.rounds.readsTooSlowly(this.socket, queued, Buffer.byteLength(message), sendBufferMaxBytes)) {
      this.ws.close(CLOSE.slowConsumer, 'Send buffer full: the client reads too slowly');
      this.closeAll();
      return;
    }
    this.rounds.hold(this.socket);
    this.ws.send(message, { binary: false });
  }

  private closeAll(): void {
    for (const subscription of this.subscriptions.values()) subscription?.close();
    this.subscriptions.clear();
    if (this.ws.readyState === WebSocket.CLOSED && this.user !== null) {
      count(this.perUser, this.user, -1);
      this.user = null;
    }
    if (this.authTimer) clearTimeout(this.authTimer);
  }
}

function isUid(value: unknown): value is Uid | undefined {
  return (
    value === undefined || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))
  );
}

/** The key of a subscription with a uid; those without one have keys no uid has. */
function keyOf(uid: Uid): string {
  return `uid ${String(uid)}`;
}
