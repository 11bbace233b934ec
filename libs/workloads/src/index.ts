export { RegistryAuthRepository } from './registry-auth/registry-auth.repository';
export { RegistryAuthService, type RegistryCredentials } from './registry-auth/registry-auth.service';
export * from './templates';
export * from './network-volumes';
export * from './pods';
export { PodCountsRepository, type PodStatusCount } from './pods/pod-counts.repository';
