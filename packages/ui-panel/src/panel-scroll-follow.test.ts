import { describe, expect, it } from 'vitest';
import { createTestWindow } from './panel-dom.test-support.js';
import { createBottomFollower } from './panel-scroll-follow.js';

/** A list with settable geometry (jsdom lays nothing out, nor has it animation frames): `height` is its content, `top` its scroll position. */
function scrollingList() {
  const window = createTestWindow();
  const list = window.document.createElement('div');
  window.document.body.append(list);
  // `reads`: how often the follower read the content height (in a browser, a layout when the DOM just changed).
  const geometry = { height: 2000, top: 0, client: 500, reads: 0 };
  Object.defineProperties(list, {
    scrollHeight: {
      get: () => {
        geometry.reads += 1;
        return geometry.height;
      },
    },
    clientHeight: { get: () => geometry.client },
    scrollTop: {
      get: () => geometry.top,
      set: (value: number) => {
        geometry.top = Math.max(0, Math.min(value, geometry.height - geometry.client));
      },
    },
  });
  const scroll = () => list.dispatchEvent(new window.Event('scroll'));
  return { window, list, geometry, scroll };
}

describe('createBottomFollower', () => {
  it('scrolls to the bottom after a render while following', () => {
    const { list, geometry } = scrollingList();
    const follower = createBottomFollower(list);
    follower.afterRender();
    expect(geometry.top).toBe(1500);
    geometry.height = 2600;
    follower.afterRender();
    expect(geometry.top).toBe(2100);
  });

  it('keeps following when the browser moves the position by itself (a placeholder grew, a clamp)', () => {
    const { list, geometry, scroll } = scrollingList();
    const follower = createBottomFollower(list);
    follower.afterRender();
    // The finished reply replaced its streaming node: the list shrank to the placeholder, then grew back.
    geometry.height = 1200;
    geometry.top = 700;
    scroll();
    geometry.height = 2400;
    scroll();
    expect(follower.following()).toBe(true);
    follower.afterRender();
    expect(geometry.top).toBe(1900);
  });

  it('stays where the operator scrolled up to, and follows again once they are back at the bottom', () => {
    const { window, list, geometry, scroll } = scrollingList();
    const follower = createBottomFollower(list);
    follower.afterRender();
    list.dispatchEvent(new window.WheelEvent('wheel', { deltaY: -400 }));
    geometry.top = 1100;
    scroll();
    expect(follower.following()).toBe(false);
    geometry.height = 2600;
    follower.afterRender();
    expect(geometry.top).toBe(1100);
    list.dispatchEvent(new window.WheelEvent('wheel', { deltaY: 1200 }));
    geometry.top = 2080;
    scroll();
    expect(follower.following()).toBe(true);
    follower.afterRender();
    expect(geometry.top).toBe(2100);
  });

  it('follows again after a reset (another room)', () => {
    const { window, list, geometry, scroll } = scrollingList();
    const follower = createBottomFollower(list);
    list.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'PageUp' }));
    geometry.top = 200;
    scroll();
    expect(follower.following()).toBe(false);
    follower.reset();
    follower.afterRender();
    expect(geometry.top).toBe(1500);
  });

  it('reads no layout during a render: it pins the bottom in the next frame, once for all renders before it', () => {
    const { window, list, geometry } = scrollingList();
    const frames: FrameRequestCallback[] = [];
    Object.assign(window, {
      requestAnimationFrame: (callback: FrameRequestCallback) => frames.push(callback),
    });
    const follower = createBottomFollower(list);
    follower.afterRender();
    geometry.height = 2600;
    follower.afterRender();
    // Reading scrollHeight right after the DOM changed would force a layout of the whole list per render.
    expect(geometry.reads).toBe(0);
    expect(geometry.top).toBe(0);
    expect(frames).toHaveLength(1);
    frames.shift()?.(0);
    expect(geometry.top).toBe(2100);
  });
});
