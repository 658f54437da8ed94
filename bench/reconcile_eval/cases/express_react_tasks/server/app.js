const crypto = require('crypto');
const express = require('express');
const cors = require('cors');
const config = require('./config');
const { attachAuthUser, requireAuth } = require('./middleware/auth');
const { notFound, errorHandler } = require('./middleware/errors');

function attachRequestId(req, res, next) {
  req.id = req.get('x-request-id') || crypto.randomUUID();
  res.set('x-request-id', req.id);
  next();
}

function createApp() {
  const app = express();
  app.use(cors({ origin: config.appUrl }));
  app.use(express.json({ limit: '100kb' }));
  app.use(attachRequestId);
  app.use(attachAuthUser);

  app.get('/api/health', (req, res) => res.json({ ok: true }));
  app.use('/api/auth', require('./routes/auth'));
  app.use('/api/users', require('./routes/users'));
  app.use('/api/tasks', require('./routes/tasks'));
  app.use('/api/tasks/:taskId/comments', require('./routes/comments'));
  app.use('/api/projects', require('./routes/projects'));
  app.use('/api/workspaces', require('./routes/workspaces'));
  app.use('/api/notifications', require('./routes/notifications'));
  app.get('/api/stats', requireAuth, require('./routes/stats'));

  app.use(notFound);
  app.use(errorHandler);
  return app;
}

module.exports = { createApp };
