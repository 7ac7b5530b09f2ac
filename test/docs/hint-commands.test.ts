import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from '@jest/globals';
import { type ClusterFacts, fillPlaceholders, PLACEHOLDERS } from '../../shared/engine/hint-scope.ts';
import { DEFAULT_RULES } from '../../shared/engine/rules/index.ts';
import { repoPath } from '../support/engine-fixtures.ts';
import {
  type AwsCall,
  awsCalls,
  markdownCommands,
  quotedAt,
  READER_PLACEHOLDER,
  shellProblems,
} from '../support/shell-commands.ts';

/**
 * Every command a page or a runbook tells on-call to paste: it names a real AWS operation with the parameters that
 * operation requires, and it parses the same in bash and zsh. The service models are the ones the `@aws-sdk/client-*`
 * packages ship (their `schemas_0` exports: each operation's input, its members, and how many of them are required);
 * for services whose client this project does not install, a table cites the API reference page of each operation.
 */

const RUNBOOKS = readdirSync(repoPath('docs/runbooks'))
  .filter((file) => file.endsWith('.md'))
  .sort()
  .map((file) => ({ file: `docs/runbooks/${file}`, text: readFileSync(repoPath(`docs/runbooks/${file}`), 'utf8') }));

/** A cluster whose values need quoting: an Auto Scaling group name may hold spaces, quotes and `$` (not `:`). */
const AWKWARD: ClusterFacts = {
  name: 'prod_euw1-a',
  region: 'eu-west-1',
  accountId: '111122223333',
  controlPlane: 'eks-control-plane',
  nodes: ['self-managed-groups', 'karpenter'],
  autoScalingGroups: ["nodes 'blue' $HOME", 'eks-green*'],
};

interface PageCommand {
  readonly where: string;
  readonly command: string;
}

/** Each hint command as a page shows it: filled for a configured cluster, and with named placeholders without one. */
const HINT_COMMANDS: readonly PageCommand[] = DEFAULT_RULES.flatMap((rule) =>
  rule.hints.flatMap((hint, index) =>
    (hint.commands ?? []).flatMap((template) => [
      { where: `${rule.id} hint ${index} (filled)`, command: fillPlaceholders(template, [AWKWARD]) },
      { where: `${rule.id} hint ${index} (unfilled)`, command: fillPlaceholders(template, []) },
    ]),
  ),
);

const RUNBOOK_COMMANDS: readonly PageCommand[] = RUNBOOKS.flatMap(({ file, text }) =>
  markdownCommands(text).map((command) => ({ where: file, command })),
);

const ALL_COMMANDS = [...HINT_COMMANDS, ...RUNBOOK_COMMANDS];

// --- AWS operations -------------------------------------------------------------------------------------------

/** The client package that ships each service's model, by the name the AWS CLI gives the service. */
const CLIENTS: Readonly<Record<string, string>> = {
  eks: '@aws-sdk/client-eks',
  autoscaling: '@aws-sdk/client-auto-scaling',
  ec2: '@aws-sdk/client-ec2',
  cloudwatch: '@aws-sdk/client-cloudwatch',
  cloudformation: '@aws-sdk/client-cloudformation',
};

/** AWS CLI commands that are the CLI's own, not API operations. */
const CLI_COMMANDS: Readonly<Record<string, { page: string; options: readonly string[] }>> = {
  'eks update-kubeconfig': {
    page: 'https://docs.aws.amazon.com/cli/latest/reference/eks/update-kubeconfig.html',
    options: ['name', 'kubeconfig', 'role-arn', 'dry-run', 'verbose', 'alias', 'user-alias'],
  },
};

interface ReferenceOperation {
  readonly page: string;
  readonly required: readonly string[];
  readonly optional: readonly string[];
}

