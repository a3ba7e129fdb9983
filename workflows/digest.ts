// The digest of a call's tool and arguments: what a person approves, so an approval binds to them.
import { canonicalJson } from '../common/canonical-json';
import { sha256Hex } from '../common/sha256';

/**
 * The digest of one call, as an approval request shows it and an approval may name it: the first 16
 * hex digits (64 bits) of the SHA-256 of the tool's name and its arguments, `sha256:` before them.
 */
export function callDigest(tool: string, args: unknown): string {
  return `sha256:${sha256Hex(canonicalJson({ tool, args })).slice(0, 16)}`;
}
