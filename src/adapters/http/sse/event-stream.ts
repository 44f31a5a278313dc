import type { ServerResponse } from 'node:http';
import type {
  SubscriptionEnd,
  SubscriptionEvent,
  SubscriptionSink,
} from '../../../application/realtime/item-subscriptions.ts';
import type { WriteRounds } from '../write-rounds.ts';
import { eventText, HEARTBEAT_TEXT, retryText } from './event-stream-text.ts';

/** Why the stream, rather than the subscription, ended it: its client does not read fast enough. */
const SLOW_CONSUMER: { reason: string; message: string } = {
  reason: 'SLOW_CONSUMER',
  message: 'The client did not read the events fast enough; reconnect to resume.',
};

/** Each event's text, built once however many streams it is sent to (the hub sends alike views one event). */
const eventTexts = new WeakMap<SubscriptionEvent, string>();

export type EventStreamOptions = {
  readonly heartbeatMs: number;
  readonly retryMs: number;
  readonly sendBufferBytes: number;
};

/**
 * One open `text/event-stream` answer, and the sink of its subscription. Events that arrive before the
 * stream is open (while the subscription is being set up) wait, so `init` always comes first; once open,
 * every write goes straight to the socket, and the bytes the socket has not yet taken are bounded by
 * `sendBufferBytes`: past it the stream ends with SLOW_CONSUMER instead of growing the server's memory.
 */
export class EventStream implements SubscriptionSink {
  private pending: string[] | null = [];
  private heartbeat: NodeJS.Timeout | undefined;
  private ended = false;
  private isClosed = false;
  private readonly closedPromise: Promise<void>;
  private markClosed!: () => void;
  private readonly onClose: Array<() => void> = [];

  /**
   * `response`: the answer the stream will be written to, once `open`; watched from now for the client leaving.
   * `rounds`: what gathers its writes with the other streams' (WriteRounds).
   */
  constructor(
    private readonly response: ServerResponse,
    private readonly options: EventStreamOptions,
    private readonly rounds: WriteRounds,
  ) {
    this.closedPromise = new Promise((resolve) => {
      this.markClosed = resolve;
    });
    response.once('close', () => this.closeNow());
  }

  /** Resolves once the response is over, whoever ended it. */
  get closed(): Promise<void> {
    return this.closedPromise;
  }

  /** Whether the stream has sent, or queued, its last event: nothing more will be written. */
  get isEnded(): boolean {
    return this.ended;
  }

  /** Runs once the response is over (the client left, or the stream ended); at once if it is. */
  whenClosed(action: () => void): void {
    if (this.isClosed) action();
    else this.onClose.push(action);
  }

  send(event: SubscriptionEvent): void {
    let text = eventTexts.get(event);
    if (text === undefined) {
      text = eventText(event.event, event.id, event.data);
      eventTexts.set(event, text);
    }
    this.write(text);
  }

  end(end: SubscriptionEnd): void {
    // A resync also forgets the client's last event id, so its reconnection starts over with `init`.
    if (end.reason === 'RESYNC') this.finish(eventText('resync', '', JSON.stringify(end)));
    else this.finish(eventText('end', null, JSON.stringify(end)));
  }

  /**
   * Sends the headers, the retry hint and `init` (absent when resuming), then what waited. The caller has
   * set the headers every answer carries on the response.
   */
  open(init: { position: string; data: string | null }): void {
    const pending = this.pending ?? [];
    this.pending = null;
    // The client may have left while the subscription was being set up.
    if (this.isClosed) return;
    this.response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      // nginx and others buffer answers by default, which would hold events back.
      'X-Accel-Buffering': 'no',
    });
    const head = retryText(this.options.retryMs);
    const initText = init.data === null ? '' : eventText('init', init.position, init.data);
    // Not judged as a slow client's backlog: the stream's first write, whatever its size (a large init), is
    // what it was sent at once; the next write judges whether the client took it.
    this.response.write(head + initText + pending.join(''));
    if (this.ended) {
      this.response.end();
      return;
    }
    this.heartbeat = setInterval(() => this.write(HEARTBEAT_TEXT), this.options.heartbeatMs);
  }

  /** Ends the answer without a last event: the subscription could not be set up, or the server drops it. */
  abandon(): void {
    this.ended = true;
    if (this.pending === null) this.response.end();
    else this.closeNow();
  }

  private write(text: string): void {
    if (this.ended) return;
    if (this.pending) {
      this.pending.push(text);
      return;
    }
    const { response } = this;
    const queued = () => response.writableLength;
    if (this.rounds.readsTooSlowly(response, queued, Buffer.byteLength(text), this.options.sendBufferBytes)) {
      this.finish(eventText('end', null, JSON.stringify(SLOW_CONSUMER)));
      // The last event waits behind what the client has not read: it gets a heartbeat's time to take it.
      setTimeout(() => response.destroy(), this.options.heartbeatMs).unref();
      return;
    }
    // What is written in one round (a round of the hub's events, at least) leaves in one system call.
    this.rounds.hold(response);
    response.write(text);
  }

  private finish(lastEvent: string): void {
    if (this.ended) return;
    this.ended = true;
    if (this.pending) this.pending.push(lastEvent);
    else this.response.end(lastEvent);
  }

  private closeNow(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.ended = true;
    clearInterval(this.heartbeat);
    for (const action of this.onClose.splice(0)) action();
    this.markClosed();
  }
}
