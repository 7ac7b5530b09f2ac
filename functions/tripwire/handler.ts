import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { EventBridgeEnvelope } from '@aws-lambda-powertools/parser/envelopes/eventbridge';
import { parser } from '@aws-lambda-powertools/parser/middleware';
import middy from '@middy/core';
import { documentClient } from '../../aws/clients.ts';
import { DynamoDbTripwireRecorder } from '../../aws/dynamodb/tripwire-recorder.ts';
import { requiredEnv } from '../../aws/environment.ts';
import { displayNameOf } from '../../shared/config/cluster-identity.ts';
import { loadBundledConfig } from '../bundled-config.ts';
import { explainInvalidEvent } from '../invalid-event.ts';
import { logger } from '../powertools.ts';
import {
  type AlarmStateChange,
  alarmStateChangeSchema,
  recordTripwire,
  type TripwireOutcome,
} from './tripwire-event.ts';

// A function of its own, apart from the poller: when an ingestion delay flips every tripwire at once, their events
// must neither wait behind the poller's two reserved executions nor hold a poll back.
const { config } = loadBundledConfig(requiredEnv('SENTINEL_CONFIG_FILE'));
const tripwires = new DynamoDbTripwireRecorder(documentClient(), requiredEnv('SENTINEL_TABLE'));
const deployment = requiredEnv('SENTINEL_DEPLOYMENT');
const clusters = new Set(config.clusters.map(displayNameOf));

/**
 * A tripwire alarm's state change arms or disarms minute-by-minute polling of its cluster. It records no metric; it logs
 * only a change that a newer one had already superseded.
 */
export const handler = middy<AlarmStateChange, TripwireOutcome>()
  .use(injectLambdaContext(logger))
  .use(explainInvalidEvent())
  .use(parser({ schema: alarmStateChangeSchema, envelope: EventBridgeEnvelope }))
  .handler((change) => recordTripwire({ tripwires, deployment, clusters, now: Date.now, logger }, change));