/** Operations of services whose client is not installed, each with its API reference page. */
const API_REFERENCE: Readonly<Record<string, ReferenceOperation>> = {
  'oam list-sinks': {
    page: 'https://docs.aws.amazon.com/OAM/latest/APIReference/API_ListSinks.html',
    required: [],
    optional: ['max-results', 'next-token'],
  },
  'oam list-links': {
    page: 'https://docs.aws.amazon.com/OAM/latest/APIReference/API_ListLinks.html',
    required: [],
    optional: ['max-results', 'next-token'],
  },
  'oam list-attached-links': {
    page: 'https://docs.aws.amazon.com/OAM/latest/APIReference/API_ListAttachedLinks.html',
    required: ['sink-identifier'],
    optional: ['max-results', 'next-token'],
  },
  'oam create-link': {
    page: 'https://docs.aws.amazon.com/OAM/latest/APIReference/API_CreateLink.html',
    required: ['label-template', 'resource-types', 'sink-identifier'],
    optional: ['link-configuration', 'tags'],
  },
  'logs start-query': {
    page: 'https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_StartQuery.html',
    required: ['start-time', 'end-time', 'query-string'],
    optional: ['log-group-name', 'log-group-names', 'log-group-identifiers', 'limit', 'query-language'],
  },
  'logs get-query-results': {
    page: 'https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_GetQueryResults.html',
    required: ['query-id'],
    optional: [],
  },
  'logs filter-log-events': {
    page: 'https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_FilterLogEvents.html',
    required: [],
    optional: [
      'log-group-name',
      'log-group-identifier',
      'log-stream-names',
      'log-stream-name-prefix',
      'start-time',
      'end-time',
      'filter-pattern',
      'next-token',
      'limit',
      'unmask',
    ],
  },
  'cloudtrail lookup-events': {
    page: 'https://docs.aws.amazon.com/awscloudtrail/latest/APIReference/API_LookupEvents.html',
    required: [],
    optional: ['lookup-attributes', 'start-time', 'end-time', 'event-category', 'max-results', 'next-token'],
  },
  'kms describe-key': {
    page: 'https://docs.aws.amazon.com/kms/latest/APIReference/API_DescribeKey.html',
    required: ['key-id'],
    optional: ['grant-tokens'],
  },
  'kms enable-key': {
    page: 'https://docs.aws.amazon.com/kms/latest/APIReference/API_EnableKey.html',
    required: ['key-id'],
    optional: [],
  },
  'kms cancel-key-deletion': {
    page: 'https://docs.aws.amazon.com/kms/latest/APIReference/API_CancelKeyDeletion.html',
    required: ['key-id'],
    optional: [],
  },
  'events list-rules': {
    page: 'https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_ListRules.html',
    required: [],
    optional: ['name-prefix', 'event-bus-name', 'next-token', 'limit'],
  },
  'elbv2 describe-target-groups': {
    page: 'https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DescribeTargetGroups.html',
    required: [],
    optional: ['load-balancer-arn', 'target-group-arns', 'names', 'marker', 'page-size'],
  },
};

/** Options every AWS CLI command takes (https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-options.html). */
const GLOBAL_OPTIONS = ['region', 'output', 'query', 'profile', 'endpoint-url', 'no-cli-pager', 'debug', 'no-paginate'];
/** The CLI's pagination options, on paginated operations only. */
const PAGINATION_OPTIONS = ['max-items', 'page-size', 'starting-token'];

/** botocore's xform_name: a model member or operation name as the CLI spells it. */
function cliName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

const pascal = (kebab: string) =>
  kebab
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

interface OperationModel {
  readonly source: string;
  readonly required: readonly string[];
  readonly members: readonly string[];
  readonly paginated: boolean;
}

const require = createRequire(import.meta.url);
type Schema = readonly unknown[];

/** An operation as the shipped client model defines it: `[9, ns, name, traits, input, output]`. */
function shippedOperation(service: string, operation: string): OperationModel | 'unknown-operation' | undefined {
  const pkg = CLIENTS[service];
  if (!pkg) return undefined;
  const client = require(pkg) as Record<string, unknown>;
  const name = pascal(operation);
  const schema = client[`${name}$`] as Schema | undefined;
  if (!schema) return 'unknown-operation';
  // An input structure is [3, ns, name, traits, memberNames, memberSchemas, requiredCount]: required members first.
  const input = (schema[4] as () => Schema)();
  const members = (input[4] as readonly string[]).map(cliName);
  const requiredCount = (input[6] as number | undefined) ?? 0;
  return {
    source: `${pkg} ${name}`,
    required: members.slice(0, requiredCount),
    members,
    paginated: typeof client[`paginate${name}`] === 'function',
  };
}

function modelOf(call: AwsCall): OperationModel | string {
  const key = `${call.service} ${call.operation}`;
  const cli = CLI_COMMANDS[key];
  if (cli) return { source: cli.page, required: [], members: cli.options, paginated: false };
  const shipped = shippedOperation(call.service, call.operation);
  if (shipped === 'unknown-operation')
    return `${key}: no operation ${pascal(call.operation)} in ${CLIENTS[call.service]}`;
  if (shipped) return shipped;
  const reference = API_REFERENCE[key];
  if (!reference) return `${key}: neither a shipped model nor an API reference entry in this test`;
  return {
    source: reference.page,
    required: reference.required,
    members: [...reference.required, ...reference.optional],
    paginated: true,
  };
}

/** What is wrong with one AWS CLI call against its model, if anything. */
function callProblems(call: AwsCall): string[] {
  const model = modelOf(call);
  if (typeof model === 'string') return [model];
  const key = `${call.service} ${call.operation}`;
  const given = new Set(call.options.map((option) => option.replace(/^no-/, '')));
  const missing = model.required.filter((member) => !given.has(member));
  const known = new Set([...model.members, ...GLOBAL_OPTIONS, ...(model.paginated ? PAGINATION_OPTIONS : [])]);
  const unknown = call.options.filter((option) => !known.has(option) && !known.has(option.replace(/^no-/, '')));
  return [
    ...missing.map((member) => `${key} lacks --${member}, which ${model.source} requires`),
    ...unknown.map((option) => `${key} has no --${option} (${model.source})`),
  ];
}

