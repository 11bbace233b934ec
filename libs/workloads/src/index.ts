/** @deprecated Import SecretBox from @runplane/db, which seals secrets at rest. */
export { SecretBox } from '@runplane/db';
export { RegistryAuthRepository } from './registry-auth/registry-auth.repository';
export { RegistryAuthService, type RegistryCredentials } from './registry-auth/registry-auth.service';
export * from './templates';
export * from './network-volumes';
export * from './pods';
