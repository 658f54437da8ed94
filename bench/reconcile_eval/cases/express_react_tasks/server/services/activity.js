const { db, nextId } = require('../db');

const TRACKED_FIELDS = ['title', 'description', 'status', 'dueDate', 'assigneeId', 'labels'];

// Records who changed which fields of a task. Stored for the upcoming history panel.
function recordActivity(task, before, actorId) {
  const changes = TRACKED_FIELDS.filter(
    (field) => JSON.stringify(before[field]) !== JSON.stringify(task[field]),
  ).map((field) => ({ field, from: before[field] ?? null, to: task[field] ?? null }));
  if (changes.length === 0) return null;
  const entry = { id: nextId(), taskId: task.id, actorId, changes, at: new Date().toISOString() };
  db.activity.push(entry);
  return entry;
}

module.exports = { recordActivity };
