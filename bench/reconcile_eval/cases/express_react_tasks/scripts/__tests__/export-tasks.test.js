const { tasksToCsv, parseArgs } = require('../export-tasks');

describe('export-tasks', () => {
  test('exports tasks as CSV', () => {
    const csv = tasksToCsv([
      { id: 1, title: 'Plain', status: 'todo', labels: ['ops', 'urgent'], createdAt: '2024-05-01' },
    ]);
    const [header, row] = csv.trim().split('\n');
    expect(header).toBe('id,title,status,dueDate,assigneeId,projectId,labels,createdAt,completedAt');
    expect(row).toBe('1,Plain,todo,,,,ops|urgent,2024-05-01,');
  });

  test('escapes commas and quotes', () => {
    const csv = tasksToCsv([{ id: 2, title: 'Say "hi", then leave', status: 'done' }]);
    expect(csv).toContain('"Say ""hi"", then leave"');
  });

  test('requires a token', () => {
    delete process.env.TASKBOARD_TOKEN;
    expect(() => parseArgs(['--project', '3'])).toThrow('Missing --token');
  });
});
