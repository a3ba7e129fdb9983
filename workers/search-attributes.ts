// Checks that a namespace has the agent's search attributes, adding them if it may.
import { temporal } from '@temporalio/proto';
import { AGENT_SEARCH_ATTRIBUTES } from '../common/search-attributes';

type OperatorService = temporal.api.operatorservice.v1.OperatorService;
const KEYWORD_LIST = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST;

/** Thrown when the agent's search attributes are missing and cannot be added (no permission, a wrong type). */
export class SearchAttributesError extends Error {
  constructor(namespace: string, why: string) {
    const names = AGENT_SEARCH_ATTRIBUTES.map((k) => k.name).join(', ');
    super(
      `the search attributes ${names} (keyword lists) are not usable on namespace ${namespace}: ${why}. ` +
        `Register them: temporal operator search-attribute create --namespace ${namespace} ` +
        AGENT_SEARCH_ATTRIBUTES.map((k) => `--name ${k.name} --type KeywordList`).join(' '),
    );
    this.name = 'SearchAttributesError';
  }
}

/**
 * Makes sure the namespace has the agent's search attributes, adding the missing ones. A run upserts
 * them whenever it starts or stops waiting for a person; on a namespace without them its workflow
 * task would fail, again and again, so a worker checks before it takes any task.
 */
export async function ensureSearchAttributes(operatorService: OperatorService, namespace: string): Promise<string[]> {
  const { customAttributes } = await operatorService.listSearchAttributes({ namespace });
  const have = customAttributes ?? {};
  const wrong = AGENT_SEARCH_ATTRIBUTES.filter((k) => k.name in have && have[k.name] !== KEYWORD_LIST);
  if (wrong.length > 0)
    throw new SearchAttributesError(
      namespace,
      `${wrong.map((k) => k.name).join(', ')} ${wrong.length > 1 ? 'exist' : 'exists'} with another type`,
    );
  const missing = AGENT_SEARCH_ATTRIBUTES.filter((k) => !(k.name in have));
  if (missing.length === 0) return [];
  try {
    await operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((k) => [k.name, KEYWORD_LIST])),
    });
  } catch (err) {
    throw new SearchAttributesError(namespace, (err as Error).message);
  }
  return missing.map((k) => k.name);
}
