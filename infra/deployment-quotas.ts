/**
 * The documented limits every synthesized stack must fit, with their sources. test/infra/fleet-quotas.test.ts checks
 * each stack of generated fleets against them, and `npm run bench` reports how close the largest stack comes.
 */

/** CloudFormation quotas (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html). */
export const CLOUDFORMATION_QUOTAS = {
  /** Template body size in an Amazon S3 object: what cdk uploads through the bootstrap bucket. */
  templateBytes: 1_048_576,
  /** Template body size in a request: a template at most this large deploys without the bootstrap bucket. */
  templateBytesInRequest: 51_200,
  resources: 500,
  outputs: 200,
  parameters: 200,
} as const;

/** EventBridge quotas (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-quota.html): Event pattern size. */
export const EVENTBRIDGE_QUOTAS = {
  /** Characters of one rule's event pattern (adjustable, but a deployment must not need an increase). */
  eventPatternCharacters: 2_048,
} as const;

/** What one synthesized template holds, as the quotas count it. */
export interface TemplateFootprint {
  readonly stackName: string;
  readonly bytes: number;
  readonly resources: number;
  readonly outputs: number;
  readonly parameters: number;
  /** The longest event pattern of its rules, in characters of JSON. */
  readonly longestEventPattern: number;
}

interface Template {
  readonly Resources?: Record<string, { readonly Type: string; readonly Properties?: { EventPattern?: unknown } }>;
  readonly Outputs?: Record<string, unknown>;
  readonly Parameters?: Record<string, unknown>;
}

export function templateFootprint(stackName: string, template: unknown, bytes: number): TemplateFootprint {
  const { Resources = {}, Outputs = {}, Parameters = {} } = template as Template;
  const patterns = Object.values(Resources).flatMap((resource) =>
    resource.Type === 'AWS::Events::Rule' && resource.Properties?.EventPattern !== undefined
      ? [JSON.stringify(resource.Properties.EventPattern).length]
      : [],
  );
  return {
    stackName,
    bytes,
    resources: Object.keys(Resources).length,
    outputs: Object.keys(Outputs).length,
    parameters: Object.keys(Parameters).length,
    longestEventPattern: Math.max(0, ...patterns),
  };
}

/** The quotas a template breaks, in words; empty when it fits. */
export function quotaBreaches(footprint: TemplateFootprint): string[] {
  const checks: [string, number, number][] = [
    ['template bytes', footprint.bytes, CLOUDFORMATION_QUOTAS.templateBytes],
    ['resources', footprint.resources, CLOUDFORMATION_QUOTAS.resources],
    ['outputs', footprint.outputs, CLOUDFORMATION_QUOTAS.outputs],
    ['parameters', footprint.parameters, CLOUDFORMATION_QUOTAS.parameters],
    ['event pattern characters', footprint.longestEventPattern, EVENTBRIDGE_QUOTAS.eventPatternCharacters],
  ];
  return checks
    .filter(([, value, limit]) => value > limit)
    .map(([what, value, limit]) => `${footprint.stackName}: ${value} ${what}, over the quota of ${limit}`);
}
