import { signal } from '@preact/signals';
import { ApiError, apiErrorOf } from './api-error.ts';
import { ApiClient } from './client.ts';
import { type Profile, pageProfile } from './profile.ts';
import { reach } from './reach.ts';

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

/** The key under which a page being left hands its refresh token to the next page of this tab. */
const PARKED = 'datagate-studio:refresh-token';

const ENDED = 'Your session has ended. Please log in again.';

/** How soon a renewal the server could not answer is tried again. */
const RETRY_RENEWAL_MS = 5_000;

/**
 * The login session. The tokens are held in memory; the access token is renewed before it expires, and a
 * refused renewal ends the session. A reload keeps it (`keepAcrossReloads`, docs/decisions/0054): the page
 * being left writes the refresh token to this tab's sessionStorage, and the next one takes it out and
 * exchanges it for a pair. The access token is never written anywhere.
 */
export class Session {
  readonly me = signal<Me | null>(null);
  /** Why the last session ended, when it was not the user's choice (shown on the login screen). */
  readonly endedBecause = signal<string | null>(null);
  /** While the session a reload left is being taken up: the login form waits for the answer. */
  readonly resuming = signal(false);
  readonly api: ApiClient;
  private tokens: Tokens | null = null;
  /** The refresh token a reload left, while it is exchanged (no pair is held meanwhile). */
  private resumingWith: string | null = null;
  private kept: Promise<void> | null = null;
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

  /**
   * Takes up the session the last page of this tab left, and has this page leave its own to the next: the
   * refresh token is written to sessionStorage when the page is left (`pagehide`) or frozen, and taken out
   * when read back or when the page comes back (`pageshow`, `resume`). While a page is open its tab's
   * storage holds no token, so a tab duplicated then copies none: two tabs sharing one refresh token would
   * spend it twice, and the second spend after the rotation's grace revokes the session (docs/api.md §3).
   * Called twice, it takes the session up once.
   */
  keepAcrossReloads(): Promise<void> {
    if (this.kept) return this.kept;
    const park = () => {
      const refresh = this.tokens?.refresh ?? this.resumingWith;
      if (refresh) sessionStorage.setItem(PARKED, refresh);
    };
    const unpark = () => sessionStorage.removeItem(PARKED);
    addEventListener('pagehide', park);
    document.addEventListener('freeze', park);
    addEventListener('pageshow', unpark);
    document.addEventListener('resume', unpark);
    const parked = sessionStorage.getItem(PARKED);
    unpark();
    this.kept = parked === null ? Promise.resolve() : this.resume(parked);
    return this.kept;
  }

  /**
   * Exchanges a left refresh token for a pair. A page left while this is under way leaves the same token
   * again: used within the rotation's grace, it answers the same pair (docs/decisions/0002), so two quick
   * reloads do not burn the session.
   */
  private async resume(refresh: string): Promise<void> {
    this.resumingWith = refresh;
    this.resuming.value = true;
    try {
      this.accept(await this.post('/auth/refresh', { refresh_token: refresh, mode: 'json' }));
      this.me.value = await this.api.get<Me>('/users/me');
    } catch {
      this.end(ENDED);
    } finally {
      this.resumingWith = null;
      this.resuming.value = false;
    }
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
    } catch (failure) {
      if (!refused(failure)) throw failure;
      this.end(ENDED);
      return false;
    }
  }

  private async post(path: string, body: unknown): Promise<Record<string, unknown>> {
    const response = await reach(path, json(body));
    if (!response.ok) throw await apiErrorOf(response);
    const answer = (await response.json()) as Record<string, unknown>;
    return (this.profile === 'directus' ? answer.data : answer) as Record<string, unknown>;
  }

  private accept(pair: Record<string, unknown>): void {
    const expires = Number(pair.expires);
    // plain: the epoch millisecond of expiry; directus: the lifetime in milliseconds (docs/api.md §3).
    const expiresAt = this.profile === 'plain' ? expires : Date.now() + expires;
    this.tokens = { access: String(pair.access_token), refresh: String(pair.refresh_token), expiresAt };
    const lifetime = expiresAt - Date.now();
    const ahead = Math.min(RENEW_AHEAD_MS, lifetime / 4);
    this.renewIn(Math.max(0, lifetime - ahead));
    for (const listener of this.tokenListeners) listener();
  }

  /**
   * Renews the pair after `delay`. A renewal the server could not answer is tried again a little later:
   * the session may well be alive, and the access token may still be good for a while.
   */
  private renewIn(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.renew().catch(() => {
        if (this.tokens) this.renewIn(RETRY_RENEWAL_MS);
      });
    }, delay);
  }

  private end(reason: string | null): void {
    clearTimeout(this.timer);
    this.tokens = null;
    this.resumingWith = null;
    this.me.value = null;
    this.endedBecause.value = reason;
  }
}

/**
 * Whether a failed renewal was the server refusing the refresh token (revoked, expired, malformed), which
 * ends the session. No answer, a 5xx or a 429 says nothing about the session: ending it then would log
 * the user out, unsaved edits and all, because the server was briefly busy or out of reach.
 */
function refused(failure: unknown): boolean {
  return (
    failure instanceof ApiError && failure.status >= 400 && failure.status < 500 && failure.status !== 429
  );
}

function json(body: unknown): RequestInit {
  return {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
    credentials: 'omit',
  };
}
