import * as assert from 'uvu/assert';
import type { LoginBudgets } from '../../src/adapters/throttle/login-budgets.ts';
import type { LoginAttempt, LoginThrottle } from '../../src/application/ports/login-throttle.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

/** One throttle on its own empty store, and the way time passes for it. */
export type ThrottleUnderTest = {
  throttle: LoginThrottle;
  /** Moves a fake's clock; sleeps for a store that reads the wall clock. */
  pass(ms: number): Promise<void>;
  close(): Promise<void>;
};

export type ThrottleTarget = {
  readonly name: string;
  /** Why the store cannot run here; its cases are then counted as skipped. */
  readonly skip?: string;
  /** How far a wait a real store reports may drift from the exact remainder (it measures wall time). */
  readonly slack: number;
  create(budgets: LoginBudgets): Promise<ThrottleUnderTest>;
  dispose(): Promise<void>;
};

/** Whole seconds, because rate-limiter-flexible rounds windows up to seconds. */
const BUDGETS: LoginBudgets = {
  emailAndAddress: { failures: 3, window: 1000 },
  address: { failures: 6, window: 2000 },
  rememberLogin: 2000,
};

const from = (email: string, clientAddress = '192.0.2.1'): LoginAttempt => ({ email, clientAddress });
const ada = from('ada@example.com');

