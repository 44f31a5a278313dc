import { ApiError, apiErrorOf, apiErrorOfText } from './api-error.ts';
import type { Profile } from './profile.ts';
import { reach } from './reach.ts';

/** Query parameters as the item API takes them; `undefined` leaves one out. */
export type Query = Readonly<Record<string, string | number | undefined>>;

/** One page of a list, with the counts and the cursor asked for through `meta` (docs/api.md §4). */
export type Page<T> = {
  rows: T[];
  /** `after` for the next page, or null after the last one (only with `meta=next`). */
  next: string | null;
  totalCount?: number;
  filterCount?: number;
  estimatedTotalCount?: number;
  estimatedFilterCount?: number;
};

/** What the client needs of the session: the token to send, and a way to get a fresh one once. */
export type TokenSource = {
  accessToken(): string | null;
  /**
   * Called after a 401 on a request that carried a token; true when a new token is ready to retry with,
   * false when the session has ended. Rejects when the server could not answer: that is the request's error.
   */
  renew(): Promise<boolean>;
  /**
   * Calls `listener` each time the token changes (a renewal), until the returned function is called: for a
   * connection that authenticated once, such as the live table's WebSocket. A token that never changes
   * needs none.
   */
  onChange?(listener: () => void): () => void;
};

const COUNT_HEADERS = {
  totalCount: 'X-Total-Count',
  filterCount: 'X-Filter-Count',
  estimatedTotalCount: 'X-Estimated-Total-Count',
  estimatedFilterCount: 'X-Estimated-Filter-Count',
} as const;

const COUNT_MEMBERS = {
  totalCount: 'total_count',
  filterCount: 'filter_count',
  estimatedTotalCount: 'estimated_total_count',
  estimatedFilterCount: 'estimated_filter_count',
} as const;

/**
 * The public API, called as the logged-in user: the studio has no other way in. Answers are unwrapped the
 * same way in both profiles, so screens never see the difference.
 */
export class ApiClient {
  constructor(
    readonly profile: Profile,
    /** Also what a connection other than `fetch` authenticates with (api/live-items.ts). */
    readonly tokens: TokenSource,
  ) {}

  async get<T>(path: string, query: Query = {}): Promise<T> {
    const response = await this.fetch('GET', path, query);
    return this.unwrap<T>(await response.json());
  }

  async list<T>(path: string, query: Query = {}): Promise<Page<T>> {
    const response = await this.fetch('GET', path, query);
    const body: unknown = await response.json();
    const page: Page<T> = { rows: this.unwrap<T[]>(body), next: null };
    if (this.profile === 'directus') {
      const meta = ((body as { meta?: Record<string, unknown> }).meta ?? {}) as Record<string, unknown>;
      for (const [name, member] of Object.entries(COUNT_MEMBERS)) {
        if (typeof meta[member] === 'number') page[name as keyof typeof COUNT_MEMBERS] = meta[member];
      }
      page.next = typeof meta.next === 'string' ? meta.next : null;
    } else {
      for (const [name, header] of Object.entries(COUNT_HEADERS)) {
        const value = response.headers.get(header);
        if (value !== null) page[name as keyof typeof COUNT_HEADERS] = Number(value);
      }
      page.next = response.headers.get('X-Next-Cursor');
    }
    return page;
  }

  /** A write; answers the item(s) written, or null for a 204. */
  async send<T>(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, query: Query = {}) {
    const response = await this.fetch(method, path, query, body);
    if (response.status === 204) return null;
    return this.unwrap<T>(await response.json());
  }

  /** Bytes the API answers (an asset), read with the caller's token rather than one in the URL. */
  async bytes(path: string, query: Query = {}): Promise<Blob> {
    return (await this.fetch('GET', path, query)).blob();
  }

  /**
   * A multipart upload (`POST /files`), reporting the bytes sent as they go: fetch cannot tell upload
   * progress, an XMLHttpRequest can.
   */
  async upload<T>(
    path: string,
    form: FormData,
    onProgress: (sent: number, total: number) => void,
  ): Promise<T> {
    const sent = this.tokens.accessToken();
    let answer = await this.xhr(path, form, onProgress);
    if (answer.status === 401 && (await this.tokenAfterRefusal(sent))) {
      answer = await this.xhr(path, form, onProgress);
    }
    if (answer.status < 200 || answer.status >= 300) {
      throw apiErrorOfText(answer.status, answer.statusText, answer.responseText);
    }
    return this.unwrap<T>(JSON.parse(answer.responseText));
  }

  private xhr(
    path: string,
    form: FormData,
    onProgress: (sent: number, total: number) => void,
  ): Promise<XMLHttpRequest> {
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open('POST', path);
      request.setRequestHeader('Accept', 'application/json');
      const token = this.tokens.accessToken();
      if (token) request.setRequestHeader('Authorization', `Bearer ${token}`);
      request.upload.onprogress = (event) => onProgress(event.loaded, event.total);
      request.onload = () => resolve(request);
      request.onerror = () => reject(new Error('The upload failed: the server could not be reached.'));
      request.send(form);
    });
  }

  private unwrap<T>(body: unknown): T {
    return (this.profile === 'directus' ? (body as { data: T }).data : body) as T;
  }

  private async fetch(method: string, path: string, query: Query, body?: unknown): Promise<Response> {
    const url = withQuery(path, query);
    let sent: string | null = null;
    const attempt = () => {
      const headers: Record<string, string> = { Accept: 'application/json' };
      const token = this.tokens.accessToken();
      sent = token;
      if (token) headers.Authorization = `Bearer ${token}`;
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      return reach(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
      });
    };
    let response = await attempt();
    if (response.status === 401 && (await this.tokenAfterRefusal(sent))) {
      response = await attempt();
    }
    if (!response.ok) throw await apiErrorOf(response);
    return response;
  }

  /**
   * After a 401 to a request sent with `sent`: whether to send it again. A token renewed meanwhile (by
   * another request's 401, the socket's, or the timer) is used as it is; only the token that was refused
   * is renewed, so requests failing together ask for one new token, not one each.
   */
  private async tokenAfterRefusal(sent: string | null): Promise<boolean> {
    const current = this.tokens.accessToken();
    if (!current) return false;
    return current !== sent || this.tokens.renew();
  }
}

export function withQuery(path: string, query: Query): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

export { ApiError };