describe('AWS CLI commands in hints and runbooks', () => {
  const calls = ALL_COMMANDS.flatMap(({ where, command }) => awsCalls(command).map((call) => ({ where, call })));

  it('finds the AWS calls of the hints and of every runbook', () => {
    const services = new Set(calls.map(({ call }) => call.service));

    expect(calls.length).toBeGreaterThan(40);
    expect([...services].sort()).toEqual(expect.arrayContaining(['autoscaling', 'cloudwatch', 'ec2', 'eks', 'oam']));
  });

  it('names real operations with every parameter they require, and no option they lack', () => {
    const problems = calls.flatMap(({ where, call }) => callProblems(call).map((problem) => `${where}: ${problem}`));

    expect([...new Set(problems)]).toEqual([]);
  });

  it('gives every hint command that calls a regional AWS service its Region', () => {
    const regionless = HINT_COMMANDS.flatMap(({ where, command }) =>
      awsCalls(command)
        .filter((call) => !call.options.includes('region'))
        .map((call) => `${where}: aws ${call.service} ${call.operation}`),
    );

    expect(regionless).toEqual([]);
  });

  it('keeps the reference table honest where a shipped model exists', () => {
    const checkable = Object.entries(API_REFERENCE).flatMap(([key, reference]) => {
      const [service = '', operation = ''] = key.split(' ');
      const shipped = shippedOperation(service, operation);
      return shipped && shipped !== 'unknown-operation' ? [{ key, reference, shipped }] : [];
    });

    expect(checkable.filter(({ reference, shipped }) => reference.required.join() !== shipped.required.join())).toEqual(
      [],
    );
  });
});

describe('commands as bash and zsh read them', () => {
  it('has no unquoted glob, unbalanced quote, history expansion or trailing comment', () => {
    const problems = ALL_COMMANDS.flatMap(({ where, command }) =>
      shellProblems(command).map((problem) => `${where}: ${problem}`),
    );

    expect(problems).toEqual([]);
  });

  it('puts no command in the prose of a hint: commands go in `commands`, where they are checked and filled', () => {
    const inline = DEFAULT_RULES.flatMap((rule) =>
      rule.hints
        .filter((hint) => /`(aws|kubectl|helm|gcloud) /.test(hint.text))
        .map((hint) => `${rule.id}: ${hint.text}`),
    );

    expect(inline).toEqual([]);
  });

  it('names only known placeholders, outside quotes, so that filling them quotes the value', () => {
    const templates = DEFAULT_RULES.flatMap((rule) => rule.hints.flatMap((hint) => hint.commands ?? []));
    // `{end}` and `{range ...}` are kubectl JSONPath, always inside single quotes.
    const unknown = templates.flatMap((t) =>
      [...t.matchAll(/\{([A-Za-z]+)\}/g)]
        .filter((m) => quotedAt(t, m.index) === undefined)
        .map((m) => m[1] as string)
        .filter((name) => !(name in PLACEHOLDERS)),
    );
    const quoted = templates.flatMap((t) =>
      [...t.matchAll(/\{([A-Za-z]+)\}/g)]
        .filter((m) => (m[1] as string) in PLACEHOLDERS && quotedAt(t, m.index) !== undefined)
        .map((m) => `${m[0]} inside quotes in: ${t}`),
    );

    expect([unknown, quoted]).toEqual([[], []]);
  });

  it('writes reader placeholders as <lower-case-words>, which stay visible and are one word', () => {
    const bad = ALL_COMMANDS.flatMap(({ where, command }) =>
      [...command.matchAll(/<[^<>\s]*[\s][^<>]*>|<[A-Z][^<>]*>/g)].map((m) => `${where}: ${m[0]}`),
    );

    expect(bad).toEqual([]);
  });

  /** Real shells, where this machine has them (CI may not have zsh): each must parse every command. */
  const shells = ['bash', 'zsh'].filter((shell) => {
    try {
      execFileSync(shell, ['-c', 'true'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });

  it.each(shells)('parses with %s -n', (shell) => {
    const asWords = (command: string) =>
      command.replace(
        new RegExp(READER_PLACEHOLDER.source.slice(1), 'g'),
        (placeholder) => `PLACEHOLDER_${placeholder.length}`,
      );
    const failures = ALL_COMMANDS.flatMap(({ where, command }) => {
      try {
        execFileSync(shell, shell === 'zsh' ? ['-f', '-n', '-c', asWords(command)] : ['-n', '-c', asWords(command)], {
          stdio: 'pipe',
        });
        return [];
      } catch (error) {
        return [`${where}: ${command}\n${String((error as { stderr?: Buffer }).stderr ?? error)}`];
      }
    });

    expect(failures).toEqual([]);
  });
});
