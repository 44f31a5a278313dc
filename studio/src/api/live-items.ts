import { signal } from '@preact/signals';
import type { RealtimeFlag } from './capabilities.ts';
import type { TokenSource } from './client.ts';

type Row = Record<string, unknown>;

/** The list parameters a subscription takes (`filter`, `search`, `sort`, `limit`), as a list's query. */
export type LiveQuery = Readonly<Record<string, string | number | undefined>>;

/**
 * What the channel tells of the followed rows (docs/api.md §12), shaped by the caller's rights: `init` is the
 * first page as the subscription starts (again after a reconnection: what happened meanwhile was not sent),
 * then each change a list with this query would show, a row leaving the view arriving as a `delete`.
 */
export type LiveEvent =
  | { event: 'init'; rows: Row[] }
  | { event: 'create' | 'update'; rows: Row[] }
  | { event: 'delete'; keys: unknown[] }
  /** A lost connection came back to a server that sends no changes: what changed meanwhile is unknown. */
  | { event: 'gap' };

/**
 * `connecting`: not live yet. `reconnecting`: was live, and is not until the next `init`. `off`: no events
 * will come (the session ended, the subscription was refused, the server sends no changes, or no connection
 * could ever be made).
 */
export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'off';

/**
 * Waits before reconnecting, by attempt. Once live, the last one repeats for as long as the table is open: a
 * connection that worked here is worth waiting for. One that never reached `init` gives up at the end of
 * the list (about 50 s): a path that refuses the upgrade (a proxy without WebSockets) is not a passing
 * failure, and asking every 30 s for as long as the tab stays open would only burn requests.
 */
const BACKOFF_MS = [500, 1000, 2000, 5000, 10_000, 30_000];

/**
 * Silence after which the connection is asked whether it still works (a `ping`, which the server answers):
 * longer than the server's own ping period (`realtime.wsHeartbeat`, 30 s), so a connection to a server
 * that pings is never asked. A network that dropped, or a proxy that stopped forwarding, sends no close.
 */
const PROBE_AFTER_MS = 35_000;
/** How long the answer to that ping (any message) may take before the connection counts as dead. */
const ANSWER_WITHIN_MS = 10_000;
/**
 * A reading of `x-realtime` this recent decides a table's first connection; a reconnection, or Reload, reads
 * it again whatever its age.
 */
const FRESH_READING_MS = 60_000;

/** Ends of a subscription that a new token mends. */
const CREDENTIAL_ENDS = new Set(['TOKEN_EXPIRED', 'UNAUTHENTICATED']);
/** Ends after which subscribing again starts over with a fresh `init`. */
const RESUBSCRIBE_ENDS = new Set(['RESYNC']);

type Message = {
  type?: string;
  status?: string;
  event?: string;
  uid?: string;
  data?: unknown;
  error?: { code?: string };
};

/**
 * The changes of one collection, over the API's `/websocket` (Directus's realtime protocol): one connection,
 * authenticated by a message (a browser's WebSocket cannot send an Authorization header; no token in a
 * URL), renewed on the same connection when the session renews its token. A lost connection — closed, or
 * silent past a ping — is reopened with backoff; `close` ends it for good. No connection is made while the
 * server says it sends no changes (`realtime`): it would accept the subscription and send only its `init`.
 */
export class LiveItems {
  readonly state = signal<LiveState>('connecting');
  private socket: WebSocket | null = null;
  private query: LiveQuery | null = null;
  /** The uid of the subscription events are taken from; each `follow` makes a new one. */
  private uid = 0;
  private subscribed = false;
  private sentToken: string | null = null;
  /** A failed authentication renews the token once; a second failure in a row waits for a reconnection. */
  private renewedAfterFailure = false;
  /** Connections tried since the last `init`. */
  private attempt = 0;
  private wasLive = false;
  /** Not connected, and not trying until `resume`: given up, or the server sends no changes. */
  private idle = false;
  /** Reading `realtime` before a first connection. */
  private starting = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the current connection last said anything (or opened), by `performance.now()`. */
  private heardAt = 0;
  private watchdog: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private readonly stopWatchingToken: () => void;

