const express = require('express');
const { db } = require('../db');
const { requireAuth } = require('../middleware/auth');
const { HttpError } = require('../middleware/errors');

const router = express.Router();
router.use(requireAuth);

router.get('/', (req, res) => {
  const mine = db.notifications
    .filter((n) => n.userId === req.user.id)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  res.json({ unread: mine.filter((n) => !n.read).length, items: mine.slice(0, 50) });
});

router.post('/:id/read', (req, res) => {
  const notification = db.notifications.find((n) => n.id === Number(req.params.id) && n.userId === req.user.id);
  if (!notification) throw new HttpError(404, 'Notification not found');
  notification.read = true;
  res.json(notification);
});

module.exports = router;
