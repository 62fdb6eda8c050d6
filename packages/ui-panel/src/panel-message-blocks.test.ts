import { describe, expect, it } from 'vitest';
import { createTestWindow } from './panel-dom.test-support.js';
import { BLOCK_CLASS, BLOCK_SIZE, placeInBlocks } from './panel-message-blocks.js';

function setup() {
  const { document } = createTestWindow();
  const list = document.createElement('div');
  document.body.append(list);
  const node = (id: string) =>
    Object.assign(document.createElement('article'), { id, textContent: `text ${id}` });
  const nodes = (count: number, from = 1) =>
    Array.from({ length: count }, (_, index) => node(`n${from + index}`));
  /** The ids per block, in order: the list's whole structure. */
  const shape = () => [...list.children].map((block) => [...block.children].map((child) => child.id));
  return { document, list, node, nodes, shape };
}

describe('placeInBlocks', () => {
  it('lays a room out in blocks of BLOCK_SIZE, in order, with nothing else in the list', () => {
    const { list, nodes } = setup();
    const room = nodes(2 * BLOCK_SIZE + 5);
    placeInBlocks(list, room);
    expect([...list.children].every((child) => child.className === BLOCK_CLASS)).toBe(true);
    expect([...list.children].map((block) => block.children.length)).toEqual([BLOCK_SIZE, BLOCK_SIZE, 5]);
    expect([...list.querySelectorAll('article')]).toEqual(room);
  });

  it('never moves a settled node while the room grows at its end, so a selection in it survives', () => {
    const { document, list, nodes } = setup();
    const room = nodes(BLOCK_SIZE + 3);
    placeInBlocks(list, room);
    const blocks = [...list.children];
    const selection = document.getSelection();
    const range = document.createRange();
    range.selectNodeContents(room[4] as HTMLElement);
    selection?.addRange(range);
    for (const added of nodes(2 * BLOCK_SIZE, room.length + 1)) {
      room.push(added);
      placeInBlocks(list, room);
    }
    expect([...list.children].slice(0, 2)).toEqual(blocks);
    expect([...list.children].map((block) => block.children.length)).toEqual([
      BLOCK_SIZE,
      BLOCK_SIZE,
      BLOCK_SIZE,
      3,
    ]);
    expect(selection?.toString()).toBe('text n5');
  });

  it('puts a node rendered anew back where the old one was, without a new block', () => {
    const { list, node, nodes, shape } = setup();
    const room = nodes(2 * BLOCK_SIZE);
    placeInBlocks(list, room);
    const blocks = [...list.children];
    // The head of the second block changed (a message rendered anew): it replaces the old node in that block.
    room[BLOCK_SIZE] = node('fresh');
    placeInBlocks(list, room);
    expect([...list.children]).toEqual(blocks);
    expect(shape()[1]?.[0]).toBe('fresh');
    expect(list.querySelectorAll('article')).toHaveLength(2 * BLOCK_SIZE);
  });

  it('keeps order for a node that arrives late and drops removed nodes and emptied blocks', () => {
    const { list, node, nodes, shape } = setup();
    const room = nodes(BLOCK_SIZE + 2);
    placeInBlocks(list, room);
    room.splice(3, 0, node('late'));
    placeInBlocks(list, room);
    expect(shape()[0]?.slice(0, 5)).toEqual(['n1', 'n2', 'n3', 'late', 'n4']);
    expect([...list.querySelectorAll('article')].map((item) => item.id)).toEqual(room.map((item) => item.id));
    placeInBlocks(list, room.slice(0, 2));
    expect(shape()).toEqual([['n1', 'n2']]);
    placeInBlocks(list, []);
    expect(list.children).toHaveLength(0);
  });

  it('moves a node that changed place into its new position', () => {
    const { list, nodes } = setup();
    const room = nodes(BLOCK_SIZE + 4);
    placeInBlocks(list, room);
    const moved = room.splice(1, 1)[0] as HTMLElement;
    room.push(moved);
    placeInBlocks(list, room);
    expect([...list.querySelectorAll('article')]).toEqual(room);
    expect(list.lastElementChild?.lastElementChild).toBe(moved);
  });
});
