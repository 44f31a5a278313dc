import type { AppConfig } from '../config/config-schema.ts';

/** The two budgets of failed logins, as configured: `failures` within `window` milliseconds. */
export type LoginBudgets = Pick<AppConfig['auth']['throttle'], 'emailAndAddress' | 'address'>;
