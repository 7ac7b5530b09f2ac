import { describeSecretReference, type SecretReference } from '../../shared/config/deployment-config.ts';
import { SentinelError } from '../../shared/errors.ts';
import type { ExternalHeartbeat } from '../../shared/pipeline/ports.ts';
import { SECRET_MAX_AGE_SECONDS, type SecretValues } from './secret-values.ts';

/**
 * How long a ping may take before it counts as failed. Heartbeat services answer a ping at once (Opsgenie processes
 * it asynchronously and answers "PONG", https://docs.opsgenie.com/docs/heartbeat-api; Healthchecks.io answers
 * "200 OK", https://healthchecks.io/docs/http_api/), and a ping must never hold a poll near its timeout.
 */
export const PING_TIMEOUT_MS = 5_000;

/** A ping that did not get through: the service is unreachable, slow, or answered with an error. */
export class HeartbeatPingError extends SentinelError {}

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
 * After a refused ping, the values are read again past the cache at most this often: a heartbeat deleted for good
 * would otherwise cost two reads a minute, and what the service refuses is most often not rotated at all.
 */
const REREAD_AFTER_REFUSAL_MS = SECRET_MAX_AGE_SECONDS * 1000;

export interface HttpHeartbeatOptions {
  readonly urlSecret: SecretReference;
  readonly authorizationSecret?: SecretReference;
  readonly secrets: SecretValues;
}

/** The URL and Authorization a ping is sent with. */
interface PingTarget {
  readonly url: string;
  readonly authorization: string | undefined;
}

/**
 * Pings a URL kept in Secrets Manager or Parameter Store with a GET, which Opsgenie's and Jira Service Management's
 * heartbeat pings and Healthchecks.io all accept. The URL and the Authorization header are secrets: errors name the
 * secret or parameter, never the URL, whose path or query often carries the token.
 */
export class HttpHeartbeat implements ExternalHeartbeat {
  #rereadAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: HttpHeartbeatOptions) {}

  async ping(): Promise<void> {
    const cached = await this.target(false);
    let status = await this.send(cached);
    if (REFUSED.has(status) && Date.now() >= this.#rereadAt) {
      // Refused with what the cache held: read both again past the cache, and ping once more if either changed.
      this.#rereadAt = Date.now() + REREAD_AFTER_REFUSAL_MS;
      const fresh = await this.target(true);
      if (fresh.url !== cached.url || fresh.authorization !== cached.authorization) status = await this.send(fresh);
    }
    if (status < 200 || status > 299) throw new HeartbeatPingError(`${this.where()} answered HTTP ${status}`);
  }

  /** The URL and Authorization, through the cache or (`fresh`) past it. */
  private async target(fresh: boolean): Promise<PingTarget> {
    const { urlSecret, authorizationSecret, secrets } = this.options;
    const read = (reference: SecretReference) => secrets.value(reference, fresh, HEARTBEAT_SECRET_MAX_AGE_SECONDS);
    return {
      url: await read(urlSecret),
      authorization: authorizationSecret ? await read(authorizationSecret) : undefined,
    };
  }

  /** One ping; its HTTP status. */
  private async send({ url, authorization }: PingTarget): Promise<number> {
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
