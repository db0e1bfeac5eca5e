// Public surface of src/server: the HTTP API the controller-manager starts.
export type { RequestHeaderConfig, UserInfo } from './credentials.ts';
export { DEFAULT_REQUEST_HEADERS, parseRequestHeaderConfigMap } from './credentials.ts';
export { type ApiMetrics, newApiMetrics } from './metrics.ts';
export { AUTH_CONFIGMAP, loadRequestHeaderConfig, readRequestHeaderConfigMap } from './requestheader.ts';
export { API_GROUP, API_VERSION, GROUP_VERSION } from './routes.ts';
export { type ApiServer, type ApiServerOptions, startApiServer, type UiHandler } from './server.ts';
export { selfSignedCert, type TlsSource } from './tls.ts';
export { type UiPath, uiPath } from './ui-path.ts';
