import { buildPullSecret, DOCKER_HUB_KEY, registryOfImage } from './pull-secret';

function decode(data: string | undefined): unknown {
  return JSON.parse(Buffer.from(data ?? '', 'base64').toString('utf8'));
}

describe('registryOfImage', () => {
  it.each([
    ['busybox', DOCKER_HUB_KEY],
    ['runpod/pytorch:2.4.0', DOCKER_HUB_KEY],
    ['docker.io/library/redis', DOCKER_HUB_KEY],
    ['index.docker.io/a/b', DOCKER_HUB_KEY],
    ['ghcr.io/org/img:tag', 'ghcr.io'],
    ['registry.example.com:5000/team/img', 'registry.example.com:5000'],
    ['localhost/img', 'localhost'],
    ['myregistry:5000/img', 'myregistry:5000'],
  ])('%s -> %s', (image, registry) => {
    expect(registryOfImage(image)).toBe(registry);
  });
});

describe('buildPullSecret', () => {
  it('builds a dockerconfigjson Secret with username, password and auth for the image registry', () => {
    const secret = buildPullSecret({
      name: 'rp-auth-r1',
      namespace: 'ns',
      accountId: 'a1',
      registryAuthId: 'r1',
      username: 'bob',
      password: 's3cr:et',
      image: 'ghcr.io/bob/app:1',
    });
    expect(secret).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/dockerconfigjson',
      metadata: {
        name: 'rp-auth-r1',
        namespace: 'ns',
        labels: {
          'app.kubernetes.io/managed-by': 'runplane',
          'runplane.io/account-id': 'a1',
          'runplane.io/registry-auth-id': 'r1',
        },
      },
      data: { '.dockerconfigjson': expect.any(String) },
    });
    expect(decode(secret.data?.['.dockerconfigjson'])).toEqual({
      auths: {
        'ghcr.io': { username: 'bob', password: 's3cr:et', auth: Buffer.from('bob:s3cr:et').toString('base64') },
      },
    });
  });

  it('uses an explicit registry over the image and needs one of them', () => {
    const secret = buildPullSecret({
      name: 's',
      namespace: 'ns',
      accountId: 'a',
      registryAuthId: 'r',
      username: 'u',
      password: 'p',
      registry: 'quay.io',
      image: 'busybox',
    });
    expect(Object.keys((decode(secret.data?.['.dockerconfigjson']) as { auths: object }).auths)).toEqual(['quay.io']);
    expect(() =>
      buildPullSecret({
        name: 's',
        namespace: 'ns',
        accountId: 'a',
        registryAuthId: 'r',
        username: 'u',
        password: 'p',
      }),
    ).toThrow('registry');
  });
});
