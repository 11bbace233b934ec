// Child-process fixture for config.spec.ts: loadConfigOrExit must exit the process, which a test cannot do in-band.
import { httpEnv, loadConfigOrExit, z } from '../index';

const config = loadConfigOrExit(z.object(httpEnv(8080)));
process.stdout.write(JSON.stringify(config));
