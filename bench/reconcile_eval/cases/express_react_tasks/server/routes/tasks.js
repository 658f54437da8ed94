const express = require('express');
const { db, findById, remove } = require('../db');
const { requireAuth } = require('../middleware/auth');
const { HttpError } = require('../middleware/errors');
const tasks = require('../services/taskService');
const { recordActivity } = require('../services/activity');
const { notifyAssignment } = require('../services/notify');

const router = express.Router();
router.use(requireAuth);

router.get('/', (req, res) => {
  const { status, assignee, projectId } = req.query;
  res.json(tasks.listTasks(req.user, { status, assignee, projectId }));
});

router.post('/', (req, res) => {
  res.status(201).json(tasks.createTask(req.user, req.body));
});

router.get('/:id', (req, res) => {
  res.json(tasks.getTask(req.user, req.params.id));
});

router.patch('/:id', (req, res) => {
  res.json(tasks.updateTask(req.user, req.params.id, req.body));
});

router.delete('/:id', (req, res) => {
  const task = tasks.getTask(req.user, req.params.id);
  if (task.ownerId !== req.user.id) throw new HttpError(403, 'Only the owner can delete a task');
  remove('tasks', task.id);
  db.comments = db.comments.filter((c) => c.taskId !== task.id);
  res.status(204).end();
});

router.post('/:id/labels', (req, res) => {
  res.status(201).json(tasks.addLabel(req.user, req.params.id, req.body.label));
});

router.delete('/:id/labels/:label', (req, res) => {
  const task = tasks.getTask(req.user, req.params.id);
  task.labels = task.labels.filter((l) => l !== req.params.label);
  res.json(task);
});

router.patch('/:id/assign', (req, res) => {
  const task = tasks.getTask(req.user, req.params.id);
  const assigneeId = req.body.assigneeId === null ? null : Number(req.body.assigneeId);
  if (assigneeId !== null && !findById('users', assigneeId)) throw new HttpError(422, 'Unknown assignee');
  const before = { ...task };
  task.assigneeId = assigneeId;
  task.updatedAt = new Date().toISOString();
  recordActivity(task, before, req.user.id);
  notifyAssignment(task, req.user);
  res.json(task);
});

module.exports = router;