export function loginThrottleContract(target: ThrottleTarget) {
  const test = skippableSuite<{ opened: ThrottleUnderTest[] }>(
    `LoginThrottle on ${target.name}`,
    target.skip,
  );
  test.before.each((context) => {
    context.opened = [];
  });
  test.after.each(async ({ opened }) => {
    for (const unit of opened) await unit.close();
  });
  test.after(() => target.dispose());

  const open = async (context: { opened: ThrottleUnderTest[] }, budgets = BUDGETS) => {
    const unit = await target.create(budgets);
    context.opened.push(unit);
    return unit;
  };
  const admitsEach = async (throttle: LoginThrottle, ...attempts: LoginAttempt[]) => {
    for (const attempt of attempts) assert.is(await throttle.admit(attempt), 0, `admits ${attempt.email}`);
  };
  const near = (actual: number, expected: number) => {
    assert.ok(
      actual > 0 && actual <= expected && actual >= expected - target.slack,
      `waits ${actual} ms, expected ${expected} ms (−${target.slack})`,
    );
  };

  test('admits the e-mail+address budget, then refuses for the whole window', async (context) => {
    const { throttle } = await open(context);
    await admitsEach(throttle, ada, ada, ada);
    near(await throttle.admit(ada), 1000);
  });

  test('the wait is what is left of the window opened by the first attempt', async (context) => {
    const { throttle, pass } = await open(context);
    await admitsEach(throttle, ada);
    await pass(400);
    await admitsEach(throttle, ada, ada);
    near(await throttle.admit(ada), 600);
  });

  test('once the window has passed the e-mail may try again', async (context) => {
    const { throttle, pass } = await open(context);
    await admitsEach(throttle, ada, ada, ada);
    assert.ok((await throttle.admit(ada)) > 0);
    await pass(1100);
    await admitsEach(throttle, ada);
  });

  test('a success forgets the failures of that e-mail at that address', async (context) => {
    const { throttle } = await open(context);
    await admitsEach(throttle, ada, ada);
    await throttle.succeeded(ada);
    await admitsEach(throttle, ada, ada, ada);
    assert.ok((await throttle.admit(ada)) > 0);
  });

  test('a success gives the address its point back', async (context) => {
    const { throttle } = await open(context);
    for (let login = 0; login < 3 * BUDGETS.address.failures; login++) {
      await admitsEach(throttle, ada);
      await throttle.succeeded(ada);
    }
  });

  test('another e-mail from the same address keeps its own budget', async (context) => {
    const { throttle } = await open(context);
    await admitsEach(throttle, ada, ada, ada);
    assert.ok((await throttle.admit(ada)) > 0);
    await admitsEach(throttle, from('bob@example.com'));
  });

  test('the same e-mail from another address keeps its own budget', async (context) => {
    const { throttle } = await open(context);
    const attacker = from(ada.email, '203.0.113.9');
    await admitsEach(throttle, attacker, attacker, attacker);
    assert.ok((await throttle.admit(attacker)) > 0);
    await admitsEach(throttle, ada);
  });

  test('the address budget stops a spray over many e-mails', async (context) => {
    const { throttle } = await open(context);
    for (let user = 0; user < BUDGETS.address.failures; user++) {
      await admitsEach(throttle, from(`user-${user}@example.com`));
    }
    near(await throttle.admit(from('one-more@example.com')), 2000);
    await admitsEach(throttle, from('one-more@example.com', '192.0.2.2'));
  });

  test('an attempt the address refuses is no guess at the e-mail', async (context) => {
    const budgets = {
      ...BUDGETS,
      emailAndAddress: { failures: 2, window: 2000 },
      address: { failures: 3, window: 1000 },
    };
    const { throttle, pass } = await open(context, budgets);
    await admitsEach(throttle, ada, from('bob@example.com'), from('eve@example.com'));
    assert.ok((await throttle.admit(ada)) > 0, 'the address is spent');
    await pass(1100);
    await admitsEach(throttle, ada);
    assert.ok((await throttle.admit(ada)) > 0, 'two counted guesses at ada');
  });

  test('refused by the address, the wait also covers a spent e-mail+address budget', async (context) => {
    const budgets = {
      ...BUDGETS,
      emailAndAddress: { failures: 2, window: 2000 },
      address: { failures: 3, window: 1000 },
    };
    const { throttle } = await open(context, budgets);
    await admitsEach(throttle, ada, ada, from('bob@example.com'));
    near(await throttle.admit(ada), 2000);
  });

  test('refused by the e-mail+address, the wait also covers a spent address budget', async (context) => {
    const budgets = {
      ...BUDGETS,
      emailAndAddress: { failures: 1, window: 1000 },
      address: { failures: 2, window: 2000 },
    };
    const { throttle } = await open(context, budgets);
    await admitsEach(throttle, ada);
    near(await throttle.admit(ada), 2000);
  });

  test('e-mail and address cannot stand in for each other in a key', async (context) => {
    const { throttle } = await open(context);
    const one = from('a|b', 'c');
    await admitsEach(throttle, one, one, one);
    assert.ok((await throttle.admit(one)) > 0);
    await admitsEach(throttle, from('a', 'b|c'));
  });

  test('an e-mail of any length is counted', async (context) => {
    const { throttle } = await open(context);
    const long = from(`${'x'.repeat(10_000)}@example.com`);
    await admitsEach(throttle, long, long, long);
    assert.ok((await throttle.admit(long)) > 0);
  });

  /** Other e-mails from ada's address fail until its budget is spent; one more is then refused. */
  const spendAddress = async (throttle: LoginThrottle, failures = BUDGETS.address.failures) => {
    for (let user = 0; user < failures; user++) {
      await admitsEach(throttle, from(`sprayed-${user}@example.com`));
    }
    assert.ok((await throttle.admit(from('sprayed-next@example.com'))) > 0, 'the address is spent');
  };

  test('after a success, a spent address still admits that e-mail', async (context) => {
    const { throttle } = await open(context);
    await admitsEach(throttle, ada);
    await throttle.succeeded(ada);
    await spendAddress(throttle);
    await admitsEach(throttle, ada);
  });

  test('a spent address refuses an e-mail that succeeded only from elsewhere', async (context) => {
    const { throttle } = await open(context);
    const adaElsewhere = from(ada.email, '192.0.2.2');
    await admitsEach(throttle, adaElsewhere);
    await throttle.succeeded(adaElsewhere);
    await spendAddress(throttle);
    near(await throttle.admit(ada), 2000);
  });

  test('a recent login is still counted by its own e-mail+address budget', async (context) => {
    const { throttle } = await open(context);
    await admitsEach(throttle, ada);
    await throttle.succeeded(ada);
    await spendAddress(throttle);
    await admitsEach(throttle, ada, ada, ada);
    near(await throttle.admit(ada), 1000);
  });

  test('the failures of a recent login take nothing from the address budget', async (context) => {
    const { throttle } = await open(context);
    await admitsEach(throttle, ada);
    await throttle.succeeded(ada);
    await admitsEach(throttle, ada, ada, ada);
    await spendAddress(throttle);
  });

  test('the success of a recent login gives the address no point back', async (context) => {
    const { throttle } = await open(context);
    await admitsEach(throttle, ada);
    await throttle.succeeded(ada);
    for (let login = 0; login < 3; login++) {
      await admitsEach(throttle, ada);
      await throttle.succeeded(ada);
    }
    await spendAddress(throttle);
  });

  test('a login stops being recent after rememberLogin', async (context) => {
    const { throttle, pass } = await open(context, { ...BUDGETS, rememberLogin: 1000 });
    await admitsEach(throttle, ada);
    await throttle.succeeded(ada);
    await pass(1100);
    await spendAddress(throttle);
    assert.ok((await throttle.admit(ada)) > 0);
  });

  test('every success remembers the login for the whole rememberLogin again', async (context) => {
    const { throttle, pass } = await open(context, {
      ...BUDGETS,
      address: { failures: 6, window: 3000 },
      rememberLogin: 1000,
    });
    await admitsEach(throttle, ada);
    await throttle.succeeded(ada);
    await pass(700);
    await admitsEach(throttle, ada);
    await throttle.succeeded(ada);
    await pass(700);
    await spendAddress(throttle);
    await admitsEach(throttle, ada);
  });

  return test;
}
