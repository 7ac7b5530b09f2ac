import { didYouMean } from '../nearest-name.ts';

/** A Region's name, and whether an account must enable it before use (Regions launched after 20 March 2019). */
export interface AwsRegion {
  readonly name: string;
  readonly optIn: boolean;
}

/**
 * The AWS Regions a cluster or the ops stack may be in, as AWS lists them with their opt-in status
 * (https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html; opt-in Regions:
 * https://docs.aws.amazon.com/accounts/latest/reference/manage-acct-regions.html), with the AWS GovCloud (US) and
 * China Regions, which their own partitions' accounts use. Opt-in Regions are accepted like the others: the account
 * must have enabled them, which `cdk deploy` would tell. A Region launched after this table is one line here.
 */
export const AWS_REGIONS: Readonly<Record<string, AwsRegion>> = {
  'us-east-1': { name: 'US East (N. Virginia)', optIn: false },
  'us-east-2': { name: 'US East (Ohio)', optIn: false },
  'us-west-1': { name: 'US West (N. California)', optIn: false },
  'us-west-2': { name: 'US West (Oregon)', optIn: false },
  'af-south-1': { name: 'Africa (Cape Town)', optIn: true },
  'ap-east-1': { name: 'Asia Pacific (Hong Kong)', optIn: true },
  'ap-east-2': { name: 'Asia Pacific (Taipei)', optIn: true },
  'ap-south-1': { name: 'Asia Pacific (Mumbai)', optIn: false },
  'ap-south-2': { name: 'Asia Pacific (Hyderabad)', optIn: true },
  'ap-northeast-1': { name: 'Asia Pacific (Tokyo)', optIn: false },
  'ap-northeast-2': { name: 'Asia Pacific (Seoul)', optIn: false },
  'ap-northeast-3': { name: 'Asia Pacific (Osaka)', optIn: false },
  'ap-southeast-1': { name: 'Asia Pacific (Singapore)', optIn: false },
  'ap-southeast-2': { name: 'Asia Pacific (Sydney)', optIn: false },
  'ap-southeast-3': { name: 'Asia Pacific (Jakarta)', optIn: true },
  'ap-southeast-4': { name: 'Asia Pacific (Melbourne)', optIn: true },
  'ap-southeast-5': { name: 'Asia Pacific (Malaysia)', optIn: true },
  'ap-southeast-6': { name: 'Asia Pacific (New Zealand)', optIn: true },
  'ap-southeast-7': { name: 'Asia Pacific (Thailand)', optIn: true },
  'ca-central-1': { name: 'Canada (Central)', optIn: false },
  'ca-west-1': { name: 'Canada West (Calgary)', optIn: true },
  'eu-central-1': { name: 'Europe (Frankfurt)', optIn: false },
  'eu-central-2': { name: 'Europe (Zurich)', optIn: true },
  'eu-west-1': { name: 'Europe (Ireland)', optIn: false },
  'eu-west-2': { name: 'Europe (London)', optIn: false },
  'eu-west-3': { name: 'Europe (Paris)', optIn: false },
  'eu-south-1': { name: 'Europe (Milan)', optIn: true },
  'eu-south-2': { name: 'Europe (Spain)', optIn: true },
  'eu-north-1': { name: 'Europe (Stockholm)', optIn: false },
  'il-central-1': { name: 'Israel (Tel Aviv)', optIn: true },
  'me-south-1': { name: 'Middle East (Bahrain)', optIn: true },
  'me-central-1': { name: 'Middle East (UAE)', optIn: true },
  'mx-central-1': { name: 'Mexico (Central)', optIn: true },
  'sa-east-1': { name: 'South America (São Paulo)', optIn: false },
  'us-gov-east-1': { name: 'AWS GovCloud (US-East)', optIn: false },
  'us-gov-west-1': { name: 'AWS GovCloud (US-West)', optIn: false },
  'cn-north-1': { name: 'China (Beijing)', optIn: false },
  'cn-northwest-1': { name: 'China (Ningxia)', optIn: false },
};

/** What is wrong with a Region code: undefined for a Region of the table, else the error with the nearest one. */
export function regionProblem(region: string): string | undefined {
  if (Object.hasOwn(AWS_REGIONS, region)) return undefined;
  const near = didYouMean(region, Object.keys(AWS_REGIONS));
  return `not an AWS Region${near || ': expected a Region code like eu-west-1'}`;
}
