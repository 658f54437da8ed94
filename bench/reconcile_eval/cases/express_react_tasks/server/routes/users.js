const express = require('express');
const { db } = require('../db');
const { requireAuth, publicUser } = require('../middleware/auth');
const { HttpError } = require('../middleware/errors');

const router = express.Router();
router.use(requireAuth);

router.get('/me', (req, res) => {
  res.json(publicUser(req.user));
});

router.put('/me', (req, res) => {
  const { name, avatarUrl } = req.body;
  if (name !== undefined) {
    if (!String(name).trim()) throw new HttpError(422, 'Name cannot be empty');
    req.user.name = String(name).trim().slice(0, 80);
  }
  if (avatarUrl !== undefined) {
    if (avatarUrl && !/^https:\/\//.test(avatarUrl)) throw new HttpError(422, 'Avatar must be an https URL');
    req.user.avatarUrl = avatarUrl || null;
  }
  res.json(publicUser(req.user));
});

// Teammates for the assignee picker: everyone sharing a workspace with the caller.
router.get('/', (req, res) => {
  const mine = db.workspaces.filter((w) => w.memberIds.includes(req.user.id));
  const ids = new Set(mine.flatMap((w) => w.memberIds));
  ids.add(req.user.id);
  res.json(db.users.filter((u) => ids.has(u.id)).map(({ id, name, avatarUrl }) => ({ id, name, avatarUrl })));
});

module.exports = router;
