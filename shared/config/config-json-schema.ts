import * as z from 'zod';
import { ruleIdSchema, ruleOverridesSchema } from '../engine/rule.ts';
import { DEFAULT_RULES } from '../engine/rules/index.ts';
import { deploymentConfigSchema } from './deployment-config.ts';

/**
 * The deployment configuration as JSON Schema, for editors to validate, complete and explain: every field's
 * description is the `.meta({ description })` beside it in the zod schema. Checks that JSON Schema cannot express (a
 * rule's `$param` references, time zones, cross references) are left to `sentinel validate-config`.
 *
 * Where a rule id is expected, the default rules' ids are listed, so an editor offers them; a custom rule's id is
 * still valid. An overrides object also names each default rule as a property, with its title, so an editor
 * completes the key and says what the rule is.
 */
export function configJsonSchema(): object {
  return {
    ...z.toJSONSchema(deploymentConfigSchema, {
      io: 'input',
      unrepresentable: 'any',
      target: 'draft-2020-12',
      override: ({ zodSchema, jsonSchema }) => {
        if (zodSchema === ruleIdSchema) {
          const custom = { ...jsonSchema, description: "a custom rule's id" };
          for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
          jsonSchema.anyOf = [{ enum: DEFAULT_RULES.map((rule) => rule.id), description: 'a default rule' }, custom];
        }
        if (zodSchema === ruleOverridesSchema && typeof jsonSchema.additionalProperties === 'object') {
          const override = jsonSchema.additionalProperties;
          jsonSchema.properties = Object.fromEntries(
            DEFAULT_RULES.map((rule) => [rule.id, { ...override, description: `${rule.title} (${rule.severity})` }]),
          );
        }
      },
    }),
    title: 'k8s-incident-sentinel deployment configuration',
  };
}
