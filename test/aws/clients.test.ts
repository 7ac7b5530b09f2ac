import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { cloudWatchClients, documentClient, SDK_LOGGER_MIDDLEWARE, snsClient } from '../../aws/clients.ts';

const names = (client: { middlewareStack: { identify(): string[] } }) =>
  client.middlewareStack.identify().map((entry) => entry.split(' ')[0]);

describe('the SDK clients', () => {
  it('leave out the logger middleware a plain SDK client has', () => {
    const plain = new CloudWatchClient({ region: 'eu-west-1' });
    const ours = [cloudWatchClients('eu-west-1')('default'), snsClient(), documentClient()];

    // The first half fails if the SDK renames the middleware, which would otherwise come back unnoticed.
    expect([
      names(plain).includes(SDK_LOGGER_MIDDLEWARE),
      ours.map((c) => names(c).includes(SDK_LOGGER_MIDDLEWARE)),
    ]).toEqual([true, [false, false, false]]);
  });
});
