export * from './errors';
export * from './api-keys';
export * from './principal';
export * from './registry-auth';
export * from './v1/common';
export * from './v1/pods';
export * from './v1/templates';
export * from './v1/network-volumes';
