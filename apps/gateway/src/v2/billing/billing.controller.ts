import { All, Get, Inject, Query } from '@nestjs/common';
import type { Principal } from '@runplane/contracts';
import { CurrentPrincipal, ProblemError, Reads, V2Controller, V2Query } from '../http';
import { BillingV2Service } from './billing-v2.service';
import {
  billingQuery,
  type BillingQuery,
  type ListBillingResponse,
  type ListEndpointBillingResponse,
  type ListNetworkVolumeBillingResponse,
  type ListPodBillingResponse,
  type ListServerlessBillingResponse,
  networkVolumeBillingQuery,
  type NetworkVolumeBillingQuery,
  podBillingQuery,
  type PodBillingQuery,
  serverlessBillingQuery,
  type ServerlessBillingQuery,
} from './billing.schemas';

/** RunPod v2 `/billing/*`: the account's charges in time buckets, per resource family or all together. */
@V2Controller('billing')
export class BillingV2Controller {
  constructor(@Inject(BillingV2Service) private readonly billing: BillingV2Service) {}

  @Get()
  @Reads()
  aggregate(
    @CurrentPrincipal() principal: Principal,
    @Query(new V2Query(billingQuery)) query: BillingQuery,
  ): Promise<ListBillingResponse> {
    return this.billing.aggregate(principal.accountId, query);
  }

  @Get('pods')
  @Reads()
  pods(
    @CurrentPrincipal() principal: Principal,
    @Query(new V2Query(podBillingQuery)) query: PodBillingQuery,
  ): Promise<ListPodBillingResponse> {
    return this.billing.pods(principal.accountId, query);
  }

  @Get('serverless')
  @Reads()
  serverless(
    @CurrentPrincipal() principal: Principal,
    @Query(new V2Query(serverlessBillingQuery)) query: ServerlessBillingQuery,
  ): Promise<ListServerlessBillingResponse> {
    return this.billing.serverless(principal.accountId, query);
  }

  @Get('network-volumes')
  @Reads()
  networkVolumes(
    @CurrentPrincipal() principal: Principal,
    @Query(new V2Query(networkVolumeBillingQuery)) query: NetworkVolumeBillingQuery,
  ): Promise<ListNetworkVolumeBillingResponse> {
    return this.billing.networkVolumes(principal.accountId, query);
  }

  /** Public endpoints (models other accounts publish) the account called; its own endpoints bill under /serverless. */
  @Get('endpoints')
  @Reads()
  endpoints(
    @CurrentPrincipal() principal: Principal,
    @Query(new V2Query(billingQuery)) query: BillingQuery,
  ): Promise<ListEndpointBillingResponse> {
    return this.billing.endpoints(principal.accountId, query);
  }

  /** Clusters are one of the families Runplane does not offer (as /v2/clusters answers). */
  @All('clusters')
  @Reads()
  clusters(): never {
    throw new ProblemError(
      501,
      'Runplane does not offer clusters (/v2/billing/clusters): Pods bill under /v2/billing/pods',
    );
  }
}
