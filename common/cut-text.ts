// A text cut for a person to read: its start, and how much was left out. Plain logic, usable in workflow code.

/** `text` cut to `max` characters, saying how many were left out; as it is when it fits. */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}... (${text.length - max} more characters)`;
}
