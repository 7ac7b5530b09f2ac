import { describeSecretReference, type SecretReference } from '../../shared/config/deployment-config.ts';
import { SentinelError } from '../../shared/errors.ts';
import type { ExternalHeartbeat } from '../../shared/pipeline/ports.ts';
import type { SecretValues } from './secret-values.ts';

/**
 * How long a ping may take before it counts as failed. Heartbeat services answer a ping at once (Opsgenie processes
 * it asynchronously and answers "PONG", https://docs.opsgenie.com/docs/heartbeat-api; Healthchecks.io answers
 * "200 OK", https://healthchecks.io/docs/http_api/), and a ping must never hold a poll near its timeout.
 */
export const PING_TIMEOUT_MS = 5_000;

/** A ping that did not get through: the service is unreachable, slow, or answered with an error. */
export class HeartbeatPingError extends SentinelError {}

export interface HttpHeartbeatOptions {
  readonly urlSecret: SecretReference;
  readonly authorizationSecret?: SecretReference;
  readonly secrets: SecretValues;
}

/**
 * Pings a URL kept in Secrets Manager or Parameter Store with a GET, which Opsgenie's and Jira Service Management's
 * heartbeat pings and Healthchecks.io all accept. The URL and the Authorization header are secrets: errors name the
 * secret or parameter, never the URL, whose path or query often carries the token.
 */
export class HttpHeartbeat implements ExternalHeartbeat {
  constructor(private readonly options: HttpHeartbeatOptions) {}

  async ping(): Promise<void> {
    const { urlSecret, authorizationSecret, secrets } = this.options;
    const url = await secrets.value(urlSecret);
    const authorization = authorizationSecret ? await secrets.value(authorizationSecret) : undefined;
    const where = `the heartbeat URL of ${describeSecretReference(urlSecret)}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'GET',
        ...(authorization && { headers: { authorization } }),
        signal: AbortSignal.timeout(PING_TIMEOUT_MS),
      });
    } catch (error) {
      const reason =
        error instanceof Error
          ? `${error.name}: ${(error.cause as Error | undefined)?.message ?? error.message}`
          : String(error);
      throw new HeartbeatPingError(`could not ping ${where}: ${reason}`, { cause: error });
    }
    // The body is not needed; reading it lets the connection be reused.
    await response.arrayBuffer().catch(() => undefined);
    if (!response.ok) throw new HeartbeatPingError(`${where} answered HTTP ${response.status}`);
  }
}
