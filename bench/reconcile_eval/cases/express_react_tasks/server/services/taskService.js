const { db, nextId, findById } = require('../db');
const { HttpError } = require('../middleware/errors');
const { recordActivity } = require('./activity');

const STATUSES = ['todo', 'in_progress', 'done'];
const LABEL_RE = /^[a-z0-9][a-z0-9-]{0,23}$/;

function validateTask(input, { partial = false } = {}) {
  const errors = {};
  if (!partial || input.title !== undefined) {
    if (typeof input.title !== 'string' || !input.title.trim()) errors.title = 'Title is required';
    else if (input.title.length > 200) errors.title = 'Title is too long';
  }
  if (input.status !== undefined && !STATUSES.includes(input.status)) {
    errors.status = `Status must be one of ${STATUSES.join(', ')}`;
  }
  if (input.dueDate && Number.isNaN(Date.parse(input.dueDate))) errors.dueDate = 'Invalid date';
  if (Object.keys(errors).length) throw new HttpError(422, 'Invalid task', errors);
}

function visibleTo(user) {
  return (task) => task.ownerId === user.id || task.assigneeId === user.id;
}

function listTasks(user, { status, assignee, projectId } = {}) {
  let tasks = db.tasks.filter(visibleTo(user));
  if (status) tasks = tasks.filter((t) => t.status === status);
  if (assignee === 'me') tasks = tasks.filter((t) => t.assigneeId === user.id);
  else if (assignee === 'none') tasks = tasks.filter((t) => !t.assigneeId);
  else if (assignee) tasks = tasks.filter((t) => t.assigneeId === Number(assignee));
  if (projectId) tasks = tasks.filter((t) => t.projectId === Number(projectId));
  return tasks;
}

function getTask(user, id) {
  const task = findById('tasks', id);
  if (!task || !visibleTo(user)(task)) throw new HttpError(404, 'Task not found');
  return task;
}

function createTask(user, input) {
  validateTask(input);
  const now = new Date().toISOString();
  const task = {
    id: nextId(),
    title: input.title.trim(),
    description: (input.description || '').trim(),
    status: 'todo',
    dueDate: input.dueDate || null,
    projectId: input.projectId ? Number(input.projectId) : null,
    ownerId: user.id,
    assigneeId: null,
    labels: [],
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
  db.tasks.push(task);
  return task;
}

function updateTask(user, id, patch) {
  const task = getTask(user, id);
  validateTask(patch, { partial: true });
  const before = { ...task };
  for (const field of ['title', 'description', 'status', 'dueDate', 'projectId']) {
    if (patch[field] !== undefined) task[field] = patch[field];
  }
  if (patch.status === 'done' && before.status !== 'done') task.completedAt = new Date().toISOString();
  if (patch.status && patch.status !== 'done') task.completedAt = null;
  task.updatedAt = new Date().toISOString();
  recordActivity(task, before, user.id);
  return task;
}

function addLabel(user, id, label) {
  const task = getTask(user, id);
  const name = String(label || '').trim().toLowerCase();
  if (!LABEL_RE.test(name)) throw new HttpError(422, 'Labels are lowercase words, up to 24 characters');
  if (!task.labels.includes(name)) {
    const before = { ...task, labels: [...task.labels] };
    task.labels.push(name);
    recordActivity(task, before, user.id);
  }
  return task;
}

function computeStats(user, now = new Date()) {
  const tasks = db.tasks.filter(visibleTo(user));
  const today = now.toISOString().slice(0, 10);
  return {
    open: tasks.filter((t) => t.status !== 'done').length,
    overdue: tasks.filter((t) => t.status !== 'done' && t.dueDate && t.dueDate < today).length,
    done: tasks.filter((t) => t.status === 'done').length,
    total: tasks.length,
  };
}

module.exports = { STATUSES, validateTask, listTasks, getTask, createTask, updateTask, addLabel, computeStats };
