import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildSentinelApp } from '../../infra/sentinel-app.ts';
import { InputError } from '../../shared/errors.ts';
import { newApp, synthSentinelApp, TEST_ENV } from '../../support/synth-sentinel-app.ts';

const KEY = 'R0utingKeyThatMustNeverLeak';

/** Every file written under a folder, as text. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'utf8'));
}

describe('a subscriber URL that carries a credential', () => {
  it.each([
    ['a PagerDuty EU integration key', `https://events.eu.pagerduty.com/integration/${KEY}/enqueue`],
    ['user info', `https://oncall:${KEY}@hooks.example.com/page`],
    ['a token parameter', `https://hooks.example.com/page?token=${KEY}`],
  ])('fails the synth with %s, and no template or bundle holds it', (_what, endpoint) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sentinel-secret-'));
    const configFile = path.join(dir, 'sentinel.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        clusters: [{ name: 'prod-euw1' }],
        subscriptions: { paging: [{ subscribers: [{ protocol: 'https', endpoint }] }] },
      }),
    );
    const app = newApp({ parent: dir });
    try {
      let error: unknown;
      try {
        buildSentinelApp(app, { configFile, credentials: TEST_ENV });
        app.synth();
      } catch (caught) {
        error = caught;
      }

      expect(error).toBeInstanceOf(InputError);
      expect(String(error)).toContain('"endpointSecret"');
      expect(filesUnder(app.outdir).filter((text) => text.includes(KEY))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function synthWith(subscriptions: object) {
  const dir = mkdtempSync(path.join(tmpdir(), 'sentinel-secret-'));
  const configFile = path.join(dir, 'sentinel.json');
  writeFileSync(configFile, JSON.stringify({ clusters: [{ name: 'prod-euw1' }], subscriptions }));
  const synthesized = synthSentinelApp({ configFile, bundle: false });
  rmSync(dir, { recursive: true, force: true });
  return synthesized;
}

interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
}

/** The statements of the delivery function's policy that reads the vendor keys. */
function vendorKeyReads(template: Template): Statement[] {
  return Object.entries(template.findResources('AWS::IAM::Policy'))
    .filter(([id]) => id.includes('ReadVendorKeys'))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

describe('an https subscriber whose URL is a secret', () => {
  it('has no SNS subscription of its own: the delivery queue reads its topics and the function reads the secret', () => {
    const hook = { protocol: 'https', endpointSecret: { secretName: 'sentinel/chat-hook', jsonField: 'url' } };
    const synthesized = synthWith({
      paging: [{ subscribers: [hook, { protocol: 'email', endpoint: 'oncall@example.com' }] }],
      notice: [{ subscribers: [{ protocol: 'https', endpointSecret: { secretName: 'sentinel/ticket-hook' } }] }],
    });
    try {
      const template = Template.fromStack(synthesized.ops);
      const subscriptions = Object.values(template.findResources('AWS::SNS::Subscription'));
      const text = JSON.stringify(template.toJSON());

      expect(subscriptions.filter((s) => s.Properties.Protocol === 'https')).toEqual([]);
      expect(text).not.toContain('resolve:secretsmanager');
      expect(subscriptions.filter((s) => s.Properties.Protocol === 'sqs')).toHaveLength(2);
      const reads = Object.values(template.findResources('AWS::IAM::Policy'))
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
        .filter((statement) => statement.Action === 'secretsmanager:GetSecretValue');
      expect(JSON.stringify(reads)).toContain('secret:sentinel/chat-hook-??????');
      expect(JSON.stringify(reads)).toContain('secret:sentinel/ticket-hook-??????');
    } finally {
      synthesized.dispose();
    }
  });
});

describe('vendor keys kept in SecureString parameters', () => {
  const email = { protocol: 'email', endpoint: 'oncall@example.com' };
  const parameterArn = (name: string) => `arn:aws:ssm:eu-west-1:111122223333:parameter/${name}`;

  it('lets the delivery function get those parameters and no other, beside the secrets others name', () => {
    const synthesized = synthWith({
      paging: [
        {
          subscribers: [
            email,
            { protocol: 'pagerduty', routingKeySecret: { parameterName: '/sentinel/pagerduty-routing-key' } },
            { protocol: 'opsgenie', apiKeySecret: { parameterName: 'sentinel-opsgenie', jsonField: 'key' } },
            { protocol: 'jsm', apiKeySecret: { secretName: 'sentinel/jsm' } },
          ],
        },
      ],
    });
    try {
      const template = Template.fromStack(synthesized.ops);

      expect(vendorKeyReads(template)).toEqual([
        {
          Action: 'secretsmanager:GetSecretValue',
          Effect: 'Allow',
          Resource: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:sentinel/jsm-??????',
        },
        {
          Action: 'ssm:GetParameter',
          Effect: 'Allow',
          Resource: [parameterArn('sentinel-opsgenie'), parameterArn('sentinel/pagerduty-routing-key')],
        },
      ]);
      expect(JSON.stringify(template.toJSON())).not.toContain('resolve:ssm');
    } finally {
      synthesized.dispose();
    }
  });

  it('needs no key grant for the AWS managed key, and no acknowledged wildcard without a secret', () => {
    const synthesized = synthWith({
      paging: [
        {
          subscribers: [
            email,
            { protocol: 'pagerduty', routingKeySecret: { parameterName: '/sentinel/pagerduty-routing-key' } },
          ],
        },
      ],
    });
    try {
      const template = Template.fromStack(synthesized.ops);
      const policy = synthesized.ops.delivery?.function.node.tryFindChild('ReadVendorKeys');
      const acknowledged = policy?.node.metadata.filter(
        (entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY,
      );

      expect(vendorKeyReads(template)).toEqual([
        {
          Action: 'ssm:GetParameter',
          Effect: 'Allow',
          Resource: parameterArn('sentinel/pagerduty-routing-key'),
        },
      ]);
      expect(acknowledged).toEqual([]);
      expect(new AwsSolutionsChecks().validateScope(synthesized.app).violations).toEqual([]);
    } finally {
      synthesized.dispose();
    }
  });
});
