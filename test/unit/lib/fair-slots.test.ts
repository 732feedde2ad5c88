import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createFairQueue, createFairSlots, type Slot } from '../../../src/lib/fair-slots.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('fair queue', () => {
  it('serves tenants round-robin, first come first served within one', () => {
    const queue = createFairQueue<string>();
    for (let i = 1; i <= 4; i++) queue.push('a', `a${i}`);
    queue.push('b', 'b1');
    queue.push('b', 'b2');
    queue.push('c', 'c1');
    const order: string[] = [];
    while (queue.size > 0) order.push(queue.shift()!);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
  });

  it("puts a newcomer's first item before a flooding tenant's backlog", () => {
    const queue = createFairQueue<string>();
    for (let i = 1; i <= 48; i++) queue.push('flood', `f${i}`);
    expect(queue.shift()).toBe('f1');
    queue.push('late', 'l1');
    expect(queue.peek()).toBe('f2');
    expect([queue.shift(), queue.shift()]).toEqual(['f2', 'l1']);
    expect(queue.size).toBe(46);
  });

  it('removes an item wherever it waits, and drops a tenant whose line empties', () => {
    const queue = createFairQueue<string>();
    queue.push('a', 'a1');
    queue.push('b', 'b1');
    queue.push('a', 'a2');
    expect(queue.remove('b1')).toBe(true);
    expect(queue.remove('b1')).toBe(false);
    expect([queue.shift(), queue.shift(), queue.shift()]).toEqual(['a1', 'a2', undefined]);
    expect(queue.size).toBe(0);
  });
});

describe('fair slots', () => {
  it('hands freed slots out in turn between tenants and reports who waited, and how long', async () => {
    let clock = 0;
    const slots = createFairSlots(2, () => clock);
    const granted: string[] = [];
    const take = (tenant: string, name: string) =>
      slots.acquire(tenant, undefined).then((slot) => {
        granted.push(name);
        return slot;
      });
    const first = await Promise.all([take('a', 'a1'), take('a', 'a2')]);
    const waiting = [take('a', 'a3'), take('a', 'a4'), take('a', 'a5'), take('b', 'b1')];
    await tick();
    expect(slots.waiting).toBe(4);
    clock = 25;
    first.forEach((slot) => slot.release());
    const [a3, , , b1] = await Promise.all([waiting[0], tick(), tick(), waiting[3]] as const);
    expect(granted).toEqual(['a1', 'a2', 'a3', 'b1']);
    expect(first.map((s) => s.queued)).toEqual([false, false]);
    expect([(a3 as Slot).queued, (a3 as Slot).waitedMs, (b1 as Slot).waitedMs]).toEqual([true, 25, 25]);
    expect(slots.running).toBe(2);
    (a3 as Slot).release();
    (b1 as Slot).release();
    (b1 as Slot).release(); // a second release gives nothing back twice
    const rest = await Promise.all(waiting.slice(1, 3));
    expect(slots.running).toBe(2);
    rest.forEach((slot) => slot.release());
    expect(slots.running).toBe(0);
  });

  it('drops a waiter whose signal aborts: it never gets a slot, and the slot goes to the next', async () => {
    const slots = createFairSlots(1);
    const held = await slots.acquire('a');
    const controller = new AbortController();
    const gone = slots.acquire('b', controller.signal);
    const next = slots.acquire('c');
    controller.abort(new Error('deadline passed while queued'));
    await expect(gone).rejects.toThrow('deadline passed while queued');
    expect(slots.waiting).toBe(1);
    held.release();
    const slot = await next;
    expect(slot.queued).toBe(true);
    slot.release();
    expect([slots.running, slots.waiting]).toEqual([0, 0]);
  });

  it('leaves no listener on the signal of a waiter once it got its slot', async () => {
    const slots = createFairSlots(1);
    const held = await slots.acquire('a');
    const controller = new AbortController();
    const waiting = slots.acquire('b', controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    held.release();
    (await waiting).release();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect([slots.running, slots.waiting]).toEqual([0, 0]);
  });

  it('refuses at once a signal aborted before asking, leaving nothing behind', async () => {
    const slots = createFairSlots(1);
    await expect(slots.acquire('a', AbortSignal.abort(new Error('already gone')))).rejects.toThrow('already gone');
    expect([slots.running, slots.waiting]).toEqual([0, 0]);
  });
});
