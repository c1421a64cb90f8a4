// Preloaded into the Prism process by test/http/openapi-prism.test.ts (node -r), to let Prism judge
// two kinds of answer as they are sent:
// - a 302: Prism's forwarder fetches upstream with node-fetch, which follows redirects by default,
//   so a 302 would reach Prism as the page it points at; with redirect 'manual' the 302 itself,
//   with its Location, is what Prism checks against /openapi.json and hands back;
// - a HEAD answer: Prism parses any application/json answer with response.json(), which throws on
//   HEAD's empty body (Prism then answers 500); the empty body is read as the empty text it is.
const Module = require('node:module');

const load = Module._load;
let wrapped;
Module._load = function (request, ...rest) {
  const m = load.call(this, request, ...rest);
  if (request !== 'node-fetch') return m;
  if (!wrapped) {
    const fetch = async (url, opts = {}) => {
      const res = await m(url, { ...opts, redirect: 'manual' });
      if (String(opts.method).toUpperCase() === 'HEAD') res.json = () => res.text();
      return res;
    };
    wrapped = Object.assign(fetch, m, { default: fetch });
  }
  return wrapped;
};
