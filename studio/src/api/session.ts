import { signal } from '@preact/signals';
import { apiErrorOf } from './api-error.ts';
import { ApiClient } from './client.ts';
import { type Profile, pageProfile } from './profile.ts';

/** The logged-in user, as `GET /users/me` answers. */
export type Me = {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: string | null;
};

type Tokens = { access: string; refresh: string; expiresAt: number };

/** Renew this long before the access token expires, or at a quarter of its life when that is shorter. */
const RENEW_AHEAD_MS = 60_000;

/**
 * The login session, in memory only: nothing is written to storage a script or another tab could read, so a
 * reload asks for the password again. The access token is renewed before it expires; a refused renewal ends
 * the session.
 */
export class Session {
  readonly me = signal<Me | null>(null);
  /** Why the last session ended, when it was not the user's choice (shown on the login screen). */
  readonly endedBecause = signal<string | null>(null);
  readonly api: ApiClient;
  private tokens: Tokens | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private renewing: Promise<boolean> | null = null;
  private readonly tokenListeners = new Set<() => void>();

  constructor(readonly profile: Profile = pageProfile()) {
    this.api = new ApiClient(profile, {
      accessToken: () => this.tokens?.access ?? null,
      renew: () => this.renew(),
      onChange: (listener) => {
        this.tokenListeners.add(listener);
        return () => this.tokenListeners.delete(listener);
      },
    });
  }

  async login(email: string, password: string): Promise<void> {
    this.accept(await this.post('/auth/login', { email, password, mode: 'json' }));
    this.me.value = await this.api.get<Me>('/users/me');
    this.endedBecause.value = null;
  }

  async logout(): Promise<void> {
    const refresh = this.tokens?.refresh;
    this.end(null);
    if (refresh) await fetch('/auth/logout', json({ refresh_token: refresh, mode: 'json' })).catch(() => {});
  }

  /** The current access token, for what `api` does not carry (a WebSocket's auth message). */
  accessToken(): string | null {
    return this.tokens?.access ?? null;
  }

  /** One renewal at a time: concurrent 401s and the timer share it. */
  renew(): Promise<boolean> {
    if (!this.renewing) {
      this.renewing = this.refresh().finally(() => {
        this.renewing = null;
      });
    }
    return this.renewing;
  }

  private async refresh(): Promise<boolean> {
    const refresh = this.tokens?.refresh;
    if (!refresh) return false;
    try {
      this.accept(await this.post('/auth/refresh', { refresh_token: refresh, mode: 'json' }));
      return true;
    } catch {
      this.end('Your session has ended. Please log in again.');
      return false;
    }
  }

  private async post(path: string, body: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(path, json(body));
    if (!response.ok) throw await apiErrorOf(response);
    const answer = (await response.json()) as Record<string, unknown>;
    return (this.profile === 'directus' ? answer.data : answer) as Record<string, unknown>;
  }

  private accept(pair: Record<string, unknown>): void {
    const expires = Number(pair.expires);
    // plain: the epoch millisecond of expiry; directus: the lifetime in milliseconds (docs/api.md §3).
    const expiresAt = this.profile === 'plain' ? expires : Date.now() + expires;
    this.tokens = { access: String(pair.access_token), refresh: String(pair.refresh_token), expiresAt };
    clearTimeout(this.timer);
    const lifetime = expiresAt - Date.now();
    const ahead = Math.min(RENEW_AHEAD_MS, lifetime / 4);
    this.timer = setTimeout(() => void this.renew(), Math.max(0, lifetime - ahead));
    for (const listener of this.tokenListeners) listener();
  }

  private end(reason: string | null): void {
    clearTimeout(this.timer);
    this.tokens = null;
    this.me.value = null;
    this.endedBecause.value = reason;
  }
}

function json(body: unknown): RequestInit {
  return {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
    credentials: 'omit',
  };
}
