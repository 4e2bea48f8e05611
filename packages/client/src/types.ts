/**
 * Friendly names for the API's shapes. Every type here is taken from generated/openapi.ts, which
 * is rendered from the service's /openapi.json, so the client cannot drift from the server.
 */
import type { components, paths } from './generated/openapi.js';

type Schemas = components['schemas'];
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** A standard alert as the read API renders it. */
export type Alert = Schemas['Alert'];
/** A message of a chat-connected (Discord) channel. */
export type ChatAlert = Schemas['ChatAlert'];
/** What a list, a search page or a stream event holds. */
export type AnyAlert = Alert | ChatAlert;
/** One alert with its channel's name and slug (`GET /api/alerts/{id}`). */
export type AlertWithChannel = Schemas['AlertWithChannel'];
export type AlertPage = Schemas['AlertPage'];
export type Channel = Schemas['Channel'];
export type AlertDelivery = Schemas['AlertDelivery'];
export type AlertHistoryEntry = Schemas['AlertHistoryEntry'];
export type Heartbeat = Schemas['Heartbeat'];
export type ChatThread = Schemas['ChatThread'];
export type ThreadPage = Schemas['ThreadPage'];
/** An RFC 9457 problem document, as the service sends it. */
export type ProblemDocument = Schemas['Problem'];
/** The read API's 401 body. */
export type AuthFailure = Schemas['AuthFailure'];
/** The webhook's 201 body. */
export type WebhookAccepted = Schemas['WebhookAccepted'];

/** The webhook's JSON payload (`POST /api/webhook/{token}`). */
export type AlertPayload = JsonOf<paths['/api/webhook/{token}']['post']['requestBody']>;
export type AlertLevel = NonNullable<AlertQuery['level']>;
/** Filters of `GET /api/channels/{channel}/alerts` (without the paging parameters the iterator owns). */
export type AlertQuery = NonNullable<paths['/api/channels/{channel}/alerts']['get']['parameters']['query']>;
/** Parameters of `GET /api/search`. */
export type SearchQuery = paths['/api/search']['get']['parameters']['query'];
export type ThreadQuery = NonNullable<paths['/api/channels/{channel}/threads']['get']['parameters']['query']>;
/** The body of `PATCH /api/alerts/{id}`: read state for you, status or snooze for everyone. */
export type AlertChange = JsonOf<paths['/api/alerts/{id}']['patch']['requestBody']>;
export type AlertStatus = NonNullable<AlertChange['status']>;
