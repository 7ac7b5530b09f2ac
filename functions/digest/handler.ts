import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { parser } from '@aws-lambda-powertools/parser/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { documentClient, snsClient } from '../../aws/clients.ts';
import { dynamoDbActivityReader } from '../../aws/dynamodb/activity-reader.ts';
import { requiredEnv } from '../../aws/environment.ts';
import { SnsDigestPublisher } from '../../aws/sns/digest-publisher.ts';
import { deploymentDigestInput } from '../../shared/digest/digest-of-week.ts';
import { loadBundledConfig } from '../bundled-config.ts';
import { explainInvalidEvent } from '../invalid-event.ts';
import { logger } from '../powertools.ts';
import { type DigestEvent, type DigestSummary, digestEventSchema, digestOnSchedule } from './digest-on-schedule.ts';

// Built once per cold start and reused by every invocation of this container.
const deployed = loadBundledConfig(requiredEnv('SENTINEL_CONFIG_FILE'));
// Reads only: the digest reports on the past and is given nothing that writes.
const activityLog = dynamoDbActivityReader({
  client: documentClient(),
  table: requiredEnv('SENTINEL_TABLE'),
  now: Date.now,
});
const publisher = new SnsDigestPublisher(snsClient(), requiredEnv('SENTINEL_DIGEST_TOPIC_ARN'));
const digestInput = deploymentDigestInput(activityLog, deployed, requiredEnv('SENTINEL_DEPLOYMENT'));

// No metrics middleware: the digest records no metric.
export const handler = middy<DigestEvent, DigestSummary, Error, Context>()
  .use(injectLambdaContext(logger))
  .use(explainInvalidEvent())
  .use(parser({ schema: digestEventSchema }))
  .handler((event) => digestOnSchedule({ ...digestInput, publisher, logger, now: Date.now }, event));
