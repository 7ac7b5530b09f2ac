import middy from '@middy/core';
import { documentClient } from '../../aws/clients.ts';
import { DynamoDbTripwires } from '../../aws/dynamodb-tripwires.ts';
import { requiredEnv } from '../../aws/environment.ts';
import { loadBundledConfig } from '../bundled-config.ts';
import { validateEvent } from '../validate-event.ts';
import { type AlarmEvent, alarmEventSchema, recordTripwire } from './tripwire-event.ts';

// A function of its own, apart from the poller: when an ingestion delay flips every tripwire at once, their events
// must neither wait behind the poller's two reserved executions nor hold a poll back.
const { config } = loadBundledConfig(requiredEnv('SENTINEL_CONFIG_FILE'));
const tripwires = new DynamoDbTripwires(documentClient(), requiredEnv('SENTINEL_TABLE'));
const deployment = requiredEnv('SENTINEL_DEPLOYMENT');
const clusters = new Set(config.clusters.map((c) => c.name));

/** A tripwire alarm's state change arms or disarms minute-by-minute polling of its cluster. */
export const handler = middy<AlarmEvent, { cluster?: string; state: string }>()
  .use(validateEvent(alarmEventSchema))
  .handler((event) => recordTripwire({ tripwires, deployment, clusters }, event));
