import { type ReadonlySignal, type Signal, untracked, useSignal, useSignalEffect } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import type { CollectionShape, RealtimeFlag } from '../api/capabilities.ts';
import type { ApiClient, Page } from '../api/client.ts';
import { type LiveEvent, LiveItems, type LiveState } from '../api/live-items.ts';
import { type RowOrder, sameRows, withLiveChange } from '../api/live-page.ts';

type Row = Record<string, unknown>;

/** The parts of an item table the live updates read and change. */
export type LiveTableParts = {
  api: ApiClient;
  /** Whether the server sends changes at all (`Capabilities.realtime`): if not, no connection is made. */
  realtime: RealtimeFlag;
  shape: CollectionShape;
  request: ReadonlySignal<{ sort: string | null; filter: string | undefined; search: string; limit: number }>;
  /** The cursor of the page shown; null on the first page. */
  after: ReadonlySignal<string | null>;
  page: Signal<Page<Row> | null>;
  loading: ReadonlySignal<boolean>;
  exact: Signal<number | null>;
  /** Loads the page shown again. */
  reload(): void;
};

export type LiveTable = {
  state: ReadonlySignal<LiveState>;
  /** Changes to the view since this page (not the first) was loaded: shown as a count, not applied. */
  changes: ReadonlySignal<number>;
  /** The connection was lost while on such a page: changes may have been missed. */
  missed: ReadonlySignal<boolean>;
  /** Loads the page again; a table that gave up connecting tries once more. */
  reload(): void;
};

/**
 * Keeps an item table live: one subscription, with the table's filter, search, sort and page size, over one
 * connection for as long as the table is open (docs/decisions/0050). On the first page, changes are applied where the order puts
 * them; on any other page they are only counted, so rows never shift under the reader. A change arriving
 * while a page loads waits for it; the subscription's first page (`init`) is checked against the table's,
 * which a change made before the subscription started would make differ: the page is then loaded again.
 */
export function useLiveTable(parts: LiveTableParts): LiveTable {
  const { shape, request, after, page, loading, exact } = parts;
  const changes = useSignal(0);
  const missed = useSignal(false);
  const live = useMemo(() => {
    const kinds = new Map(shape.fields.map((field) => [field.name, field.kind]));
    const order = (): RowOrder | null =>
      shape.key === null ? null : { key: shape.key, sort: request.peek().sort, kinds };
    /** Changes that came while a page loaded, the `init` to check it with, the last row of a full page. */
    const memory = { queue: [] as LiveEvent[], init: null as Row[] | null, last: null as Row | null };
    /** The request the subscription is for: events of an earlier one are dropped until it is replaced. */
    let followed: LiveTableParts['request']['value'] | null = null;
    let started = false;
    /** Whether the subscription of a newly followed request has yet to send its first `init`. */
    let answering = false;

    const apply = (event: LiveEvent) => {
      const current = page.peek();
      const by = order();
      if (current && by)
        page.value = { ...current, rows: withLiveChange(current.rows, event, by, memory.last) };
    };
    /** The page differs from the subscription's: something changed unseen, the count included. */
    const changedUnseen = () => {
      exact.value = null;
      parts.reload();
    };
    const check = (rows: Row[]) => {
      const current = page.peek();
      if (loading.peek()) memory.init = rows;
      else if (current && !sameRows(current.rows, rows)) changedUnseen();
    };
    const onEvent = (event: LiveEvent) => {
      if (request.peek() !== followed) return;
      const firstPage = after.peek() === null;
      if (event.event === 'init' || event.event === 'gap') {
        // After a loss, changes may have been missed: an exact count no longer holds, and the first page is
        // checked against the new `init` (or loaded again, when none will come). The first `init` of a newly
        // followed request answers its subscribe, no loss: an exact count asked for before it holds unless
        // that `init` shows a change the page missed.
        const first = event.event === 'init' && answering;
        answering = false;
        if (started && !first) exact.value = null;
        if (firstPage) {
          if (event.event === 'init') check(event.rows);
          else parts.reload();
        } else if (started) missed.value = true;
        started = true;
        return;
      }
      const counted = event.event === 'delete' ? event.keys.length : event.rows.length;
      const total = exact.peek();
      if (total !== null && event.event !== 'update') {
        exact.value = total + (event.event === 'create' ? counted : -counted);
      }
      if (!firstPage || order() === null) changes.value += counted;
      else if (loading.peek()) memory.queue.push(event);
      else apply(event);
    };
    const loaded = () => {
      const current = page.peek();
      memory.last = current?.next ? (current.rows.at(-1) ?? null) : null;
      const { init, queue } = memory;
      memory.init = null;
      memory.queue = [];
      if (init && current && after.peek() === null && !sameRows(current.rows, init)) changedUnseen();
      else for (const event of queue) apply(event);
      // Subscribing once the page is shown keeps the subscription's `init` (the same query) from competing
      // with the page's own for the database: a slow sort is not run twice at once.
      const wanted = request.peek();
      if (current && wanted !== followed) {
        followed = wanted;
        answering = true;
        const { filter, search, sort, limit } = wanted;
        items.follow({ filter, search: search || undefined, sort: sort ?? undefined, limit });
      }
    };
    const items = new LiveItems(shape.name, parts.api.tokens, parts.realtime, onEvent);
    return { items, loaded, state: items.state };
  }, []);

  /** A page starts afresh: another page, or this one loaded again (maybe while a load was under way). */
  const fresh = () => {
    changes.value = 0;
    missed.value = false;
  };
  useSignalEffect(() => {
    if (loading.value) fresh();
    else untracked(live.loaded);
  });
  useSignalEffect(() => {
    after.value;
    untracked(fresh);
  });
  useEffect(() => () => live.items.close(), []);

  const reload = () => {
    fresh();
    parts.reload();
    live.items.resume();
  };
  return { state: live.state, changes, missed, reload };
}

const STATES: Record<LiveState, string> = {
  connecting: '',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  off: 'Not live',
};

/** Whether the table follows changes, said once when that changes (a polite status, not each change). */
export function LiveStatus(props: { live: LiveTable }) {
  const { state, changes, missed, reload } = props.live;
  const stale = changes.value > 0 || missed.value;
  return (
    <p class="live">
      <span role="status" class="live-state" data-state={state.value}>
        {STATES[state.value]}
        {stale && state.value !== 'connecting' ? ': this page has changed' : ''}
      </span>
      {stale ? (
        <button type="button" class="link" onClick={reload}>
          {missed.value
            ? 'Changes may be missing — reload'
            : `${changes.value} ${changes.value === 1 ? 'change' : 'changes'} — reload`}
        </button>
      ) : (
        // Not following changes: what others change shows only when the page is loaded again.
        state.value === 'off' && (
          <button type="button" class="link" onClick={reload}>
            Reload
          </button>
        )
      )}
    </p>
  );
}
