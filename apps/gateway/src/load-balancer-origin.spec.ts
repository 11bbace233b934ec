import { gatewayEnvSchema, loadBalancerOrigin } from './config';

const parse = (env: Record<string, string>) =>
  gatewayEnvSchema.parse({ DATABASE_URL: 'postgres://localhost/db', RUNPLANE_ENCRYPTION_KEY: 'a'.repeat(64), ...env });

describe('the origin of load-balancing endpoints (gateway requestUrls)', () => {
  it('is https://<id>.RUNPLANE_LB_DOMAIN when the domain is set', () => {
    expect(loadBalancerOrigin(parse({ RUNPLANE_LB_DOMAIN: 'LB.Example.com' }))).toEqual({
      scheme: 'https',
      domain: 'lb.example.com',
    });
    expect(loadBalancerOrigin(parse({ RUNPLANE_LB_DOMAIN: 'lb.test', RUNPLANE_LB_SCHEME: 'http' }))).toEqual({
      scheme: 'http',
      domain: 'lb.test',
    });
  });

  it("defaults to the job API's host, scheme and port (localhost for an IP address)", () => {
    expect(loadBalancerOrigin(parse({ PUBLIC_JOB_API_URL: 'https://api.example.com' }))).toEqual({
      scheme: 'https',
      domain: 'api.example.com',
    });
    expect(loadBalancerOrigin(parse({}))).toEqual({ scheme: 'http', domain: 'localhost:8081' });
  });

  it('refuses a domain that is no DNS name', () => {
    expect(
      gatewayEnvSchema.safeParse({ DATABASE_URL: 'postgres://x/db', RUNPLANE_LB_DOMAIN: 'https://lb' }).success,
    ).toBe(false);
  });
});
