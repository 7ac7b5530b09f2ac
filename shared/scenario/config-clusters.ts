import { displayNameOf } from '../config/cluster-identity.ts';
import type { DeploymentConfig } from '../config/deployment-config.ts';
import type { InputProblem } from '../errors.ts';
import { jsonPath } from '../schema-errors.ts';
import type { Scenario } from './scenario.ts';

/** How a configuration's clusters meet a scenario's, by name: which overrides a replay with that configuration uses. */
export interface ConfigClusterMatch {
  /** Clusters the configuration and the scenario both have: their own overrides apply. */
  readonly matched: readonly string[];
  /** Clusters of the scenario the configuration does not name: only the fleet-wide rules and overrides apply. */
  readonly unconfigured: readonly string[];
  /** Overrides of configuration clusters the scenario does not have: they change nothing in the replay. */
  readonly idleOverrides: readonly InputProblem[];
}

export function matchConfigClusters(
  config: Pick<DeploymentConfig, 'clusters'>,
  scenario: Pick<Scenario, 'clusters' | 'file'>,
): ConfigClusterMatch {
  const configured = new Set(config.clusters.map(displayNameOf));
  const inScenario = [...scenario.clusters.keys()];
  return {
    matched: inScenario.filter((name) => configured.has(name)),
    unconfigured: inScenario.filter((name) => !configured.has(name)),
    idleOverrides: config.clusters.flatMap((cluster, index) =>
      scenario.clusters.has(displayNameOf(cluster)) || Object.keys(cluster.overrides).length === 0
        ? []
        : [
            {
              path: jsonPath(['clusters', index, 'overrides']),
              message: `cluster "${displayNameOf(cluster)}" is not in ${scenario.file}, so these overrides change nothing in this replay`,
            },
          ],
    ),
  };
}
