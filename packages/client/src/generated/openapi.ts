/**
 * Generated from the service's /openapi.json by `npm run client:types` (openapi-typescript). Do not edit:
 * test/client/types-drift.test.ts fails when this file and the service disagree.
 */
export interface paths {
    "/api/alerts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get one alert, with its channel's name and slug */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Alert id */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The alert */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AlertWithChannel"];
                    };
                };
                /** @description Missing or invalid Bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuthFailure"];
                    };
                };
                /** @description Not found or not visible to the token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Mark an alert read or unread for the calling user, or change its status or snooze for everyone
         * @description Any user who can read the alert may change its status (a member can acknowledge). Each change is recorded in the alert's history (GET /api/alerts/{id}/history) and streamed as `alert.updated`. Asking for the status the alert has changes nothing.
         */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Alert id */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Read state, for the calling user only */
                        isRead?: boolean;
                        /** @description Snooze until this time (in the future, at most 30 days ahead), or null to end the snooze */
                        snoozedUntil?: string | null;
                        /**
                         * @description For everyone in the workspace: acknowledge, resolve, or reopen (open)
                         * @enum {string}
                         */
                        status?: "open" | "acknowledged" | "resolved";
                    };
                };
            };
            responses: {
                /** @description The updated alert */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AlertWithChannel"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing or invalid Bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuthFailure"];
                    };
                };
                /** @description The token is read-only (problem type `read-only-token`): it may mark alerts read, nothing more */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not found or not visible to the token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/api/alerts/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where an alert went: its route, e-mail and push deliveries
         * @description Route deliveries are shown to everyone who can read the alert; e-mail and push rows only to their recipient, and all of them to the workspace's owners and admins.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Alert id */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The deliveries */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            deliveries: components["schemas"]["AlertDelivery"][];
                        };
                    };
                };
                /** @description Missing or invalid Bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuthFailure"];
                    };
                };
                /** @description Not found or not visible to the token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/alerts/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An alert's status changes, oldest first: who, when and from where */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Alert id */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The history */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            history: components["schemas"]["AlertHistoryEntry"][];
                        };
                    };
                };
                /** @description Missing or invalid Bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuthFailure"];
                    };
                };
                /** @description Not found or not visible to the token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/alerts/mark-all-read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark every alert read, in one channel or in all visible channels */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @description Channel id or slug */
                        channelId?: string;
                    };
                };
            };
            responses: {
                /** @description Done (idempotent) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            channelIds: string[];
                            /** @enum {boolean} */
                            success: true;
                        };
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing or invalid Bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuthFailure"];
                    };
                };
                /** @description Not found or not visible to the token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the channels the token can see, with your unread counts */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Channels */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Channel"][];
                    };
                };
                /** @description Missing or invalid Bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuthFailure"];
                    };
                };
                /** @description Rate limited; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channels/{channel}/alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List alerts of a channel, newest first (or oldest first with order=asc) */
        get: {
            parameters: {
                query?: {
                    /** @description Only alerts strictly newer than this alert id (polling). Combine with cursor to page through them. */
                    after?: string;
                    /** @description The nextCursor of the previous page; omit for the first page. */
                    cursor?: string;
                    level?: "info" | "success" | "warning" | "error";
                    limit?: number;
                    /** @description desc: newest first (default); asc: oldest first, as a thread reads. A nextCursor continues in the order it was given with; with after, asc reads what came since in the order it happened. */
                    order?: "desc" | "asc";
                    /** @description Only alerts with one of these statuses, comma-separated: open, acknowledged, resolved */
                    status?: string;
                    /** @description Only this thread's or forum post's messages: the `thread.id` a message shows. A thread that does not exist gives an empty page. */
                    thread?: string;
                };
                header?: never;
                path: {
                    /** @description Channel id or slug */
                    channel: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of alerts */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AlertPage"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing or invalid Bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuthFailure"];
                    };
                };
                /** @description Not found or not visible to the token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channels/{channel}/threads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a chat-connected channel's threads and forum posts, newest activity first
         * @description Same visibility as the channel: a channel the token cannot see is a 404. A channel without threads (or not connected to Discord) lists none. One thread's messages: GET /api/channels/{channel}/alerts?thread={id}.
         */
        get: {
            parameters: {
                query?: {
                    /** @description The nextCursor of the previous page; omit for the first page. */
                    cursor?: string;
                    limit?: number;
                    /** @description activity: newest message first (default); reactions: most reactions on the starter message first (feature-request voting). */
                    sort?: "activity" | "reactions";
                    /** @description Only forum posts with this tag applied (by name). */
                    tag?: string;
                };
                header?: never;
                path: {
                    /** @description Channel id or slug */
                    channel: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of threads */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ThreadPage"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing or invalid Bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuthFailure"];
                    };
                };
                /** @description Not found or not visible to the token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/heartbeats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The heartbeat checks of the channels the token can see, with each one's state
         * @description States: new (never pinged), up, late (past its due time, within the grace), down, paused. See docs/heartbeats.md for the ping URLs.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The checks, by name */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Heartbeat"][];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing or invalid Bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuthFailure"];
                    };
                };
                /** @description Not found or not visible to the token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Full-text search across the channels the token can see, newest first
         * @description Searches titles, messages, field labels and values, workflow steps and errors, link texts, sources, actors (name, e-mail, company) and chat messages with their authors and the name of their Discord thread or forum post. Same visibility rule and alert shapes as the channel list.
         */
        get: {
            parameters: {
                query: {
                    /** @description Only this channel (id or slug) */
                    channel?: string;
                    /** @description The nextCursor of the previous page (opaque); omit for the first page. */
                    cursor?: string;
                    /** @description Only standard alerts of this level (no chat messages) */
                    level?: "info" | "success" | "warning" | "error";
                    limit?: number;
                    /** @description Words to find, all required. A trailing * makes a prefix (deploy*), "double quotes" make a phrase; every other character is literal text (there are no operators). At most 256 characters and 16 words or phrases. */
                    q: string;
                    /** @description Only alerts with one of these statuses, comma-separated: open, acknowledged, resolved */
                    status?: string;
                    /** @description Only messages of forum posts with this tag applied (by name, exact). */
                    tag?: string;
                    /** @description Only this thread's or forum post's messages: the `thread.id` a message shows. A thread that does not exist gives an empty page. */
                    thread?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of matching alerts */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AlertPage"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing or invalid Bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuthFailure"];
                    };
                };
                /** @description Not found or not visible to the token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live stream of alert changes (Server-Sent Events)
         * @description Server-Sent Events for the channels the token's user can see (same rule as the read API).
         *
         *     Events (`event:` line):
         *     - `alert.created`, `alert.updated` (workflow progress, Discord edits): `data` is the alert as `GET /api/channels/{channel}/alerts` renders it for you, `isRead` included, in its current state.
         *     - `alert.deleted`: `data` is `{"id": "...", "channelId": "..."}`.
         *     - `resync`: the events you asked to resume from are gone (pruned after 7 days): refetch the lists.
         *     - `shutdown`: the server is shutting down; the stream ends after it. Reconnect after `retryMs` with `Last-Event-ID`: nothing is missed.
         *     - `read.updated`: your read state changed in a channel (you marked read through the API, the dashboard or another client): `data` is `{"channelId": "...", "unread": 3}`, your unread count there now (the channel list's `_count.alerts`). Sent only to the streams of the user who read; it has no `id:` (it is not in the change log), so it never moves `Last-Event-ID`; after a reconnect, refetch the counts.
         *
         *     Every alert event has an `id:`; reconnect with `Last-Event-ID` (EventSource does this by itself) to receive what you missed, in order and without duplicates. Without it the stream starts with live events only. A comment line (`: heartbeat`) is sent every 15 s so proxies keep the connection open; `retry:` suggests a reconnection delay.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Only this channel (id or slug). 404 if you cannot see it. */
                    channel?: string;
                    /** @description Resume after this event id, for clients that cannot send the Last-Event-ID header (EventSource polyfills). */
                    lastEventId?: string;
                };
                header?: {
                    /** @description The id of the last event received; the stream resumes after it. */
                    "last-event-id"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description An endless text/event-stream */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing or invalid Bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuthFailure"];
                    };
                };
                /** @description Not found or not visible to the token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/webhook/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an alert (or update a workflow run) in the channel that owns this webhook token
         * @description No Authorization header: the token in the path selects the channel. JSON body, or multipart/form-data with a `payload` part (the same JSON) and one file part per attachment (at most 10 attachments in all). Optional `Idempotency-Key` header (24 h).
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    "idempotency-key"?: string;
                };
                path: {
                    /** @description The channel's webhook token */
                    token: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        actor?: string | {
                            avatarUrl?: string;
                            company?: string;
                            /** Format: email */
                            email?: string;
                            id?: string | number;
                            location?: string;
                            name?: string;
                            plan?: string;
                            url?: string;
                        };
                        attachments?: {
                            /** @description The file as base64, optionally as a `data:<type>;base64,` URL */
                            data?: string;
                            name?: string;
                            /** @enum {string} */
                            type?: "image" | "video" | "audio";
                            url?: string;
                        }[];
                        /** @description At most 255 characters. While the alert stored under this key is not resolved, a POST with it updates that alert in place (same alertId, occurrences + 1). */
                        dedupKey?: string;
                        /** @description At most 10 characters: emoji characters, a recognised name (rocket), or a :name: shortcode of a recognised name or of GitHub's and Slack's common set (:rotating_light:) up to 64 characters; unknown names and shortcodes are dropped. */
                        emoji?: string;
                        fields?: {
                            /** @default false */
                            inline?: boolean;
                            label?: string;
                            name?: string;
                            value: string | number | boolean;
                        }[];
                        /** @default info */
                        level?: string;
                        linkText?: string;
                        linkUrl?: string;
                        message?: string;
                        /** @description Kept for context, not displayed; at most 16 KiB as JSON. */
                        metadata?: {
                            [key: string]: unknown;
                        };
                        source?: string;
                        /**
                         * @description Only with dedupKey: `open` (the default) or `resolved`, which resolves the alert stored under the key. Ignored without dedupKey.
                         * @enum {string}
                         */
                        status?: "open" | "resolved";
                        title: string;
                        user?: string | {
                            avatarUrl?: string;
                            company?: string;
                            /** Format: email */
                            email?: string;
                            id?: string | number;
                            location?: string;
                            name?: string;
                            plan?: string;
                            url?: string;
                        };
                        workflow?: {
                            error?: string;
                            runId: string;
                            /** @enum {string} */
                            state: "running" | "passed" | "failed";
                            steps: {
                                info?: string;
                                name: string;
                                seconds?: number;
                                /** @enum {string} */
                                state: "pending" | "running" | "done" | "failed" | "skipped";
                            }[];
                        };
                    };
                    "multipart/form-data": {
                        /** Format: binary */
                        file?: string;
                        /** @description The JSON payload */
                        payload: string;
                    };
                };
            };
            responses: {
                /** @description Alert stored: created, or (with a workflow block or a dedupKey) a run or keyed alert created or updated in place; `workflow.created` tells which */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookAccepted"];
                    };
                };
                /** @description A `status: resolved` with a `dedupKey` under which nothing is open: nothing stored */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookUnmatched"];
                    };
                };
                /** @description Invalid payload, malformed JSON, an unsupported attachment, or a dedupKey with a workflow */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown webhook token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Same Idempotency-Key still running, run already finished, or channel is chat-connected */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body or attachment too large (attachments: images 10 MiB, videos 50 MiB and audio 25 MiB) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Idempotency-Key reused with another body, or attachment URL not fetchable */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description More than WEBHOOK_RATE_LIMIT_PER_MINUTE requests to this webhook in a minute; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Storage unavailable (disk full or I/O error): nothing was stored; see Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/webhook/{token}/alertmanager": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Take a Prometheus Alertmanager webhook_configs notification (version 4): one alert per groupKey, updated in place
         * @description Firing: the level comes from `commonLabels.severity` (critical/error/page → ERROR, warning → WARNING, info/none → INFO, missing → ERROR). Resolved: SUCCESS, unread again. A group that fires again reopens the same alert (unread, notified, one more usage event). Notifications go out when a group starts firing and when it resolves, never for a resend of an unchanged group. Title: `commonAnnotations.summary`, else the alert name and the number of alerts. `X-Alertbridge-Alert-Id` carries the alert id. Optional `Idempotency-Key` header.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The channel's webhook token */
                    token: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Stored, updated, or a repeat answered without change */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            alertId: string;
                            destination: {
                                [key: string]: unknown;
                            };
                            group: {
                                /** @description True when this notification started the alert */
                                created: boolean;
                                /** @description True for a resend of an unchanged group: nothing was changed, nobody notified */
                                repeat: boolean;
                                /** @enum {string} */
                                status: "firing" | "resolved";
                            };
                            /** @enum {boolean} */
                            success: true;
                        };
                    };
                };
                /** @description Unreadable body: malformed JSON, or nothing to show */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown webhook token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Same Idempotency-Key still running, or channel is chat-connected */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description More than WEBHOOK_RATE_LIMIT_PER_MINUTE requests to this webhook in a minute; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Storage unavailable: nothing was stored; see Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/webhook/{token}/discord": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an alert from Discord's execute-webhook body (JSON, or multipart with payload_json and files[n])
         * @description Answers as Discord does: 204, or with `?wait=true` a 200 Discord message object. `X-Alertbridge-Alert-Id` carries the alert id. Optional `Idempotency-Key` header.
         */
        post: {
            parameters: {
                query?: {
                    wait?: "true" | "false";
                };
                header?: never;
                path: {
                    /** @description The channel's webhook token */
                    token: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                    "multipart/form-data": {
                        /** Format: binary */
                        "files[0]"?: string;
                        payload_json: string;
                    };
                };
            };
            responses: {
                /** @description `?wait=true`: the message object as Discord returns it */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["DiscordMessage"];
                    };
                };
                /** @description Stored */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Unreadable body: malformed JSON, or nothing to show */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown webhook token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Same Idempotency-Key still running, or channel is chat-connected */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description More than WEBHOOK_RATE_LIMIT_PER_MINUTE requests to this webhook in a minute; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Storage unavailable: nothing was stored; see Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/webhook/{token}/github": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Take a GitHub webhook delivery (push, pull_request, issues, release, workflow_run, workflow_job; ping; others ignored)
         * @description `X-GitHub-Event` selects the mapping; `X-GitHub-Delivery` is the idempotency key, kept 7 days. When the channel has a signing secret, `X-Hub-Signature-256` is required. `workflow_job` merges one step per job (keyed by job name) into its run. An event for a run that already completed is answered 200 `{"ignored": event}`.
         */
        post: {
            parameters: {
                query?: never;
                header: {
                    "x-github-delivery"?: string;
                    "x-github-event": string;
                    "x-hub-signature-256"?: string;
                };
                path: {
                    /** @description The channel's webhook token */
                    token: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                    "application/x-www-form-urlencoded": {
                        payload: string;
                    };
                };
            };
            responses: {
                /** @description Stored (the plain webhook answer), or `{"ignored": event}`, or a ping answered */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Unreadable body: malformed JSON, or nothing to show */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing or wrong X-Hub-Signature-256 (the channel has a signing secret) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown webhook token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Same Idempotency-Key still running, or channel is chat-connected */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description More than WEBHOOK_RATE_LIMIT_PER_MINUTE requests to this webhook in a minute; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Storage unavailable: nothing was stored; see Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/webhook/{token}/grafana": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Take a Grafana unified-alerting webhook contact point notification: one alert per groupKey, updated in place
         * @description Firing: the level comes from `commonLabels.severity` (critical/error/page → ERROR, warning → WARNING, info/none → INFO, missing → ERROR). Resolved: SUCCESS, unread again. A group that fires again reopens the same alert (unread, notified, one more usage event). Notifications go out when a group starts firing and when it resolves, never for a resend of an unchanged group. Title: Grafana's `title`. Each alert's `imageURL` is fetched as an attachment; one that cannot be fetched is skipped and named in the message. `X-Alertbridge-Alert-Id` carries the alert id. Optional `Idempotency-Key` header.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The channel's webhook token */
                    token: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Stored, updated, or a repeat answered without change */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            alertId: string;
                            destination: {
                                [key: string]: unknown;
                            };
                            group: {
                                /** @description True when this notification started the alert */
                                created: boolean;
                                /** @description True for a resend of an unchanged group: nothing was changed, nobody notified */
                                repeat: boolean;
                                /** @enum {string} */
                                status: "firing" | "resolved";
                            };
                            /** @enum {boolean} */
                            success: true;
                        };
                    };
                };
                /** @description Unreadable body: malformed JSON, or nothing to show */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown webhook token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Same Idempotency-Key still running, or channel is chat-connected */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description More than WEBHOOK_RATE_LIMIT_PER_MINUTE requests to this webhook in a minute; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Storage unavailable: nothing was stored; see Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/webhook/{token}/slack": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an alert from Slack's incoming-webhook body (text, blocks, legacy attachments)
         * @description Answers as Slack does. `X-Alertbridge-Alert-Id` carries the alert id. An image that cannot be fetched is skipped and named in the message. Optional `Idempotency-Key` header.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The channel's webhook token */
                    token: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Stored */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": "ok";
                    };
                };
                /** @description Unreadable body: malformed JSON, or nothing to show */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown webhook token */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Same Idempotency-Key still running, or channel is chat-connected */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description More than WEBHOOK_RATE_LIMIT_PER_MINUTE requests to this webhook in a minute; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Storage unavailable: nothing was stored; see Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: 200 while the process serves; `degraded` (still 200) while writes fail for storage reasons */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Serving */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Health"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Not offered (stateless MCP server): 405 */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Stateless server: no server-initiated stream (GET) and no session to end (DELETE). `Allow: POST`. */
                405: {
                    headers: {
                        allow: string;
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        /**
         * Model Context Protocol endpoint for AI assistants (Streamable HTTP)
         * @description The Model Context Protocol (Streamable HTTP transport, stateless) for AI assistants: tools list_channels, list_alerts, search_alerts, get_alert, mark_read and set_status over the read API's use cases, with the same Bearer tokens, visibility and rate limit. Send `Accept: application/json, text/event-stream`; answers are JSON. A tool refusal is a tool result with `isError: true` whose text is the read API's problem document. See docs/mcp.md.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["JsonRpcMessage"] | components["schemas"]["JsonRpcMessage"][];
                };
            };
            responses: {
                /** @description The JSON-RPC answer(s) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Accepted: the body held only notifications or responses */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not JSON, not JSON-RPC, or an unsupported MCP-Protocol-Version */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["JsonRpcError"];
                    };
                };
                /** @description Missing or invalid Bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuthFailure"];
                    };
                };
                /** @description The Accept header lacks application/json or text/event-stream */
                406: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["JsonRpcError"];
                    };
                };
                /** @description The body is over 64 KiB */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["JsonRpcError"];
                    };
                };
                /** @description The body is not application/json */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["JsonRpcError"];
                    };
                };
                /** @description Rate limited; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        /** Not offered (stateless MCP server): 405 */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Stateless server: no server-initiated stream (GET) and no session to end (DELETE). `Allow: POST`. */
                405: {
                    headers: {
                        allow: string;
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/media/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An attachment re-hosted by the service (supports Range, ETag, HEAD) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description <sha256>.<ext> */
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The file */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Partial content (Range) */
                206: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not modified (If-None-Match) */
                304: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Unknown media key */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Range not satisfiable */
                416: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (text exposition format); only with METRICS=1
         * @description With `METRICS_TOKEN` set, send `Authorization: Bearer <METRICS_TOKEN>`. Without `METRICS=1` the path does not exist (404).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Metrics */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description METRICS_TOKEN is set and the request does not carry it */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Metrics are off (METRICS unset) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ping/{pingKey}/{slug}/{suffix}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Heartbeat by slug with a suffix: `start`, `fail`, `log`, or an exit status 0–255 (0 success, 1–255 failure)
         * @description GET, POST and HEAD alike. A POST body (its first 10 KB, as text) is kept as the ping's log. The slug form answers 429 over the per-check rate limit.
         */
        get: {
            parameters: {
                query?: {
                    /** @description A run id (a UUID) pairing a start with its end, as Healthchecks' `rid`. */
                    rid?: string;
                };
                header?: never;
                path: {
                    /** @description The workspace's ping key */
                    pingKey: string;
                    /** @description The check's slug */
                    slug: string;
                    /** @description `start`, `fail`, `log`, or an exit status 0–255 (0 success, 1–255 failure) */
                    suffix: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description `OK` (also over the rate limit for a UUID ping: the ping is then not recorded) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `invalid url format` (suffix) or `invalid uuid format` (rid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `not found`: no such check */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `rate limit exceeded` (slug form only) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
            };
        };
        put?: never;
        /**
         * Heartbeat by slug with a suffix: `start`, `fail`, `log`, or an exit status 0–255 (0 success, 1–255 failure)
         * @description GET, POST and HEAD alike. A POST body (its first 10 KB, as text) is kept as the ping's log. The slug form answers 429 over the per-check rate limit.
         */
        post: {
            parameters: {
                query?: {
                    /** @description A run id (a UUID) pairing a start with its end, as Healthchecks' `rid`. */
                    rid?: string;
                };
                header?: never;
                path: {
                    /** @description The workspace's ping key */
                    pingKey: string;
                    /** @description The check's slug */
                    slug: string;
                    /** @description `start`, `fail`, `log`, or an exit status 0–255 (0 success, 1–255 failure) */
                    suffix: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description `OK` (also over the rate limit for a UUID ping: the ping is then not recorded) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `invalid url format` (suffix) or `invalid uuid format` (rid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `not found`: no such check */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `rate limit exceeded` (slug form only) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ping/{uuid}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Heartbeat: success, by UUID
         * @description GET, POST and HEAD alike. A POST body (its first 10 KB, as text) is kept as the ping's log. The slug form answers 429 over the per-check rate limit.
         */
        get: {
            parameters: {
                query?: {
                    /** @description A run id (a UUID) pairing a start with its end, as Healthchecks' `rid`. */
                    rid?: string;
                };
                header?: never;
                path: {
                    /** @description The check's ping UUID */
                    uuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description `OK` (also over the rate limit for a UUID ping: the ping is then not recorded) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `invalid url format` (suffix) or `invalid uuid format` (rid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `not found`: no such check */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
            };
        };
        put?: never;
        /**
         * Heartbeat: success, by UUID
         * @description GET, POST and HEAD alike. A POST body (its first 10 KB, as text) is kept as the ping's log. The slug form answers 429 over the per-check rate limit.
         */
        post: {
            parameters: {
                query?: {
                    /** @description A run id (a UUID) pairing a start with its end, as Healthchecks' `rid`. */
                    rid?: string;
                };
                header?: never;
                path: {
                    /** @description The check's ping UUID */
                    uuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description `OK` (also over the rate limit for a UUID ping: the ping is then not recorded) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `invalid url format` (suffix) or `invalid uuid format` (rid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `not found`: no such check */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ping/{uuidOrKey}/{suffixOrSlug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Heartbeat: /ping/{uuid}/{suffix} with `start`, `fail`, `log`, or an exit status 0–255 (0 success, 1–255 failure); or the success of /ping/{ping-key}/{slug}
         * @description GET, POST and HEAD alike. A POST body (its first 10 KB, as text) is kept as the ping's log. The slug form answers 429 over the per-check rate limit.
         */
        get: {
            parameters: {
                query?: {
                    /** @description A run id (a UUID) pairing a start with its end, as Healthchecks' `rid`. */
                    rid?: string;
                };
                header?: never;
                path: {
                    /** @description A suffix after a UUID, or the slug after a ping key */
                    suffixOrSlug: string;
                    /** @description The check's UUID, or the workspace's ping key */
                    uuidOrKey: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description `OK` (also over the rate limit for a UUID ping: the ping is then not recorded) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `invalid url format` (suffix) or `invalid uuid format` (rid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `not found`: no such check */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `rate limit exceeded` (slug form only) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
            };
        };
        put?: never;
        /**
         * Heartbeat: /ping/{uuid}/{suffix} with `start`, `fail`, `log`, or an exit status 0–255 (0 success, 1–255 failure); or the success of /ping/{ping-key}/{slug}
         * @description GET, POST and HEAD alike. A POST body (its first 10 KB, as text) is kept as the ping's log. The slug form answers 429 over the per-check rate limit.
         */
        post: {
            parameters: {
                query?: {
                    /** @description A run id (a UUID) pairing a start with its end, as Healthchecks' `rid`. */
                    rid?: string;
                };
                header?: never;
                path: {
                    /** @description A suffix after a UUID, or the slug after a ping key */
                    suffixOrSlug: string;
                    /** @description The check's UUID, or the workspace's ping key */
                    uuidOrKey: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description `OK` (also over the rate limit for a UUID ping: the ping is then not recorded) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `invalid url format` (suffix) or `invalid uuid format` (rid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `not found`: no such check */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description `rate limit exceeded` (slug form only) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: database, free disk, storage, outbox backlog, Discord gateway; 503 when the service should not get traffic */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Ready (checks may still warn) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Readiness"];
                    };
                };
                /** @description Not ready: at least one check failed */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Readiness"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "alert-route-event": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An alert event forwarded by a `webhook` route
         * @description Sent to the route’s URL for the events its filter names. Verify it with a Standard Webhooks library and the route’s `whsec_` secret; drop a repeat by its `webhook-id` (stable per event and route). Answer 2xx; a network error, 429 or 5xx is retried after max(Retry-After, 10 s), doubling up to 15 minutes, for 24 hours.
         */
        post: {
            parameters: {
                query?: never;
                header: {
                    /** @description Stable per (event, route): a resend carries the same id. */
                    "webhook-id": string;
                    /** @description `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under the route’s secret. */
                    "webhook-signature": string;
                    /** @description Unix seconds when this attempt was signed. */
                    "webhook-timestamp": string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": components["schemas"]["RouteWebhookEvent"];
                };
            };
            responses: {
                /** @description Received (any 2xx). */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Actor: {
            /** @description Our copy of the actor's picture in the media store (MEDIA_PUBLIC_URL/<sha256>.<ext>), made after the alert is accepted from the sent avatarUrl or the public avatar service; absent until then, or when there is none. The sent URL is never returned. */
            avatarUrl?: string;
            company?: string;
            email?: string;
            id?: string;
            initials?: string;
            location?: string;
            name?: string;
            plan?: string;
            url?: string;
        } | null;
        Alert: {
            /** Format: date-time */
            acknowledgedAt: string | null;
            /** @description The person who acknowledged it. */
            acknowledgedBy: {
                id: string | null;
                name: string;
            } | null;
            actor: components["schemas"]["Actor"];
            attachments: {
                mime: string;
                name: string | null;
                size: number;
                /** @enum {string} */
                type: "image" | "video" | "audio";
                url: string;
            }[];
            channelId: string;
            /** Format: date-time */
            createdAt: string;
            emoji: string | null;
            fields: {
                inline: boolean;
                label: string;
                value: string;
            }[];
            id: string;
            isRead: boolean;
            /** @enum {string} */
            level: "INFO" | "SUCCESS" | "WARNING" | "ERROR";
            linkText: string | null;
            linkUrl: string | null;
            message: string | null;
            /** @description How many times the sender reported it: 1 for a new alert, + 1 for each POST with its dedupKey. */
            occurrences: number;
            /** Format: date-time */
            resolvedAt: string | null;
            /** @description A person, or a sender or integration as `{id: null, name: "<source>"}`. */
            resolvedBy: {
                id: string | null;
                name: string;
            } | null;
            /** @description The silence that kept this alert from notifying anyone (docs/silences.md), or null. */
            silencedBy: {
                comment: string;
                id: string;
            } | null;
            /**
             * Format: date-time
             * @description When the snooze ends (it has ended when this is past).
             */
            snoozedUntil: string | null;
            source: string | null;
            /**
             * @description Shared by the workspace: open → acknowledged → resolved, and back to open.
             * @enum {string}
             */
            status: "open" | "acknowledged" | "resolved";
            title: string;
            /** Format: date-time */
            updatedAt: string;
            workflow: {
                error: string | null;
                runId: string;
                /** @enum {string} */
                state: "running" | "passed" | "failed";
                steps: {
                    info?: string;
                    name: string;
                    seconds?: number;
                    /** @enum {string} */
                    state: "pending" | "running" | "done" | "failed" | "skipped";
                }[];
            } | null;
        };
        AlertDelivery: {
            attempts: number;
            /** @enum {string} */
            kind: "route" | "email" | "push";
            /** Format: date-time */
            lastAttemptAt: string | null;
            /** @description Why the last attempt failed, or why the delivery was skipped */
            lastError: string | null;
            /** @description The receiver's last HTTP status (routes) */
            lastStatus: number | null;
            /** @description The route (kind route), else null */
            routeId: string | null;
            /** @description pending, sending, sent, skipped or failed */
            status: string;
            /** @description Masked: the route's target hint, the recipient's masked e-mail address, or the push device's label */
            target: string;
        };
        AlertHistoryEntry: {
            /** @enum {string} */
            action: "acknowledged" | "resolved" | "reopened" | "snoozed" | "unsnoozed";
            /** @description A person, or a sender or integration (id null) */
            actor: {
                id: string | null;
                name: string;
            };
            /** Format: date-time */
            createdAt: string;
            id: number;
            /** Format: date-time */
            snoozedUntil: string | null;
            /** @enum {string} */
            via: "api" | "dashboard" | "email" | "push" | "cli" | "webhook" | "integration";
        };
        AlertPage: {
            alerts: (components["schemas"]["Alert"] | components["schemas"]["ChatAlert"])[];
            hasMore: boolean;
            nextCursor: string | null;
        };
        AlertWithChannel: (components["schemas"]["Alert"] & {
            channelName: string;
            channelSlug: string;
        }) | (components["schemas"]["ChatAlert"] & {
            channelName: string;
            channelSlug: string;
        });
        AuthFailure: {
            /** Format: uri */
            docs: string;
            /** @enum {string} */
            error: "Unauthorized";
            message: string;
            /** @enum {string} */
            reason: "no_credentials" | "malformed_authorization_header" | "token_env_var_unset" | "invalid_token_format" | "unknown_token" | "not_a_workspace_member";
        };
        Channel: {
            _count: {
                /** @description The calling user's unread count. */
                alerts: number;
            };
            /** @description Set when the channel mirrors a Discord channel; its alerts then have the chat shape. */
            chat: {
                channelId: string;
                channelName: string | null;
                guildId: string | null;
                guildName: string | null;
                /** @enum {string} */
                platform: "discord";
            } | null;
            icon: string;
            id: string;
            isPrivate: boolean;
            name: string;
            slug: string;
            webhookToken: string;
        };
        ChatAlert: {
            /** Format: date-time */
            acknowledgedAt: string | null;
            /** @description The person who acknowledged it. */
            acknowledgedBy: {
                id: string | null;
                name: string;
            } | null;
            attachments: {
                mime: string;
                url: string;
            }[];
            author: {
                bot: boolean;
                id: string;
                name: string;
                /** @enum {string} */
                role: "owner" | "bot" | "member";
            };
            channelId: string;
            /** Format: date-time */
            createdAt: string;
            editedAt: string | null;
            id: string;
            isRead: boolean;
            message: string | null;
            /** @description How many times the sender reported it: 1 for a new alert, + 1 for each POST with its dedupKey. */
            occurrences: number;
            /** @description Reaction counts: a unicode emoji as the character, a custom one as `:name:`. No per-user data. */
            reactions: {
                count: number;
                emoji: string;
            }[];
            replyTo: {
                author: string;
                excerpt: string;
                messageId: string;
            } | null;
            /** Format: date-time */
            resolvedAt: string | null;
            /** @description A person, or a sender or integration as `{id: null, name: "<source>"}`. */
            resolvedBy: {
                id: string | null;
                name: string;
            } | null;
            /** @description The silence that kept this alert from notifying anyone (docs/silences.md), or null. */
            silencedBy: {
                comment: string;
                id: string;
            } | null;
            /**
             * Format: date-time
             * @description When the snooze ends (it has ended when this is past).
             */
            snoozedUntil: string | null;
            /**
             * @description Shared by the workspace: open → acknowledged → resolved, and back to open.
             * @enum {string}
             */
            status: "open" | "acknowledged" | "resolved";
            /** @description A forum post's applied tags, by name, on every message of the post; [] elsewhere. */
            tags: string[];
            /** @description The Discord thread or forum post the message belongs to (its current name); null for a message in the channel itself. */
            thread: {
                id: string;
                name: string;
            } | null;
        };
        ChatThread: {
            /** @description The Discord thread id */
            id: string;
            /** Format: date-time */
            lastMessageAt: string | null;
            /** @description Stored messages of the thread, the starter included */
            messageCount: number;
            /** @description Its current name (a forum post: the title) */
            name: string;
            /** @description Reactions on the starter message, all emoji together */
            reactionCount: number;
            /** @description The alert of the starter message (same snowflake as the thread), null when not stored */
            starterAlertId: string | null;
            /** @description A forum post's applied tags by name; [] for other threads */
            tags: string[];
        };
        DiscordMessage: {
            attachments: ({
                content_type: string;
                filename: string;
                /** @example 1302441818054688768 */
                id: string;
                size: number;
                url: string;
            } & {
                [key: string]: unknown;
            })[];
            author: {
                /** @enum {boolean} */
                bot: true;
                /** @example 1302441818054688768 */
                id: string;
                username: string;
            } & {
                [key: string]: unknown;
            };
            /** @example 1302441818054688768 */
            channel_id: string;
            content: string;
            edited_timestamp: null;
            embeds: ({
                color?: number;
                description?: string;
                title?: string;
                /** @enum {string} */
                type: "rich";
                url?: string;
            } & {
                [key: string]: unknown;
            })[];
            /** @example 1302441818054688768 */
            id: string;
            /** @enum {boolean} */
            pinned: false;
            /** @example 2026-11-22T12:00:00.000000+00:00 */
            timestamp: string;
            /** @enum {number} */
            type: 0;
            /** @example 1302441818054688768 */
            webhook_id: string;
        } & {
            [key: string]: unknown;
        };
        Health: {
            /** @description Why it is degraded, e.g. `storage: database or disk is full` */
            reasons?: string[];
            /** @enum {string} */
            status: "ok" | "degraded";
        };
        Heartbeat: {
            channelId: string;
            graceSeconds: number;
            id: string;
            /** @description The last run measured from a /start to its end */
            lastDurationMs: number | null;
            /** Format: date-time */
            lastPingAt: string | null;
            name: string;
            /** Format: date-time */
            nextDueAt: string | null;
            /** @description The check's ping URL; its UUID is the check's credential. */
            pingUrl: string;
            schedule: {
                /** @description Seconds between pings */
                period: number;
            } | {
                cron: string;
                tz: string;
            };
            /** @description Unique in the workspace: `/ping/{ping-key}/{slug}` pings it too. */
            slug: string;
            /** @enum {string} */
            status: "new" | "up" | "late" | "down" | "paused";
        };
        /** @description The MCP transport's own refusal (JSON-RPC error without an id) */
        JsonRpcError: {
            error: {
                code: number;
                message: string;
            };
            id: null;
            /** @enum {string} */
            jsonrpc: "2.0";
        };
        JsonRpcMessage: {
            /** @description Absent on a notification (answered 202 with no body) */
            id?: string | number;
            /** @enum {string} */
            jsonrpc: "2.0";
            /** @example tools/call */
            method: string;
            params?: {
                [key: string]: unknown;
            };
        };
        /** @description RFC 9457 problem document (application/problem+json). */
        Problem: {
            detail?: string;
            details?: {
                [key: string]: unknown;
            }[];
            /** @description Legacy field: the same text as title. */
            error: string;
            instance?: string;
            status: number;
            title: string;
            /**
             * Format: uri
             * @example http://localhost:3000/problems/not-found
             */
            type: string;
        };
        Readiness: {
            /** @description database, disk, storage, outbox, discord (when configured), shutdown (while draining) */
            checks: {
                [key: string]: {
                    /** @enum {string} */
                    status: "ok" | "warn" | "fail";
                } & {
                    [key: string]: unknown;
                };
            };
            /** @enum {string} */
            status: "ready" | "not-ready";
        };
        RouteWebhookEvent: {
            /** Format: date-time */
            acknowledgedAt: string | null;
            /** @description The person who acknowledged it. */
            acknowledgedBy: {
                id: string | null;
                name: string;
            } | null;
            actor: components["schemas"]["Actor"];
            attachments: {
                mime: string;
                name: string | null;
                size: number;
                /** @enum {string} */
                type: "image" | "video" | "audio";
                url: string;
            }[];
            channel: {
                id: string;
                name: string | null;
                slug: string | null;
            };
            channelId: string;
            /** Format: date-time */
            createdAt: string;
            emoji: string | null;
            /**
             * @description What happened: a reopen is an `alert.opened`.
             * @enum {string}
             */
            event: "alert.opened" | "alert.updated" | "alert.acknowledged" | "alert.resolved";
            fields: {
                inline: boolean;
                label: string;
                value: string;
            }[];
            id: string;
            /** @enum {string} */
            level: "INFO" | "SUCCESS" | "WARNING" | "ERROR";
            linkText: string | null;
            linkUrl: string | null;
            message: string | null;
            /** @description How many times the sender reported it: 1 for a new alert, + 1 for each POST with its dedupKey. */
            occurrences: number;
            /** Format: date-time */
            resolvedAt: string | null;
            /** @description A person, or a sender or integration as `{id: null, name: "<source>"}`. */
            resolvedBy: {
                id: string | null;
                name: string;
            } | null;
            /** @description The silence that kept this alert from notifying anyone (docs/silences.md), or null. */
            silencedBy: {
                comment: string;
                id: string;
            } | null;
            /**
             * Format: date-time
             * @description When the snooze ends (it has ended when this is past).
             */
            snoozedUntil: string | null;
            source: string | null;
            /**
             * @description Shared by the workspace: open → acknowledged → resolved, and back to open.
             * @enum {string}
             */
            status: "open" | "acknowledged" | "resolved";
            /** @description Present and true only on a route test’s sample alert. */
            test?: boolean;
            title: string;
            /** Format: date-time */
            updatedAt: string;
            workflow: {
                error: string | null;
                runId: string;
                /** @enum {string} */
                state: "running" | "passed" | "failed";
                steps: {
                    info?: string;
                    name: string;
                    seconds?: number;
                    /** @enum {string} */
                    state: "pending" | "running" | "done" | "failed" | "skipped";
                }[];
            } | null;
        };
        ThreadPage: {
            hasMore: boolean;
            nextCursor: string | null;
            threads: components["schemas"]["ChatThread"][];
        };
        WebhookAccepted: {
            alertId: string;
            destination: {
                channel: {
                    id: string;
                    name: string;
                    slug: string;
                };
                workspace: {
                    id: string;
                    name: string;
                };
            };
            /** @enum {boolean} */
            success: true;
            workflow?: {
                created: boolean;
                runId: string;
                state: string;
            };
        };
        WebhookUnmatched: {
            /** @enum {boolean} */
            matched: false;
            /** @enum {boolean} */
            success: true;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
