import { runInNewContext } from 'node:vm';
import { warnOfError } from './warnings';

describe('warnOfError', () => {
  let emitWarning: jest.SpyInstance;
  beforeEach(() => {
    emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  });
  afterEach(() => emitWarning.mockRestore());

  it('reports an error as a process warning with its name, message and stack', () => {
    const error = new TypeError('connection refused');
    warnOfError(error);
    expect(emitWarning).toHaveBeenCalledWith('connection refused', { type: 'TypeError', detail: error.stack });
  });

  it('reports an error made in another realm as text, which process.emitWarning accepts', () => {
    emitWarning.mockRestore();
    const foreign = runInNewContext('new Error("Connection is closed.")') as Error;
    // Node refuses an Error of another realm as the warning itself...
    expect(() => process.emitWarning(foreign)).toThrow(/"warning" argument/);
    // ...but not its text.
    emitWarning = jest.spyOn(process, 'emitWarning');
    expect(() => warnOfError(foreign)).not.toThrow();
    expect(emitWarning).toHaveBeenCalledWith('Connection is closed.', { type: 'Error', detail: foreign.stack });
  });
});
