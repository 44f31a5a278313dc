/** The `realtime.*` settings of the event streams (docs/api.md §12, "Server-Sent Events"). */
export type SseSettings = {
  /** How often a `: ping` comment is sent on an idle stream. */
  readonly heartbeatMs: number;
  /** The `retry:` hint: how long a client waits before reconnecting. */
  readonly retryMs: number;
  /** Bytes a stream may have waiting for a slow client before it is closed with SLOW_CONSUMER. */
  readonly sendBufferBytes: number;
  /** Open streams per user (an anonymous caller counts as its address). */
  readonly streamsPerUser: number;
  /** Open streams per client address, whoever the callers. */
  readonly streamsPerAddress: number;
  /** The shortest time between two rounds of writes (`realtime.writeInterval`, WriteRounds). */
  readonly writeIntervalMs: number;
  /** Whether `?access_token=` is accepted (`auth.allowQueryToken`), as on every route. */
  readonly allowQueryToken: boolean;
};
