export { cleanupRedisPrefix, testRedisPrefix } from './redis';
export {
  getFreePort,
  getFreePorts,
  isPortOpen,
  isProcessAlive,
  type ProcessGroup,
  signalProcessGroup,
  spawnProcessGroup,
  stopProcessGroup,
} from './process';
