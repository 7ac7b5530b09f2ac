import { z } from 'zod';
import { deploymentConfigSchema } from './deployment-config.ts';

/**
 * The deployment configuration as JSON Schema, for editors to validate and complete. Checks that JSON Schema cannot
 * express (a rule's `$param` references, time zones, cross references) are left to `sentinel validate-config`.
 */
export function configJsonSchema(): object {
  return {
    ...z.toJSONSchema(deploymentConfigSchema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }),
    title: 'k8s-incident-sentinel deployment configuration',
  };
}
