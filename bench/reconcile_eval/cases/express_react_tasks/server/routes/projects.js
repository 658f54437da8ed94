const express = require('express');
const { db, nextId, findById } = require('../db');
const { requireAuth } = require('../middleware/auth');
const { HttpError } = require('../middleware/errors');

const router = express.Router();
router.use(requireAuth);

function withCounts(project) {
  const tasks = db.tasks.filter((t) => t.projectId === project.id);
  return { ...project, taskCount: tasks.length, doneCount: tasks.filter((t) => t.status === 'done').length };
}

router.get('/', (req, res) => {
  const projects = db.projects.filter((p) => p.ownerId === req.user.id && !p.archived);
  res.json(projects.map(withCounts));
});

router.post('/', (req, res) => {
  const name = String(req.body.name || '').trim();
  if (!name) throw new HttpError(422, 'Project name is required');
  if (db.projects.some((p) => p.ownerId === req.user.id && p.name.toLowerCase() === name.toLowerCase())) {
    throw new HttpError(409, 'You already have a project with that name');
  }
  const project = {
    id: nextId(),
    name,
    color: req.body.color || '#4f46e5',
    ownerId: req.user.id,
    archived: false,
    createdAt: new Date().toISOString(),
  };
  db.projects.push(project);
  res.status(201).json(withCounts(project));
});

router.get('/:id', (req, res) => {
  const project = findById('projects', req.params.id);
  if (!project || project.ownerId !== req.user.id) throw new HttpError(404, 'Project not found');
  res.json(withCounts(project));
});

module.exports = router;
