import { SecretNotFoundError, SecretShapeError, secretValues } from '../../aws/vendors/secret-values.ts';
import type { SecretReference } from '../../shared/config/deployment-config.ts';
import { type SecretsManagerServer, startSecretsManagerServer } from '../../support/secrets-manager-server.ts';
import { type SsmServer, startSsmServer } from '../../support/ssm-server.ts';

/**
 * The run-time reads of vendor keys and URLs, through the real SDK clients and Powertools Parameters, against the
 * loopback Secrets Manager and Parameter Store: each behaviour holds for a secret and for a SecureString parameter.
 */
let secrets: SecretsManagerServer;
let parameters: SsmServer;

beforeAll(async () => {
  [secrets, parameters] = await Promise.all([startSecretsManagerServer(), startSsmServer()]);
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    AWS_ENDPOINT_URL_SSM: parameters.endpoint,
  });
});

afterAll(async () => {
  await Promise.all([secrets?.close(), parameters?.close()]);
});

beforeEach(() => {
  secrets.reset();
  parameters.reset();
});

let sequence = 0;

/** Where a test keeps its value: a name of its own in one store, so that no test reads another's versions. */
interface Store {
  reference(jsonField?: string): SecretReference;
  /** How errors name it: `secret NAME` or `parameter NAME`. */
  readonly described: string;
  /** Put a new value, as a rotation does (a secret's AWSCURRENT, a parameter's next version). */
  put(value: string): void;
  /** The reads the store answered for this name, the previous version's included. */
  reads(): number;
}

const STORES: [string, () => Store][] = [
  [
    'a Secrets Manager secret',
    () => {
      const name = `sentinel/key-${++sequence}`;
      return {
        reference: (jsonField) => ({ secretName: name, ...(jsonField && { jsonField }) }),
        described: `secret ${name}`,
        put: (value) => secrets.putSecret(name, value),
        reads: () => secrets.reads.filter((read) => read === name).length,
      };
    },
  ],
  [
    'a SecureString parameter',
    () => {
      const name = `/sentinel/key-${++sequence}`;
      return {
        reference: (jsonField) => ({ parameterName: name, ...(jsonField && { jsonField }) }),
        described: `parameter ${name}`,
        put: (value) => parameters.putParameter(name, value),
        reads: () => parameters.reads.filter((read) => read.split(':')[0] === name).length,
      };
    },
  ],
];

describe.each(STORES)('a key kept in %s', (_, newStore) => {
  it('is read whole, trimmed, or from a field of its JSON', async () => {
    const store = newStore();
    store.put(' {"routingKey": "R0UTINGKEY0000000000000000000001"}\n');
    const values = secretValues();

    await expect(values.value(store.reference())).resolves.toBe('{"routingKey": "R0UTINGKEY0000000000000000000001"}');
    await expect(values.value(store.reference('routingKey'))).resolves.toBe('R0UTINGKEY0000000000000000000001');
  });

  it('is read once per five minutes, and read again at once when asked for fresh after a rotation', async () => {
    const store = newStore();
    store.put('old-key');
    const values = secretValues();

    const first = await values.value(store.reference());
    store.put('new-key');
    const cached = await values.value(store.reference());
    const fresh = await values.value(store.reference(), true);

    expect([first, cached, fresh, store.reads()]).toEqual(['old-key', 'old-key', 'new-key', 2]);
  });

  it('gives the value before the last rotation, past the cache, and nothing before any rotation', async () => {
    const store = newStore();
    store.put('first-key');
    const values = secretValues();
    const before = await values.previous(store.reference());
    store.put('second-key');

    await expect(values.previous(store.reference())).resolves.toBe('first-key');
    expect(before).toBeUndefined();
  });

  it('names the missing secret or parameter, in an error of its own', async () => {
    const store = newStore();
    const reading = secretValues().value(store.reference());

    await expect(reading).rejects.toBeInstanceOf(SecretNotFoundError);
    await expect(reading).rejects.toThrow(`${store.described} does not exist in the ops account and Region`);
  });

  it.each([
    ['not JSON', 'R0UTINGKEY-NOT-JSON', /is not JSON, so it has no field "routingKey"$/],
    ['JSON without the field', '{"other": "R0UTINGKEY-OTHER"}', /has no string field "routingKey"$/],
    ['JSON whose field is not a string', '{"routingKey": 1234567}', /has no string field "routingKey"$/],
  ])('refuses a value that is %s, naming the field and never the value', async (_what, value, message) => {
    const store = newStore();
    store.put(value);
    const reading = secretValues().value(store.reference('routingKey'));

    await expect(reading).rejects.toBeInstanceOf(SecretShapeError);
    await expect(reading).rejects.toThrow(`${store.described} `);
    await expect(reading).rejects.toThrow(message);
    await expect(reading).rejects.not.toThrow(/R0UTINGKEY|1234567/);
  });
});

describe('a SecureString parameter', () => {
  const name = '/sentinel/pagerduty-routing-key';

  beforeEach(() => {
    parameters.deleteParameter(name);
  });

  it('is read decrypted, and its previous version by number once its current number is read undecrypted', async () => {
    parameters.putParameter(name, 'first-key');
    parameters.putParameter(name, 'second-key');

    const [current, previous] = [
      await secretValues().value({ parameterName: name }),
      await secretValues().previous({ parameterName: name }),
    ];

    expect([current, previous]).toEqual(['second-key', 'first-key']);
    expect(parameters.reads).toEqual([name, name, `${name}:1`]);
    expect(parameters.decryptedReads).toEqual([name, `${name}:1`]);
  });

  it('has no previous value when its previous version is gone between the two reads', async () => {
    for (const key of ['first-key', 'second-key', 'third-key']) parameters.putParameter(name, key);
    // Deleted and put again once version 3 was read: the versions start over, and there is no version 2.
    parameters.afterNextAnswer(() => {
      parameters.deleteParameter(name);
      parameters.putParameter(name, 'fourth-key');
    });

    await expect(secretValues().previous({ parameterName: name })).resolves.toBeUndefined();
    expect(parameters.reads).toEqual([name, `${name}:2`]);
  });

  it('has no previous value when it does not exist', async () => {
    await expect(secretValues().previous({ parameterName: name })).resolves.toBeUndefined();
  });

  it('is read through a throttled Parameter Store, the SDK retrying', async () => {
    parameters.putParameter(name, 'the-key');
    parameters.faults.inject({ kind: 'throttle', operation: 'GetParameter', times: 2 });

    await expect(secretValues().value({ parameterName: name })).resolves.toBe('the-key');
    expect(parameters.faults.fired.throttle).toBe(2);
  });
});
