/**
 * A loopback fake of Jira Service Management's integration events API, which took over Opsgenie's Alert API
 * (https://developer.atlassian.com/cloud/jira/service-desk-ops/rest/v1/api-group-integration-events/): the same
 * requests and answers as the Opsgenie fake (GenieKey authorization, create, note and close by alias, 202 with a
 * request id, then the request's status), under `/jsm/ops/integration` on the Atlassian API host.
 */
import type { LoopbackServerOptions, RawRequest, ServiceCall } from '../../support/loopback-server.ts';
import { ServiceError } from '../../support/loopback-server.ts';
import type { VendorInput } from '../../support/vendor-server.ts';
import { OpsgenieServer } from './opsgenie-server.ts';

export const JSM_BASE_PATH = '/jsm/ops/integration';

export async function startJsmServer(options: LoopbackServerOptions = {}): Promise<JsmServer> {
  return new JsmServer(options).listen();
}

export class JsmServer extends OpsgenieServer {
  /** The integration endpoint a client is configured with: the host and the base path. */
  override get endpoint(): string {
    return `${super.endpoint}${JSM_BASE_PATH}`;
  }

  protected override decode(request: RawRequest): ServiceCall<VendorInput> {
    if (!request.path.startsWith(`${JSM_BASE_PATH}/`)) {
      throw new ServiceError('NotFound', `no such endpoint ${request.path}`, 404);
    }
    return super.decode({ ...request, path: request.path.slice(JSM_BASE_PATH.length) });
  }
}
