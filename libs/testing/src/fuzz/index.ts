export { FUZZ_SEED_ENV, fuzzSeed, Random, requestRandom } from './random';
export { type FuzzContext, type FuzzRequest, fuzzRequest, type FuzzRoute } from './requests';
export {
  type FuzzErrorField,
  type FuzzReport,
  GIVE_UP_AFTER_NO_ANSWERS,
  isReadinessReport,
  runFuzz,
  type FuzzRunOptions,
  shapeProblem,
} from './run';
export { type FuzzAnswer, FuzzTransport } from './transport';
export { nestedJson } from './values';
export { fuzzRoutes, type OpenApiDocument, openApiFieldNames } from './routes';
