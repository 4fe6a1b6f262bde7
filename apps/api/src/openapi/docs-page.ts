/**
 * GET /docs: a self-contained page listing /openapi.json's operations (no external script, so it
 * works without network access; any OpenAPI viewer can load /openapi.json for more). Text is set
 * through textContent only, so nothing in the document is interpreted as HTML.
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>svc API</title>
<style>
  body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 70rem; padding: 0 1rem; color: #222; }
  h2 { border-bottom: 1px solid #ddd; margin-top: 2rem; }
  details { margin: .3rem 0; border: 1px solid #e4e4e4; border-radius: 4px; padding: .3rem .6rem; }
  summary { cursor: pointer; }
  code.verb { display: inline-block; min-width: 4.5rem; font-weight: bold; }
  pre { background: #f6f6f6; padding: .5rem; overflow: auto; white-space: pre-wrap; }
  .muted { color: #777; }
</style>
</head>
<body>
<h1 id="title">svc API</h1>
<p>Generated from the running api's declarations: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
<input id="search" type="search" placeholder="Filter by method or path" style="width: 100%; padding: .4rem">
<div id="root" class="muted">Loading...</div>
<script>
(async () => {
  const doc = await (await fetch('/openapi.json')).json();
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
  document.getElementById('title').textContent = doc.info.title + ' ' + doc.info.version;
  const byTag = new Map();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [verb, op] of Object.entries(item)) {
      const tag = (op.tags || ['other'])[0];
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push({ path, verb, op });
    }
  }
  const root = document.getElementById('root');
  root.textContent = ''; root.className = '';
  const rows = [];
  for (const [tag, ops] of byTag) {
    const section = el('section');
    section.append(el('h2', tag));
    for (const { path, verb, op } of ops) {
      const d = el('details');
      const s = el('summary');
      s.append(el('code', verb.toUpperCase(), 'verb'), el('code', path), el('span', '  ' + (op['x-method'] || ''), 'muted'));
      d.append(s, el('p', op.description || ''));
      const body = op.requestBody && op.requestBody.content['application/json'].schema;
      const show = (label, value) => { d.append(el('strong', label)); d.append(el('pre', JSON.stringify(value, null, 2))); };
      if (op.parameters && op.parameters.length) show('Parameters', op.parameters);
      if (body) show('Request', resolve(body));
      // JSON, or an event stream (Subscribe, the watches).
      const [type, media] = Object.entries(op.responses['200'].content)[0];
      show('Response 200 (' + type + ')', resolve(media.schema));
      section.append(d);
      rows.push({ d, text: (verb + ' ' + path + ' ' + (op['x-method'] || '')).toLowerCase() });
    }
    root.append(section);
  }
  // One level of $ref resolution keeps the page small; the JSON document has the rest.
  function resolve(schema) {
    if (schema && schema.$ref) return Object.assign({ $ref: schema.$ref }, doc.components.schemas[schema.$ref.split('/').pop()]);
    return schema;
  }
  document.getElementById('search').addEventListener('input', (e) => {
    const q = e.target.value.toLowerCase();
    for (const r of rows) r.d.style.display = r.text.includes(q) ? '' : 'none';
  });
})().catch((error) => { document.getElementById('root').textContent = 'Could not load /openapi.json: ' + error; });
</script>
</body>
</html>
`;
