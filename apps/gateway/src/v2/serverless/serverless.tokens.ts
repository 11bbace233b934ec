/** v1's EndpointsService, as the v2 serverless routes use it. */
export { ENDPOINTS_SERVICE as V1_ENDPOINTS } from '../../v1/endpoints/endpoints.tokens';
/** The endpoint releases repository. */
export const ENDPOINT_RELEASES = Symbol('ENDPOINT_RELEASES');
/** Public base URL of the job API, for requestUrls. */
export const JOB_API_URL = Symbol('JOB_API_URL');
