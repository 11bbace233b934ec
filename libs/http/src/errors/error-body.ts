import type { ErrorCode } from '@runplane/contracts';

/** Which API's error shape to write: v1 `{"message"}` (RunPod REST v1) or job API `{"error"}`. */
export type ErrorStyle = 'v1' | 'job';

/** The JSON body of an error response in the given API's shape. */
export function errorBody(
  style: ErrorStyle,
  message: string,
  code: ErrorCode,
  requestId: string,
): Record<string, string> {
  return style === 'v1' ? { message, code, requestId } : { error: message, code, requestId };
}
