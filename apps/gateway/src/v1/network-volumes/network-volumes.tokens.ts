/** Injection token for the gateway's NetworkVolumesService (exported by NetworkVolumesModule for Pods and endpoints). */
export const NETWORK_VOLUMES_SERVICE = Symbol('NETWORK_VOLUMES_SERVICE');
