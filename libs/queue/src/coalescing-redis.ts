import { Redis } from 'ioredis';

type SendArguments = Parameters<Redis['sendCommand']>;

/**
 * An ioredis client that writes the commands issued in one event-loop turn with one socket write, without waiting
 * for replies: the socket is corked at a turn's first command and uncorked at the turn's immediates (Node then
 * writes what it holds at once). ioredis's auto-pipelining also writes a turn's commands at once, but sends a
 * connection's next batch only after the one before it has been answered, so Node and Redis take turns instead of
 * working at once. Here a batch goes out whether or not earlier ones were answered, and the order of commands on the
 * connection is kept (one socket, written in order).
 */
export class CoalescingRedis extends Redis {
  override sendCommand(...[command, stream]: SendArguments): unknown {
    // Only a command bound for the live connection: one sent on a given stream (the handshake) or queued offline
    // is written as ioredis decides.
    if (stream === undefined && this.status === 'ready') this.corkTurn();
    return super.sendCommand(command, stream);
  }

  private corkTurn(): void {
    const socket = this.stream;
    // A corked socket already has this turn's uncork scheduled (nothing else corks it).
    if (socket === undefined || !socket.writable || socket.writableCorked > 0) return;
    socket.cork();
    setImmediate(() => socket.uncork());
  }
}
