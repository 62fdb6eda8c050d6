/** How many messages (or loose proposal cards) a block holds before the next one starts a new block. */
export const BLOCK_SIZE = 20;

/** The class of a block: a plain box around up to {@link BLOCK_SIZE} consecutive nodes of the room list. */
export const BLOCK_CLASS = 'hal-block';

interface Group {
  block: HTMLElement | null;
  elements: HTMLElement[];
}

/** Moves only what is out of place, so untouched nodes keep their selection, focus and state. */
function reconcile(parent: HTMLElement, wanted: readonly HTMLElement[]): void {
  let cursor = parent.firstElementChild;
  for (const element of wanted) {
    if (cursor === element) {
      cursor = cursor.nextElementSibling;
      continue;
    }
    parent.insertBefore(element, cursor);
  }
  while (cursor) {
    const next = cursor.nextElementSibling;
    cursor.remove();
    cursor = next;
  }
}

/**
 * Lays `wanted` (the room's nodes, in order) out in `list` as blocks of about {@link BLOCK_SIZE} nodes each. Why:
 * every streamed render grows the streaming message, and the browser then lays out the list again, visiting each
 * of its children; with the messages as direct children that is one visit per message of the room, so a render
 * cost more the longer the room was. In blocks it visits about one child per twenty messages, and a block that is
 * off screen (`content-visibility: auto`, see panel.css) is skipped with everything in it.
 *
 * Membership is sticky: a node stays in the block it is in while the order allows it, and a new node joins the
 * block of the node before it until that block is full. A room that only grows at its end therefore never moves a
 * settled node (moving one would drop a text selection in it); only a message that arrives out of order, or a
 * node that changed place, is moved.
 *
 * @example
 * placeInBlocks(list, [first, second, streaming]);
 */
export function placeInBlocks(list: HTMLElement, wanted: readonly HTMLElement[]): void {
  const document = list.ownerDocument;
  const groups: Group[] = [];
  const used = new Set<HTMLElement>();
  let current: Group | undefined;
  /** The block `element` sits in, if it is one of this list's and no earlier group took it. */
  const freeHome = (element: HTMLElement | undefined): HTMLElement | null => {
    const home = element?.parentElement ?? null;
    const ours = home !== null && home.parentElement === list && home.classList.contains(BLOCK_CLASS);
    return ours && !used.has(home) ? home : null;
  };
  const start = (block: HTMLElement | null, element: HTMLElement): void => {
    if (block) used.add(block);
    current = { block, elements: [element] };
    groups.push(current);
  };
  wanted.forEach((element, index) => {
    if (current?.block && element.parentElement === current.block) {
      current.elements.push(element);
      return;
    }
    const home = freeHome(element);
    if (home) start(home, element);
    else if (current && current.elements.length < BLOCK_SIZE) current.elements.push(element);
    // A node rendered anew at the head of a block (a message that changed) goes back into that block.
    else start(freeHome(wanted[index + 1]), element);
  });
  const blocks = groups.map((group) => {
    group.block ??= Object.assign(document.createElement('div'), { className: BLOCK_CLASS });
    return group.block;
  });
  // Children first: a node moving to an earlier block leaves its old block before that block is placed or removed.
  for (const group of groups) reconcile(group.block as HTMLElement, group.elements);
  reconcile(list, blocks);
}
