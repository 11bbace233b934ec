export { startEngine, type EngineOptions, type RunningEngine } from './engine-process';
export { filterBucketList, S3Proxy, type S3ProxyOptions } from './s3-proxy';
export type { S3Directory, S3Volume } from './s3-access';
export { engineBinaryPath, ENGINE_VERSION } from './engine-binary';
