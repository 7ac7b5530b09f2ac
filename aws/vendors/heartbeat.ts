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
 * How long the ping URL and its Authorization are cached. A poll pings every minute, and reading them every five
 * minutes, as the vendor keys are, would be 8,640 reads a month, each a KMS request for a SecureString parameter. A URL
 * or key that was rotated is read again at once when the service refuses the ping (`REFUSED`), so an hour is only how
 * long a change the service does not refuse waits.
 */
export const HEARTBEAT_SECRET_MAX_AGE_SECONDS = 3_600;

/**
 * The answers that say the URL or the key is no longer the right one: unauthorized, forbidden (Opsgenie's answer to a
 * key that was removed or lacks the right), not found or gone (a check or heartbeat renamed or deleted).
 */
const REFUSED: ReadonlySet<number> = new Set([401, 403, 404, 410]);

/**
 * Pings a URL kept in Secrets Manager or Parameter Store with a GET, which Opsgenie's and Jira Service Management's
 * heartbeat pings and Healthchecks.io all accept. The URL and the Authorization header are secrets: errors name the
 * secret or parameter, never the URL, whose path or query often carries the token.
 */
export class HttpHeartbeat implements ExternalHeartbeat {
  constructor(private readonly options: HttpHeartbeatOptions) {}

  async ping(): Promise<void> {
    const status = await this.send(false);
    // Refused with what the cache held: read both again, past the cache, and ping once more with what is there now.
    const answer = REFUSED.has(status) ? await this.send(true) : status;
    if (answer < 200 || answer > 299) {
      throw new HeartbeatPingError(`${this.where()} answered HTTP ${answer}`);
    }
  }

  /** One ping with the URL and Authorization as read (`fresh`: past the cache); its HTTP status. */
  private async send(fresh: boolean): Promise<number> {
    const { urlSecret, authorizationSecret, secrets } = this.options;
    const read = (reference: SecretReference) => secrets.value(reference, fresh, HEARTBEAT_SECRET_MAX_AGE_SECONDS);
    const url = await read(urlSecret);
    const authorization = authorizationSecret ? await read(authorizationSecret) : undefined;
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
      throw new HeartbeatPingError(`could not ping ${this.where()}: ${reason}`, { cause: error });
    }
    // The body is not needed; reading it lets the connection be reused.
    await response.arrayBuffer().catch(() => undefined);
    return response.status;
  }

  private where(): string {
    return `the heartbeat URL of ${describeSecretReference(this.options.urlSecret)}`;
  }
}
