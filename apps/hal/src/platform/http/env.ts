/** The signed-in operator, as routes see it. */
export interface Operator {
  id: string;
  username: string;
}

/** Hono environment of every `/ops` route. */
export interface AppEnv {
  Variables: {
    /** This request's id (the `X-Request-Id` response header and its access-log line); set first, on every route. */
    requestId: string;
    /** Set by the session middleware on every authenticated route. */
    operator: Operator;
    /** The current session's id (never sent to the client except as the cookie). */
    sessionId: string;
    /** The session's CSRF token (what `X-CSRF-Token` must equal). */
    csrfToken: string;
    /** Epoch ms until which `requireRecent` passes (0 when the window never opened). */
    recentAuthUntil: number;
    /**
     * True while a console form post's CSRF token is still to be read from its `_csrf` field: the CSRF
     * middleware never reads a body, so the form readers check it (see `verifyFormToken`).
     */
    csrfDeferred: boolean;
  };
}
