import { describe, expect, it } from 'vitest';
import { sortTasks } from '../utils/sortTasks';

const tasks = [
  { id: 1, title: 'b', dueDate: null, createdAt: '2024-01-01' },
  { id: 2, title: 'A', dueDate: '2024-03-01', createdAt: '2024-01-02' },
  { id: 3, title: 'c', dueDate: '2024-02-01', createdAt: '2024-01-03' },
];

describe('sortTasks', () => {
  it('sorts by due date with undated tasks last', () => {
    expect(sortTasks(tasks, 'dueDate').map((t) => t.id)).toEqual([3, 2, 1]);
  });

  it('sorts newest first by default', () => {
    expect(sortTasks(tasks).map((t) => t.id)).toEqual([3, 2, 1]);
  });

  it('sorts by title ignoring case', () => {
    expect(sortTasks(tasks, 'title').map((t) => t.title)).toEqual(['A', 'b', 'c']);
  });

  it('does not mutate its input', () => {
    const copy = [...tasks];
    sortTasks(tasks, 'title');
    expect(tasks).toEqual(copy);
  });
});
