import type { z } from 'zod';
import { json, named, type V2Route } from '../openapi/route';
import {
  billingQuery,
  listBillingSchema,
  listEndpointBillingSchema,
  listNetworkVolumeBillingSchema,
  listPodBillingSchema,
  listServerlessBillingSchema,
  networkVolumeBillingQuery,
  podBillingQuery,
  serverlessBillingQuery,
} from './billing.schemas';

interface Read {
  path: string;
  operationId: string;
  summary: string;
  query: z.ZodObject;
  response: [string, z.ZodType];
}

const read = ({ response: [name, schema], ...fields }: Read): V2Route => ({
  method: 'GET',
  tag: 'Billing',
  status: 200,
  ...fields,
  response: json(named(name, schema)),
});

/** `/v2/billing/*` as the OpenAPI document lists it (`/v2/billing/clusters` answers 501). */
export const billingRoutes: V2Route[] = [
  read({
    path: '/v2/billing',
    operationId: 'listBilling',
    summary: 'Aggregated billing history: every resource family per bucket',
    query: billingQuery,
    response: ['ListBillingResponse', listBillingSchema],
  }),
  read({
    path: '/v2/billing/pods',
    operationId: 'listPodBilling',
    summary: 'Pod billing history, per Pod and bucket',
    query: podBillingQuery,
    response: ['ListPodBillingResponse', listPodBillingSchema],
  }),
  read({
    path: '/v2/billing/serverless',
    operationId: 'listServerlessBilling',
    summary: 'Serverless endpoint billing history, per endpoint and bucket',
    query: serverlessBillingQuery,
    response: ['ListServerlessBillingResponse', listServerlessBillingSchema],
  }),
  read({
    path: '/v2/billing/endpoints',
    operationId: 'listEndpointBilling',
    summary: "Public endpoint billing history: the account's jobs on models other accounts publish, per bucket",
    query: billingQuery,
    response: ['ListEndpointBillingResponse', listEndpointBillingSchema],
  }),
  read({
    path: '/v2/billing/network-volumes',
    operationId: 'listNetworkVolumeBilling',
    summary: 'Network volume billing history, per volume and bucket',
    query: networkVolumeBillingQuery,
    response: ['ListNetworkVolumeBillingResponse', listNetworkVolumeBillingSchema],
  }),
];
