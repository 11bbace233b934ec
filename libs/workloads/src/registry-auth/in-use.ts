/** Resources of one kind that still use something the caller wants to delete. */
export interface UsageGroup {
  /** Plural noun, e.g. "pods". */
  kind: string;
  /** Ids the caller may see. */
  ids: string[];
  /** Users the caller may not see (other accounts' resources): counted, never named. */
  hiddenCount?: number;
}

/** Pods in this state no longer hold anything: their rows stay only as history. */
export const FINISHED_POD_STATUS = 'TERMINATED' as const;

const SHOWN_IDS = 10;

function describeGroup(group: UsageGroup): string | null {
  const parts: string[] = [];
  if (group.ids.length > 0) {
    const shown = group.ids.slice(0, SHOWN_IDS).join(', ');
    const more = group.ids.length > SHOWN_IDS ? ` and ${group.ids.length - SHOWN_IDS} more` : '';
    parts.push(`${group.kind} ${shown}${more}`);
  }
  if (group.hiddenCount) parts.push(`${group.hiddenCount} ${group.kind} of other accounts`);
  return parts.length > 0 ? parts.join(' and ') : null;
}

/**
 * "<Resource> is in use by pods a, b and endpoints c; ..." when any group has users, else null, so a
 * refused delete always says what to remove first.
 */
export function inUseMessage(resource: string, groups: UsageGroup[]): string | null {
  const described = groups.map(describeGroup).filter((text): text is string => text !== null);
  if (described.length === 0) return null;
  return `${resource} is in use by ${described.join('; ')}; delete or change them first`;
}
