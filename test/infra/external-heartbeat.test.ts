import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { writeConfig } from '../../support/aws-harness.ts';
import { type SynthesizedSentinelApp, synthSentinelApp, TEST_CONFIG } from '../../support/synth-sentinel-app.ts';

/**
 * The test configuration with a heartbeat outside AWS: an Opsgenie ping URL in Secrets Manager, and its key in a
 * SecureString parameter of Parameter Store.
 */
const HEARTBEAT = {
  urlSecret: { secretName: 'sentinel/heartbeat', jsonField: 'url' },
  authorizationSecret: { parameterName: '/sentinel/opsgenie-heartbeat-key' },
};

describe('the heartbeat outside AWS, deployed', () => {
  let synth: SynthesizedSentinelApp;
  let template: Template;

  beforeAll(() => {
    const config = JSON.parse(readFileSync(TEST_CONFIG, 'utf8')) as { selfMonitoring?: object };
    const configFile = writeConfig({
      ...config,
      selfMonitoring: { ...config.selfMonitoring, externalHeartbeat: HEARTBEAT },
    });
    synth = synthSentinelApp({ configFile, bundle: false });
    template = Template.fromStack(synth.ops);
  });

  afterAll(() => synth.dispose());

  it('lets the poller read the secret and the parameter it names, and no other, at run time', () => {
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy).includes('ReadHeartbeatSecrets'))
      .flatMap(
        (policy) =>
          (policy as { Properties: { PolicyDocument: { Statement: unknown[] } } }).Properties.PolicyDocument.Statement,
      );

    expect(statements).toEqual([
      expect.objectContaining({
        Action: 'secretsmanager:GetSecretValue',
        Resource: expect.stringMatching(/secret:sentinel\/heartbeat-\?{6}$/),
      }),
      expect.objectContaining({
        Action: 'ssm:GetParameter',
        Resource: 'arn:aws:ssm:eu-west-1:111122223333:parameter/sentinel/opsgenie-heartbeat-key',
      }),
    ]);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/resolve:(secretsmanager|ssm)/);
  });
});
