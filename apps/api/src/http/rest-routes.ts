/**
 * REST aliases of the spec's methods, compiled from the path templates in the spec catalog
 * (`GET /v1/catalog/{name=services/*}`), so a route is declared once, exactly as the spec writes it.
 * A matched route becomes an ordinary method call: path variables, query parameters and the JSON body
 * are merged into one request and go through the same validation and handler as the RPC form.
 */
import type { SpecMethod } from '@svc/contracts/catalog';

export interface RestRoute {
  verb: string;
  template: string;
  service: string;
  method: string;
  pattern: RegExp;
  /** Request field paths bound by the path's variables, in order (`name`, `service.name`). */
  bindings: string[];
}

export interface RestMatch {
  route: RestRoute;
  /** Request field path to value, from the path. */
  params: Record<string, string>;
}

// `{var}` or `{var=pattern}`; the pattern's `*` is one segment, `**` any number of segments.
const VARIABLE = /\{([a-zA-Z_][a-zA-Z0-9_.]*)(?:=([^}]+))?\}/g;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function compileRoute(spec: Pick<SpecMethod, 'service' | 'method'>, rest: string): RestRoute {
  const space = rest.indexOf(' ');
  const verb = rest.slice(0, space).toUpperCase();
  const template = rest.slice(space + 1);
  const bindings: string[] = [];
  let source = '';
  let last = 0;
  for (const m of template.matchAll(VARIABLE)) {
    source += escape(template.slice(last, m.index));
    bindings.push(m[1]);
    // A segment never holds `/`, nor `:`, which starts a custom action (`services/x:accept`).
    const inner = (m[2] ?? '*')
      .split('/')
      .map((part) => (part === '**' ? '[^:]+' : part === '*' ? '[^/:]+' : escape(part)))
      .join('/');
    source += `(${inner})`;
    last = m.index + m[0].length;
  }
  source += escape(template.slice(last));
  return { verb, template, service: spec.service, method: spec.method, pattern: new RegExp(`^${source}$`), bindings };
}

/**
 * Matches a path to its route with one map lookup and a few patterns: routes are grouped by their
 * head (the path's first two segments, `v1/catalog`) where the template spells it out, so a request
 * tries only its head's routes and the few whose head is a variable, not all of them.
 */
export class RestRouter {
  /** Per head, the routes a path with that head may match (the head's and the open ones), in catalog order. */
  private readonly byHead = new Map<string, RestRoute[]>();
  /** Routes whose head is not literal (`/v1/{name=**}:watch`): the only candidates of any other head. */
  private readonly open: RestRoute[];

  constructor(methods: readonly SpecMethod[]) {
    const routes = methods.flatMap((m) => (m.rest ?? []).map((rest) => compileRoute(m, rest)));
    const heads = routes.map((route) => literalHead(route.template));
    this.open = routes.filter((_, i) => heads[i] === undefined);
    for (const head of new Set(heads)) {
      if (head !== undefined) this.byHead.set(head, routes.filter((_, i) => heads[i] === head || heads[i] === undefined));
    }
  }

  match(verb: string, path: string): RestMatch | undefined {
    const decoded = decodePath(path);
    if (decoded === undefined) return undefined;
    for (const route of this.candidates(decoded)) {
      if (route.verb !== verb) continue;
      const m = route.pattern.exec(decoded);
      if (m) return { route, params: Object.fromEntries(route.bindings.map((b, i) => [b, m[i + 1]])) };
    }
    return undefined;
  }

  /** Whether any route has this path under another verb (405 rather than 404). */
  hasPath(path: string): boolean {
    // Judged on the decoded path, as `match` is: `a%2Fb` is two segments, not one.
    const decoded = decodePath(path);
    return decoded !== undefined && this.candidates(decoded).some((route) => route.pattern.test(decoded));
  }

  private candidates(decoded: string): readonly RestRoute[] {
    const [, first, second] = decoded.split('/', 3);
    return (second !== undefined && this.byHead.get(`${first}/${second}`)) || this.open;
  }
}

/**
 * `v1/catalog` for `/v1/catalog/{name=services/*}` and `v1/indicators` for `/v1/{name=indicators/*}`
 * (a variable's pattern counts as written); undefined when either segment may vary.
 */
function literalHead(template: string): string | undefined {
  const written = template.replace(VARIABLE, (_, _name: string, pattern?: string) => pattern ?? '*');
  const [, first, second] = written.split('/', 3);
  if (first === undefined || second === undefined || /[*{]/.test(first) || /[*{]/.test(second)) return undefined;
  return `${first}/${second}`;
}

/** The path with its escapes decoded, or undefined when an escape is malformed. */
function decodePath(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

/**
 * One request object from a REST call: the body (an object), then query parameters, then path
 * variables, which win. A variable bound to `resource.name` puts the body under `resource`
 * (AIP-134: the body of an update is the resource).
 */
export function restRequest(match: RestMatch, query: Record<string, unknown>, body: unknown): Record<string, unknown> {
  const request: Record<string, unknown> = {};
  const nested = match.route.bindings.find((b) => b.includes('.'));
  const payload = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  if (nested) request[nested.split('.')[0]] = { ...payload };
  else Object.assign(request, payload);
  for (const [key, value] of Object.entries(query)) request[key] = value;
  for (const [path, value] of Object.entries(match.params)) {
    const [head, ...rest] = path.split('.');
    if (rest.length === 0) request[head] = value;
    else request[head] = { ...(request[head] as object), [rest.join('.')]: value };
  }
  return request;
}
