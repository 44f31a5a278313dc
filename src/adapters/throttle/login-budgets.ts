import type { AppConfig } from '../config/config-schema.ts';

/**
 * The two budgets of failed logins, as configured (`failures` within `window` milliseconds), and for how
 * many milliseconds a successful login takes its e-mail, at its address, out of the address budget.
 */
export type LoginBudgets = Pick<
  AppConfig['auth']['throttle'],
  'emailAndAddress' | 'address' | 'rememberLogin'
>;
