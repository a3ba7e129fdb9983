// How a dev server is told which search attributes to register: kept free of I/O, since the agent's
// workflow code imports its attribute names from the module that uses this.
import { SearchAttributeType } from '@temporalio/common';

/** A search attribute of any type. */
export interface AnySearchAttributeKey {
  name: string;
  type: SearchAttributeType;
}

/** The CLI's name of each search attribute type. */
const CLI_TYPES: Record<SearchAttributeType, string> = {
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DOUBLE]: 'Double',
  [SearchAttributeType.BOOL]: 'Bool',
  [SearchAttributeType.DATETIME]: 'Datetime',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};

/** `temporal server start-dev` flags that register these search attributes when the server starts. */
export function searchAttributeFlags(keys: readonly AnySearchAttributeKey[]): string[] {
  return keys.flatMap((key) => ['--search-attribute', `${key.name}=${CLI_TYPES[key.type]}`]);
}
