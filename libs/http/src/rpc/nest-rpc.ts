/**
 * Nest's microservice transports (the placement RPC between the gateway and the scheduler runs on its Redis
 * transport), owned by this lib as the other way a Nest app of Runplane is called; apps use them through here.
 */
export { type ClientProxy, ClientProxyFactory, MessagePattern, Payload, Transport } from '@nestjs/microservices';
