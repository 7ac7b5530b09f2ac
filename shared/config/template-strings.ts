import * as z from 'zod';

/**
 * Strings of the configuration that end up in the CloudFormation template (alarm names, dimensions, dashboards,
 * filter policies, subscriptions) or in the bundled configuration. Each is held to the rules of the AWS name it is,
 * and no string may carry syntax that CloudFormation or the CDK would resolve instead of keeping it as text.
 */

/**
 * EKS's own rule for cluster names: "alphanumeric characters (case-sensitive), hyphens, and underscores", starting with
 * an alphanumeric character, at most 100 characters.
 * https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateCluster.html
 */
export const clusterNameSchema = z
  .string()
  .min(1, { error: 'expected an EKS cluster name' })
  .max(100, { error: 'expected an EKS cluster name of at most 100 characters' })
  .regex(/^[0-9A-Za-z][A-Za-z0-9_-]*$/, {
    error: 'expected an EKS cluster name: letters, digits, "-" and "_", starting with a letter or a digit',
  });

/**
 * Secrets Manager names: 1 to 512 of letters, digits and /_+=.@-.
 * https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_CreateSecret.html
 */
export const secretNameSchema = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[A-Za-z0-9/_+=.@-]+$/, { error: 'expected a Secrets Manager secret name: letters, digits and /_+=.@-' });

/**
 * Auto Scaling group names: 1 to 255 characters, no colon (it would read as an ARN), no control characters.
 * https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_CreateAutoScalingGroup.html
 */
export const autoScalingGroupNameSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^:\p{Cc}]+$/u, { error: 'expected an Auto Scaling group name (no ":" and no control characters)' });

/** What CloudFormation (`{{resolve:...}}` dynamic references) or the CDK (`${Token[...]}`) would resolve in a string. */
const RESOLVED_SYNTAX = /\{\{resolve:|\$\{Token\[/i;

/** Why a string would not stay text in a template, or undefined. */
export function resolvedSyntaxIn(text: string): string | undefined {
  return RESOLVED_SYNTAX.test(text)
    ? 'contains "{{resolve:" or "${Token[", which CloudFormation or the CDK would resolve: write it as plain text'
    : undefined;
}

/** Query parameters whose value is a credential, whatever the host. */
const CREDENTIAL_PARAMETER =
  /^(?:.*[-_.])?(?:key|apikey|api_key|token|access_token|secret|client_secret|signature|sig|password|passwd|pwd|auth|code)$/i;

/** Integration hosts whose path carries the key itself. */
const KEY_IN_PATH: readonly { host: RegExp; path: RegExp; name: string }[] = [
  { host: /(^|\.)events(\.eu)?\.pagerduty\.com$/i, path: /\/integration\/[^/]+/i, name: 'a PagerDuty integration key' },
  { host: /^hooks\.slack\.com$/i, path: /\/services\//i, name: 'a Slack webhook secret' },
  { host: /(^|\.)webhook\.office\.com$|\.logic\.azure\.com$/i, path: /./, name: 'a Microsoft Teams webhook' },
  { host: /(^|\.)discord(app)?\.com$/i, path: /\/api\/webhooks\//i, name: 'a Discord webhook token' },
  { host: /(^|\.)opsgenie\.com$/i, path: /\/(integrations|v\d)\//i, name: 'an Opsgenie API key' },
];

/** What credential a URL carries (user info, a key parameter, a key in an integration path), or undefined. */
export function credentialIn(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.username || url.password) return 'a user name or password before the host';
  const parameter = [...url.searchParams.keys()].find((name) => CREDENTIAL_PARAMETER.test(name));
  if (parameter) return `the query parameter "${parameter}"`;
  const known = KEY_IN_PATH.find(({ host, path }) => host.test(url.hostname) && path.test(url.pathname));
  return known?.name;
}
