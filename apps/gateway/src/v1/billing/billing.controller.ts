import { Controller, Get, Inject, Query } from '@nestjs/common';
import {
  type BillingRecordDto,
  endpointBillingQuery,
  type EndpointBillingQuery,
  networkVolumeBillingQuery,
  type NetworkVolumeBillingQuery,
  type NetworkVolumeBillingRecordDto,
  podBillingQuery,
  type PodBillingQuery,
  type Principal,
} from '@runplane/contracts';
import type { BillingService } from '@runplane/billing';
import { Authenticated, CurrentPrincipal, Reads, ZodPipe } from '@runplane/http';
import { BILLING_SERVICE } from './billing.tokens';

/** RunPod v1 `/billing/*`: the caller's charges, bucketed and grouped as the query asks. */
@Controller('v1/billing')
@Authenticated()
export class BillingController {
  constructor(@Inject(BILLING_SERVICE) private readonly billing: BillingService) {}

  @Get('pods')
  @Reads()
  pods(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(podBillingQuery)) query: PodBillingQuery,
  ): Promise<BillingRecordDto[]> {
    return this.billing.pods(principal.accountId, query);
  }

  @Get('endpoints')
  @Reads()
  endpoints(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(endpointBillingQuery)) query: EndpointBillingQuery,
  ): Promise<BillingRecordDto[]> {
    return this.billing.endpoints(principal.accountId, query);
  }

  @Get('networkvolumes')
  @Reads()
  networkVolumes(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(networkVolumeBillingQuery)) query: NetworkVolumeBillingQuery,
  ): Promise<NetworkVolumeBillingRecordDto[]> {
    return this.billing.networkVolumes(principal.accountId, query);
  }
}
