/** How close to the bottom (in pixels) still counts as "at the bottom" when the operator scrolls. */
export const FOLLOW_SLACK_PX = 48;

/** Frames after a render in which the follower checks the bottom again (see {@link createBottomFollower}). */
const SETTLE_FRAMES = 6;

/** Keeps a scrolling list at its bottom while new content arrives, until the operator scrolls up. */
export interface BottomFollower {
  /** Call after the list's content changed: scrolls to the bottom when following, and keeps it there. */
  afterRender(): void;
  /** Follows the bottom again (another room was selected). */
  reset(): void;
  /** Whether the list follows its bottom now. */
  following(): boolean;
  /** Stops listening to the list's scroll events. */
  dispose(): void;
}

/** How long after a wheel, touch, key or pointer press a scroll counts as the operator's (ms). */
const INTENT_MS = 1000;

/**
 * Follows the bottom of a scrolling message list. Whether to follow is the operator's choice: a scroll that
 * follows their wheel, touch, key or pointer input decides it (within {@link FOLLOW_SLACK_PX} of the bottom:
 * follow; further up: stay); any scroll that reaches the bottom follows again. It is never guessed from the
 * geometry at render time, nor from scrolls the browser makes by itself: messages use `content-visibility:
 * auto`, so a message that just came into view (a finished reply replacing its streaming node, the history
 * after a jump to the bottom) grows from its placeholder size a frame later, and the browser clamps or anchors
 * the scroll position meanwhile — a geometry check then found the list "scrolled up" and stopped following, so
 * the streamed reply ran below the fold. After each render the follower checks the bottom again for a few
 * frames and scrolls down once more when the list grew under it.
 *
 * @example
 * const follower = createBottomFollower(list);
 * list.append(message);
 * follower.afterRender();
 */
export function createBottomFollower(list: HTMLElement): BottomFollower {
  const window = list.ownerDocument.defaultView;
  const now = () => window?.performance.now() ?? Date.now();
  let following = true;
  let intentAt = Number.NEGATIVE_INFINITY;
  let framesLeft = 0;
  let frameQueued = false;

  const gapBelow = () => list.scrollHeight - list.scrollTop - list.clientHeight;
  const pin = () => {
    list.scrollTop = list.scrollHeight;
  };
  const onIntent = () => {
    intentAt = now();
  };
  const onScroll = () => {
    const gap = gapBelow();
    if (gap < FOLLOW_SLACK_PX) following = true;
    else if (now() - intentAt < INTENT_MS) following = false;
  };
  const intents = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const;
  for (const type of intents) list.addEventListener(type, onIntent, { passive: true });
  list.addEventListener('scroll', onScroll, { passive: true });

  function settle(): void {
    frameQueued = false;
    if (!following) return;
    if (gapBelow() > 1) pin();
    framesLeft -= 1;
    if (framesLeft > 0) queue();
  }
  function queue(): void {
    if (frameQueued || typeof window?.requestAnimationFrame !== 'function') return;
    frameQueued = true;
    window.requestAnimationFrame(settle);
  }

  return {
    afterRender() {
      if (!following) return;
      framesLeft = SETTLE_FRAMES;
      // Pinning now would read scrollHeight right after the DOM changed: a forced layout per render, over the
      // whole list. In the next frame the layout is due anyway, and renders between two frames share it.
      if (typeof window?.requestAnimationFrame === 'function') queue();
      else pin();
    },
    reset() {
      following = true;
      intentAt = Number.NEGATIVE_INFINITY;
    },
    following: () => following,
    dispose() {
      for (const type of intents) list.removeEventListener(type, onIntent);
      list.removeEventListener('scroll', onScroll);
    },
  };
}
