import { suite, type Test } from 'uvu';

/**
 * A uvu suite that may be unable to run here (no PostgreSQL server, no Chromium). Given a reason, it
 * registers every case with uvu's `skip`, so the summary's "Skipped:" counts it rather than leaving it
 * out, and names the reason in its title. None of its hooks runs, so nothing is opened, and a case body
 * may rely on what `before` would have set up.
 */
export function skippableSuite<State>(title: string, skip: string | undefined): Test<State> {
  if (!skip) return suite<State>(title);
  const skipped = suite<State>(`${title} (skipped: ${skip})`);
  const register = (name?: string) => skipped.skip(name);
  const ignored = Object.assign(() => {}, { each: () => {} });
  return Object.assign(register, {
    only: register,
    skip: register,
    before: ignored,
    after: ignored,
    run: () => skipped.run(),
  });
}
