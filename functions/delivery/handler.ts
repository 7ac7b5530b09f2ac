import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { documentClient } from '../../aws/clients.ts';
import { DynamoDbDeliveryLedger } from '../../aws/dynamodb/delivery-ledger.ts';
import { requiredEnv } from '../../aws/environment.ts';
import { channelFor } from '../../aws/vendors/channels.ts';
import { secretValues } from '../../aws/vendors/secret-values.ts';
import { pagingIntegrations } from '../../shared/delivery/paging-integrations.ts';
import { loadBundledConfig } from '../bundled-config.ts';
import { logger } from '../powertools.ts';
import { deliverBatch } from './deliver-batch.ts';

// Built once per cold start. The vendor keys are not: they are read per call, through a five-minute cache.
const { config } = loadBundledConfig(requiredEnv('SENTINEL_CONFIG_FILE'));
const integrations = pagingIntegrations(config);
const ledger = new DynamoDbDeliveryLedger(documentClient(), requiredEnv('SENTINEL_TABLE'));
const secrets = secretValues();
// Unset in a deployed stack; set, they send to a proxy or, in the wire tests, to loopback fakes.
const endpoints = {
  ...(process.env.SENTINEL_PAGERDUTY_ENDPOINT && { pagerduty: process.env.SENTINEL_PAGERDUTY_ENDPOINT }),
  ...(process.env.SENTINEL_OPSGENIE_ENDPOINT && { opsgenie: process.env.SENTINEL_OPSGENIE_ENDPOINT }),
  ...(process.env.SENTINEL_JSM_ENDPOINT && { jsm: process.env.SENTINEL_JSM_ENDPOINT }),
};

/** Delivery claims outlast one run (60 s timeout) and end well before SQS shows the message again (6 minutes). */
const LEASE_MS = 90_000;

export const handler = middy<SQSEvent, SQSBatchResponse>()
  .use(injectLambdaContext(logger))
  .handler((event) =>
    deliverBatch(
      {
        integrations,
        channelFor: (integration) => channelFor(integration, { secrets, endpoints }),
        ledger,
        now: Date.now,
        leaseMs: LEASE_MS,
        logger,
      },
      event.Records,
    ),
  );
