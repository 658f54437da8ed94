const { summarise, formatSummary } = require('../weekly-summary');

test('groups tasks completed this week by person', () => {
  const now = new Date('2024-06-10T09:00:00Z');
  const users = [{ id: 1, name: 'Ada' }, { id: 2, name: 'Bob' }];
  const tasks = [
    { title: 'old', status: 'done', completedAt: '2024-05-01T10:00:00Z', ownerId: 1 },
    { title: 'ship', status: 'done', completedAt: '2024-06-08T10:00:00Z', ownerId: 1, assigneeId: 2 },
    { title: 'open', status: 'todo', ownerId: 1 },
  ];
  const rows = summarise(tasks, users, now);
  expect(rows).toEqual([{ name: 'Bob', count: 1, titles: ['ship'] }]);
  expect(formatSummary(rows)).toContain('Bob (1)');
});
