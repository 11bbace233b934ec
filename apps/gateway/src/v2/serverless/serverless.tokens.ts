/** v1's EndpointsService, as the v2 serverless routes use it. */
export { ENDPOINTS_SERVICE as V1_ENDPOINTS } from '../../v1/endpoints/endpoints.tokens';
/** The endpoint releases repository. */
export const ENDPOINT_RELEASES = Symbol('ENDPOINT_RELEASES');
/** Public URLs of the job API and of load-balancing endpoints, for requestUrls. */
export const REQUEST_URL_BASES = Symbol('REQUEST_URL_BASES');
