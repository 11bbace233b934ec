import type { ScalingSettings, ScalingWorker } from '../autoscaler';

/** Scaling settings for specs: 0..5 workers, 5 s idle timeout, the given scaler and `extra` on top. */
export function scalingSettings(
  scaler: Pick<ScalingSettings, 'scalerType' | 'scalerValue'>,
  extra: Partial<ScalingSettings> = {},
): ScalingSettings {
  return { ...scaler, workersMin: 0, workersMax: 5, idleTimeout: 5, ...extra };
}

/** A ready, idle-since-now worker named `id`, with `extra` on top. */
export function scalingWorker(id: string, extra: Partial<ScalingWorker> = {}): ScalingWorker {
  return { id, initializing: false, busy: false, idleForMs: 0, ...extra };
}
