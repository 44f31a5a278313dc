import { ApiClient } from './client.ts';

/** Ask for the next preview this long before the current one expires, or at a quarter of its life. */
const RENEW_AHEAD_MS = 60_000;
/**
 * Never sooner than this after the last one: a browser's clock far ahead of the server's would otherwise
 * see every new token as nearly expired and ask again at once, without end. A 401 still asks at once.
 */
const FEWEST_MS_BETWEEN = 10_000;

/**
 * A role preview (docs/api.md §6, "Previewing a role"): a read-only access token of the role, asked for
 * by the admin, held in memory by this object alone and dropped with it. Its `api` sends that token and
 * nothing else — never the admin's, which stays with the admin's own client, used here only to ask for
 * previews. The token has no refresh token: a new preview is asked for before it expires, or when the
 * server says it has.
 */
export class RolePreviewToken {
  readonly api: ApiClient;
  private token: string | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private minting: Promise<boolean> | null = null;
  private dropped = false;

  /** `role` is a role's id, or `public`. */
  constructor(
    private readonly admin: ApiClient,
    private readonly role: string,
  ) {
    this.api = new ApiClient(admin.profile, {
      // Without a token (dropped, or never given) nothing is sent: not anonymously, not as the admin.
      accessToken: () => {
        if (this.token === null) throw new Error('This role preview has ended.');
        return this.token;
      },
      renew: () => this.mint(),
    });
  }

  /** Asks for a preview; a refusal (the role is gone, the caller no admin) is thrown. */
  async start(): Promise<void> {
    const answer = await this.admin.send<{ access_token: string; expires: number }>(
      'POST',
      `/roles/${encodeURIComponent(this.role)}/preview`,
    );
    if (this.dropped || !answer) return;
    // plain: the epoch millisecond of expiry; directus: the lifetime in milliseconds (docs/api.md §3).
    const lifetime = this.admin.profile === 'plain' ? answer.expires - Date.now() : answer.expires;
    this.token = answer.access_token;
    clearTimeout(this.timer);
    const ahead = Math.min(RENEW_AHEAD_MS, lifetime / 4);
    this.timer = setTimeout(() => void this.mint(), Math.max(FEWEST_MS_BETWEEN, lifetime - ahead));
  }

  /** Forgets the token: leaving the preview, or logging out. */
  drop(): void {
    this.dropped = true;
    clearTimeout(this.timer);
    this.token = null;
  }

  /**
   * A new preview, once for all the requests waiting: on the timer, and after a 401 — a token past its
   * life (the timer came late, a computer asleep, the clocks disagree). When the preview was withdrawn
   * instead (its admin demoted, the role deleted), asking again is refused too, and the 401 stands.
   */
  private mint(): Promise<boolean> {
    this.minting ??= this.start()
      .then(
        () => !this.dropped,
        () => false,
      )
      .finally(() => {
        this.minting = null;
      });
    return this.minting;
  }
}
