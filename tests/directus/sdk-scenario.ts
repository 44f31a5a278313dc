import type { PersistenceTarget } from '../support/databases.ts';
import { ADMIN_STATIC_TOKEN, type CargosScenario, startCargosScenario } from './cargos-scenario.ts';
import { SdkClients } from './sdk-clients.ts';

/** The cargos scenario with the two callers most SDK suites use: the admin's static token and the operator's session. */
export type SdkScenario = {
  scenario: CargosScenario;
  clients: SdkClients;
  admin: ReturnType<SdkClients['withStaticToken']>;
  operator: ReturnType<SdkClients['session']>;
};

/** Starts the scenario on `target` and logs the operator in; `options` are the operator client's. */
export async function startSdkScenario(
  target: PersistenceTarget,
  options?: Parameters<SdkClients['session']>[1],
): Promise<SdkScenario> {
  const scenario = await startCargosScenario(target);
  const clients = new SdkClients(scenario.app.url);
  const operator = clients.session({}, options);
  const { email, password } = scenario.operator;
  await operator.login({ email, password });
  return { scenario, clients, admin: clients.withStaticToken(ADMIN_STATIC_TOKEN), operator };
}

/** Ends the clients' refresh timers, the app, and the suite's lease on its backend. */
export async function stopSdkScenario({ scenario, clients }: SdkScenario, target: PersistenceTarget) {
  clients.stopAll();
  await scenario.close();
  await target.dispose();
}
