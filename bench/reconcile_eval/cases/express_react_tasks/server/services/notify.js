const { db, nextId, findById } = require('../db');

function notifyAssignment(task, assignedBy) {
  if (!task.assigneeId || task.assigneeId === assignedBy.id) return null;
  const assignee = findById('users', task.assigneeId);
  if (!assignee) return null;
  const notification = {
    id: nextId(),
    userId: assignee.id,
    kind: 'task_assigned',
    taskId: task.id,
    message: `${assignedBy.name} assigned you "${task.title}"`,
    read: false,
    createdAt: new Date().toISOString(),
  };
  db.notifications.push(notification);
  return notification;
}

function unreadFor(userId) {
  return db.notifications.filter((n) => n.userId === userId && !n.read);
}

module.exports = { notifyAssignment, unreadFor };
