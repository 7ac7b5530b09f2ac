import * as z from 'zod';
import { InputError, type InputProblem } from '../errors.ts';
import { checkNesting, jsonPath, stringsIn } from '../schema-errors.ts';

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
 * Parameter Store names: letters, digits and _.-, with a "/" before each level of a hierarchy (a name with levels
 * starts with one), at most 15 levels, not starting with "aws" or "ssm" whatever the case (nor "/aws", "/ssm"), at
 * most 1,011 characters (a count AWS takes with the parameter's ARN before the name, so a name near the bound can be
 * refused by AWS still).
 * https://docs.aws.amazon.com/systems-manager/latest/userguide/sysman-parameter-name-constraints.html
 */
export const PARAMETER_NAME_MAX = 1011;
export const PARAMETER_LEVELS_MAX = 15;
export const parameterNameSchema = z
  .string()
  .min(1, { error: 'expected a Parameter Store parameter name' })
  .max(PARAMETER_NAME_MAX, {
    error: `expected a Parameter Store parameter name of at most ${PARAMETER_NAME_MAX} characters`,
  })
  .regex(/^(?:[A-Za-z0-9_.-]+|(?:\/[A-Za-z0-9_.-]+)+)$/, {
    error:
      'expected a Parameter Store parameter name: letters, digits and _.-, with a "/" before each level, like /sentinel/pagerduty-routing-key',
  })
  .refine((name) => !/^\/?(?:aws|ssm)/i.test(name), {
    error: 'Parameter Store keeps names that start with "aws" or "ssm" for itself: name the parameter otherwise',
  })
  .refine((name) => name.split('/').filter(Boolean).length <= PARAMETER_LEVELS_MAX, {
    error: `expected a Parameter Store parameter name of at most ${PARAMETER_LEVELS_MAX} levels`,
  });

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

/**
 * Key shapes that are a credential wherever they stand, in a URL or not: AWS access key ids
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids: AKIA for a
 * user's key, ASIA for a temporary one), private keys in PEM, Opsgenie's `GenieKey` header value and its API keys
 * (a UUID; one inside an ARN, such as an OAM sink's, is an id, not a key), PagerDuty integration keys (32 characters),
 * bearer tokens and the tokens of Slack and GitHub.
 */
const KEY_SHAPES: readonly { pattern: RegExp; name: string }[] = [
  { pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/, name: 'an AWS access key id' },
  { pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/, name: 'a private key' },
  { pattern: /\bGenieKey\s+\S+/i, name: 'an Opsgenie API key' },
  {
    pattern: /^(?!arn:)[\s\S]*\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i,
    name: 'what looks like an Opsgenie API key (a UUID)',
  },
  { pattern: /\b[0-9a-f]{32}\b/i, name: 'what looks like a PagerDuty integration key (32 hexadecimal characters)' },
  { pattern: /\bBearer\s+[A-Za-z0-9._~+/=-]{16,}/, name: 'a bearer token' },
  { pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/, name: 'a Slack token' },
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/, name: 'a GitHub token' },
];

/** `name=value` outside a URL, as in "?token=..." pasted into a hint or a reason. */
const CREDENTIAL_ASSIGNMENT =
  /(?:^|[?&;\s])((?:[\w.-]*[-_.])?(?:key|apikey|api_key|token|access_token|secret|client_secret|signature|sig|password|passwd|pwd|auth))=[^\s&]+/i;

/** Every URL in a text, up to the first blank or quote. */
const URLS = /\bhttps?:\/\/[^\s"'<>]+/gi;

/** What credential a text carries anywhere in it (a URL's, a `name=value`, a known key shape), or undefined. */
export function secretIn(text: string): string | undefined {
  for (const url of text.match(URLS) ?? []) {
    const found = credentialIn(url.replace(/[).,;:]+$/, ''));
    if (found) return found;
  }
  const assignment = CREDENTIAL_ASSIGNMENT.exec(text);
  if (assignment) return `"${assignment[1]}="`;
  return KEY_SHAPES.find(({ pattern }) => pattern.test(text))?.name;
}

/**
 * A configuration that holds a credential. Every string of the configuration reaches a template, a bundle, a log
 * or a notification body (a runbook URL, a hint, a maintenance reason, a metric dimension): none may carry one.
 */
export class CredentialInConfigError extends InputError {}

/**
 * Check every string of a configuration before its schema reads it, its nesting bounded first (the walk and the
 * schemas are linear in the size only within that bound): syntax CloudFormation or the CDK would resolve (InputError),
 * then credentials (CredentialInConfigError, each problem naming the path).
 */
export function checkConfigStrings(value: unknown, file: string): void {
  checkNesting(value, file);
  const strings = stringsIn(value);
  const problemsOf = (check: (text: string) => string | undefined): InputProblem[] =>
    strings.flatMap(({ path, text }) => {
      const problem = check(text);
      return problem ? [{ path: jsonPath(path), message: problem }] : [];
    });
  const injected = problemsOf(resolvedSyntaxIn);
  if (injected.length > 0) throw new InputError(file, injected);
  const credentials = problemsOf((text) => {
    const credential = secretIn(text);
    return (
      credential &&
      `this string carries a credential (${credential}): keep it out of the configuration, which reaches the template, every bundle, the logs and every notification. Store it in Secrets Manager or in a Parameter Store SecureString parameter, and name that (for a subscriber URL, use "endpointSecret" instead)`
    );
  });
  if (credentials.length > 0) throw new CredentialInConfigError(file, credentials);
}
