// Prometheus metrics of the HTTP API. Created once by the process and handed to every startApiServer
// (the controller-manager restarts the server when the front-proxy settings appear; the series must
// survive that), on the registry its /metrics already serves.
import { Counter, type Registry } from 'prom-client';
import { assertNever } from '../lib/assert-never.ts';
import type { RouteResult } from './routes.ts';

export type RouteLabel =
  | 'sync'
  | 'health'
  | 'history'
  | 'renders'
  | 'discovery'
  | 'healthz'
  | 'hook'
  | 'unmatched';

export interface ApiMetrics {
  readonly requests: Counter<'route' | 'code'>;
  /** source: serving (the cert/key files) or requestheader (the front-proxy CA); result: applied or refused. */
  readonly reloads: Counter<'source' | 'result'>;
}

export type ReloadSource = 'serving' | 'requestheader';
export type ReloadResult = 'applied' | 'refused';

export function newApiMetrics(registry: Registry): ApiMetrics {
  return {
    requests: new Counter({
      name: 'convoy_api_requests_total',
      help: 'HTTP API requests answered, by route and HTTP status code',
      labelNames: ['route', 'code'],
      registers: [registry],
    }),
    reloads: new Counter({
      name: 'convoy_api_certificate_reloads_total',
      help: 'Changed serving certificates and front-proxy settings seen while running, applied or refused (old ones kept)',
      labelNames: ['source', 'result'],
      registers: [registry],
    }),
  };
}

/** The route label of a request; paths that name no route share one label, so the series stay few. */
export function routeLabel(r: RouteResult): RouteLabel {
  if (!r.ok) return 'unmatched';
  switch (r.route.kind) {
    case 'sync':
    case 'health':
    case 'history':
    case 'healthz':
      return r.route.kind;
    case 'render':
      return 'renders';
    case 'groupList':
    case 'group':
    case 'resourceList':
      return 'discovery';
    default:
      return assertNever(r.route);
  }
}