  constructor(
    private readonly collection: string,
    private readonly tokens: TokenSource,
    private readonly realtime: Pick<RealtimeFlag, 'value' | 'read'>,
    private readonly onEvent: (event: LiveEvent) => void,
    private readonly url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/websocket`,
  ) {
    if (!realtime.value) this.state.value = 'off';
    this.stopWatchingToken = tokens.onChange?.(() => this.tokenChanged()) ?? (() => {});
  }

  /** Follows the rows of `query` from now on: the previous subscription stops, the next starts with `init`. */
  follow(query: LiveQuery): void {
    if (this.closed) return;
    this.query = query;
    if (this.socket !== null) {
      if (this.subscribed) {
        this.send({ type: 'unsubscribe', uid: String(this.uid) });
        this.subscribed = false;
        this.subscribe();
      }
      return;
    }
    // Waiting to reconnect or to start: that connection subscribes to this query (a second one now would be
    // left open). Idle, it waits for `resume`.
    if (this.retryTimer === undefined && !this.starting && !this.idle) void this.start(FRESH_READING_MS);
  }

  /** When idle (not after `close`): reads `realtime` again and, if on, connects from the start of the backoff. */
  resume(): void {
    if (this.closed || !this.idle || this.starting) return;
    void this.start(0);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.watchdog);
    this.stopWatchingToken();
    this.socket?.close(1000);
    this.socket = null;
    this.state.value = 'off';
  }

  private async start(maxAgeMs: number): Promise<void> {
    this.starting = true;
    const on = await this.realtime.read(maxAgeMs);
    this.starting = false;
    if (this.closed) return;
    this.idle = !on;
    if (!on) {
      this.state.value = 'off';
      return;
    }
    this.attempt = 0;
    this.state.value = 'connecting';
    this.connect(false);
  }

  /** `recheck`: a reconnection, which reads `realtime` again once the server answers. */
  private connect(recheck: boolean): void {
    const socket = new WebSocket(this.url);
    this.socket = socket;
    this.subscribed = false;
    this.renewedAfterFailure = false;
    this.heardAt = performance.now();
    this.watch(socket);
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.heardAt = performance.now();
      if (recheck) void this.confirm(socket);
      else this.authenticate();
    };
    socket.onmessage = (message) => {
      if (this.socket !== socket) return;
      this.heardAt = performance.now();
      if (typeof message.data === 'string') this.receive(message.data);
    };
    socket.onclose = () => this.lost(socket);
  }

  /**
   * Notices a connection that died without a close: after PROBE_AFTER_MS of silence it sends a `ping`, and
   * gives the connection up when ANSWER_WITHIN_MS pass without a message. One still opening by then (an
   * upgrade nobody answers) is given up too.
   */
  private watch(socket: WebSocket): void {
    if (this.socket !== socket) return;
    const silence = performance.now() - this.heardAt;
    if (silence < PROBE_AFTER_MS) {
      this.watchdog = setTimeout(() => this.watch(socket), PROBE_AFTER_MS - silence);
      return;
    }
    if (socket.readyState !== WebSocket.OPEN) {
      this.abandon(socket);
      return;
    }
    const asked = performance.now();
    this.send({ type: 'ping' });
    this.watchdog = setTimeout(() => {
      if (this.heardAt >= asked) this.watch(socket);
      else this.abandon(socket);
    }, ANSWER_WITHIN_MS);
  }

  /** A dead connection's close handshake would wait on a peer that is gone: it is dropped at once. */
  private abandon(socket: WebSocket): void {
    if (this.socket !== socket) return;
    this.lost(socket);
    socket.close(1000);
  }

  private lost(socket: WebSocket): void {
    if (this.socket !== socket) return;
    clearTimeout(this.watchdog);
    this.socket = null;
    this.subscribed = false;
    this.retry();
  }

  private retry(): void {
    if (this.closed) return;
    if (!this.wasLive && this.attempt >= BACKOFF_MS.length) {
      this.idle = true;
      this.state.value = 'off';
      return;
    }
    this.state.value = this.wasLive ? 'reconnecting' : 'connecting';
    const wait = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)]!;
    this.attempt += 1;
    this.retryTimer = setTimeout(
      () => {
        this.retryTimer = undefined;
        this.connect(this.wasLive);
      },
      wait * (0.75 + Math.random() / 2),
    );
  }

  /**
   * A reconnection reached a server: a restart may have turned realtime off, or the connection may have
   * reached another instance. If no change will come, the connection is closed, and the table told that it
   * may have missed some.
   */
  private async confirm(socket: WebSocket): Promise<void> {
    const on = await this.realtime.read(0);
    if (this.socket !== socket) return;
    if (on) {
      this.authenticate();
      return;
    }
    clearTimeout(this.watchdog);
    this.socket = null;
    socket.close(1000);
    this.idle = true;
    this.state.value = 'off';
    this.onEvent({ event: 'gap' });
  }

  /** Sends the current token; without one the connection acts as the public caller, which may subscribe. */
  private authenticate(): void {
    this.sentToken = this.tokens.accessToken();
    if (this.sentToken === null) this.subscribe();
    else this.send({ type: 'auth', access_token: this.sentToken });
  }

  /** A renewed token replaces the connection's credential for its subscription, which goes on. */
  private tokenChanged(): void {
    if (this.socket?.readyState === WebSocket.OPEN && this.sentToken !== this.tokens.accessToken()) {
      this.authenticate();
    }
  }

  /** After the server refused the credential: a newer token if the session has one, else a renewal. */
  private async reauthenticate(): Promise<void> {
    // A renewal the server could not answer leaves this connection as a refused one would.
    const renewed = () => this.tokens.renew().catch(() => false);
    if (this.tokens.accessToken() === this.sentToken && !(await renewed())) {
      this.close();
      return;
    }
    // The renewal's `onChange` may have sent the new token already.
    if (this.sentToken !== this.tokens.accessToken() && this.socket?.readyState === WebSocket.OPEN) {
      this.authenticate();
    }
  }

  private subscribe(): void {
    if (this.query === null) return;
    this.uid += 1;
    this.subscribed = true;
    const query = Object.fromEntries(Object.entries(this.query).filter(([, value]) => value !== undefined));
    this.send({ type: 'subscribe', collection: this.collection, query, uid: String(this.uid) });
  }

  private receive(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return;
    }
    switch (message.type) {
      case 'ping':
        this.send({ type: 'pong' });
        return;
      case 'auth':
        this.authAnswer(message);
        return;
      case 'subscription':
        if (message.uid === String(this.uid)) this.event(message);
        return;
      case 'subscribe':
        if (message.status === 'error' && message.uid === String(this.uid)) this.ended(message.error?.code);
        return;
    }
  }

  private authAnswer(message: Message): void {
    if (message.status === 'ok') {
      this.renewedAfterFailure = false;
      if (!this.subscribed) this.subscribe();
    } else if (!this.renewedAfterFailure) {
      this.renewedAfterFailure = true;
      void this.reauthenticate();
    } else {
      this.socket?.close(1000);
    }
  }

  private event(message: Message): void {
    const data = Array.isArray(message.data) ? message.data : [];
    if (message.event === 'init') {
      this.attempt = 0;
      this.wasLive = true;
      this.state.value = 'live';
      this.onEvent({ event: 'init', rows: data as Row[] });
    } else if (message.event === 'create' || message.event === 'update') {
      this.onEvent({ event: message.event, rows: data as Row[] });
    } else if (message.event === 'delete') {
      this.onEvent({ event: 'delete', keys: data });
    }
  }

  /** The server ended the subscription (docs/api.md §12): mend what can be mended. */
  private ended(code: string | undefined): void {
    this.subscribed = false;
    // Whatever comes next, no change arrives until a new `init`.
    if (this.state.value === 'live') this.state.value = 'reconnecting';
    if (CREDENTIAL_ENDS.has(code ?? '')) {
      void this.reauthenticate();
    } else if (RESUBSCRIBE_ENDS.has(code ?? '')) {
      this.subscribe();
    } else if (code !== 'SHUTDOWN') {
      // FORBIDDEN, or a query the server refuses: the table's own request says why.
      this.close();
    }
  }

  private send(message: Readonly<Record<string, unknown>>): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }
}
