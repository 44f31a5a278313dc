/**
 * The API explorer at /docs: Swagger UI on /server/specs/oas, every file served by this server (no CDN).
 * The script is a file of its own rather than inline, so a Content-Security-Policy of `script-src 'self'`
 * would not break the page.
 */
export const EXPLORER_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>datagate API explorer</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/explorer.js"></script>
  </body>
</html>
`;

/**
 * The document lists only what its caller may do, so the explorer fetches it again, with the token it
 * was given, whenever it is authorized or logged out. No validator badge: it would call validator.swagger.io.
 */
export const EXPLORER_SCRIPT = `'use strict';
let explorer = null;
const refetchDocument = (action, system) => (...args) => {
  const result = action(...args);
  system.specActions.download();
  return result;
};
window.ui = SwaggerUIBundle({
  url: '/server/specs/oas',
  dom_id: '#swagger-ui',
  layout: 'BaseLayout',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  plugins: [
    (system) => {
      explorer = system;
      return { statePlugins: { auth: { wrapActions: { authorize: refetchDocument, logout: refetchDocument } } } };
    },
  ],
  requestInterceptor: (request) => {
    if (!request.loadSpec || !explorer) return request;
    const authorized = explorer.authSelectors.authorized();
    const bearer = authorized.getIn(['bearer', 'value']);
    const query = authorized.getIn(['access_token', 'value']);
    if (bearer) request.headers.Authorization = 'Bearer ' + bearer;
    else if (query) request.url += '?access_token=' + encodeURIComponent(query);
    return request;
  },
});
`;
