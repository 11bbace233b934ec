export { FUZZ_SEED_ENV, fuzzSeed, Random, requestRandom } from './random';
export { type FuzzContext, type FuzzRequest, fuzzRequest, type FuzzRoute } from './requests';
export { type FuzzErrorField, type FuzzReport, isReadinessReport, runFuzz, type FuzzRunOptions, shapeProblem } from './run';
export { type FuzzAnswer, FuzzTransport } from './transport';
export { nestedJson } from './values';
export { fuzzRoutes, type OpenApiDocument, openApiFieldNames } from './routes';
