import {
  billingRecordDto,
  endpointBillingQuery,
  networkVolumeBillingQuery,
  networkVolumeBillingRecordDto,
  podBillingQuery,
} from '@runplane/contracts';
import { json, named, type V1Route } from '../route';

const record = named('BillingRecord', billingRecordDto);
const tag = 'billing';

/** `/billing/*`: charges in time buckets, grouped by the chosen key. */
export const billingRoutes: V1Route[] = [
  {
    method: 'GET',
    path: '/billing/pods',
    operationId: 'PodBilling',
    summary: 'Pod charges per bucket, grouped by GPU type or Pod',
    tag,
    status: 200,
    query: podBillingQuery,
    response: json(record, true),
  },
  {
    method: 'GET',
    path: '/billing/endpoints',
    operationId: 'EndpointBilling',
    summary: 'Serverless charges per bucket, grouped by endpoint, Pod or GPU type',
    tag,
    status: 200,
    query: endpointBillingQuery,
    response: json(record, true),
  },
  {
    method: 'GET',
    path: '/billing/networkvolumes',
    operationId: 'NetworkVolumeBilling',
    summary: 'Network volume storage charges per bucket',
    tag,
    status: 200,
    query: networkVolumeBillingQuery,
    response: json(named('NetworkVolumeBillingRecord', networkVolumeBillingRecordDto), true),
  },
];
