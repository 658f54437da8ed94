const express = require('express');
const { db, nextId } = require('../db');
const { requireAuth } = require('../middleware/auth');
const { HttpError } = require('../middleware/errors');
const { getTask } = require('../services/taskService');

const router = express.Router({ mergeParams: true });
router.use(requireAuth);

router.get('/', (req, res) => {
  const task = getTask(req.user, req.params.taskId);
  const comments = db.comments
    .filter((c) => c.taskId === task.id)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map((c) => ({ ...c, authorName: (db.users.find((u) => u.id === c.authorId) || {}).name }));
  res.json(comments);
});

router.post('/', (req, res) => {
  const task = getTask(req.user, req.params.taskId);
  const body = String(req.body.body || '').trim();
  if (!body) throw new HttpError(422, 'Comment cannot be empty');
  if (body.length > 4000) throw new HttpError(422, 'Comment is too long');
  const comment = { id: nextId(), taskId: task.id, authorId: req.user.id, body, createdAt: new Date().toISOString() };
  db.comments.push(comment);
  res.status(201).json({ ...comment, authorName: req.user.name });
});

module.exports = router;
