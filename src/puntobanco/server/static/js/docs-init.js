// The API docs page (/docs): Swagger UI from the server's own copy, reading /openapi.json.
/* global SwaggerUIBundle */
window.ui = SwaggerUIBundle({
  url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis], layout: "BaseLayout",
});
