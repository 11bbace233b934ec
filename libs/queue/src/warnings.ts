/**
 * The default report of a background failure nobody else handles: a process warning naming the error, its message
 * and its stack. Passed as text, so an error made in another realm (a VM context, a worker) is reported rather than
 * refused by `process.emitWarning`'s Error check.
 */
export function warnOfError(error: Error): void {
  process.emitWarning(error.message, { type: error.name || 'Error', detail: error.stack });
}
