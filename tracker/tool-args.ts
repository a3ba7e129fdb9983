// What is made from the tracker's tool specs (tool-specs.ts, the one description of each tool's
// arguments): the zod schema the MCP server registers and the tools check a model's arguments with,
// and the JSON Schema of the tracker's routes.
import { z } from 'zod';
import { TRACKER_TOOL_SPECS, type ArgSchema, type TrackerToolSpec } from './tool-specs';

/** The spec of one of the tracker's tools, by name. */
export function trackerToolSpec(name: TrackerToolSpec['name']): TrackerToolSpec {
  return TRACKER_TOOL_SPECS.find((t) => t.name === name)!;
}

function zodOf(arg: ArgSchema): z.ZodTypeAny {
  switch (arg.type) {
    case 'string': {
      const s = z.string().max(arg.maxLength);
      return arg.minLength ? s.min(arg.minLength) : s;
    }
    case 'integer':
      return arg.minimum !== undefined ? z.number().int().min(arg.minimum) : z.number().int();
    case 'array':
      return z.array(zodOf(arg.items)).max(arg.maxItems);
  }
}

/** A tool's arguments as a zod shape (what `McpServer.registerTool` takes), each optional unless required. */
export function argsShape(spec: TrackerToolSpec): Record<string, z.ZodTypeAny> {
  const { properties, required } = spec.parameters;
  return Object.fromEntries(
    Object.entries(properties).map(([name, arg]) => {
      const schema = zodOf(arg);
      return [name, required.includes(name) ? schema : schema.optional()];
    }),
  );
}

/**
 * A tool's arguments checked against its spec: what a model sent, or why it is refused (`argument
 * title: ...`), naming the first argument that is wrong. Arguments the spec does not name pass through
 * (the tools read only theirs).
 */
export function checkArgs(
  spec: TrackerToolSpec,
  args: Record<string, unknown>,
): { ok: true } | { ok: false; why: string } {
  const parsed = z.object(argsShape(spec)).passthrough().safeParse(args);
  if (parsed.success) return { ok: true };
  const issue = parsed.error.issues[0]!;
  return { ok: false, why: `argument ${issue.path.join('.') || '(all)'}: ${issue.message}` };
}

/**
 * A route's JSON Schema for the body a tool sends: the tool's own arguments, less `omit` (what the
 * route takes in its path), with `room` more characters for the strings it names (the trace line a
 * call writes into what it creates).
 */
export function routeBodySchema(
  spec: TrackerToolSpec,
  { omit = [], room = {} }: { omit?: readonly string[]; room?: Readonly<Record<string, number>> } = {},
) {
  const { properties, required } = spec.parameters;
  const kept = Object.entries(properties).filter(([name]) => !omit.includes(name));
  return {
    type: 'object' as const,
    required: required.filter((name) => !omit.includes(name)),
    properties: Object.fromEntries(
      kept.map(([name, arg]) => [
        name,
        arg.type === 'string' && room[name] ? { ...arg, maxLength: arg.maxLength + room[name] } : arg,
      ]),
    ),
  };
}
