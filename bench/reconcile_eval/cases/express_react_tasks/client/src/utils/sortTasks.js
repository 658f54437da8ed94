// Tasks without a due date sort after dated ones; ties keep creation order.
export function sortTasks(tasks, by = 'created') {
  const copy = [...tasks];
  switch (by) {
    case 'dueDate':
      return copy.sort((a, b) => {
        if (!a.dueDate && !b.dueDate) return a.createdAt.localeCompare(b.createdAt);
        if (!a.dueDate) return 1;
        if (!b.dueDate) return -1;
        return a.dueDate.localeCompare(b.dueDate) || a.createdAt.localeCompare(b.createdAt);
      });
    case 'title':
      return copy.sort((a, b) => a.title.localeCompare(b.title, undefined, { sensitivity: 'base' }));
    case 'created':
    default:
      return copy.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }
}
